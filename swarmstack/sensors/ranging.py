"""Distance along rays fanned out from each robot: the shared kernel of proximity, ToF and lidar.

A ranging device is a set of rays in the body frame: ray k starts at radius ``ring_m[k]`` and
angle ``angle_rad[k]`` around the body centre, at ``elevation_m[k]`` above the body base, and
points radially outward (its direction is ``angle_rad[k]``, CCW from the robot's heading). The
kernel returns, per robot and ray, the distance to the first thing hit (static shapes or other
robots of the same run), or ``range_m`` when nothing is hit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from numba import njit

from swarmstack.geometry.grid import cell_xy
from swarmstack.geometry.nearby import boxes_near_listed, cylinders_near_listed, robots_near
from swarmstack.geometry.rays import _EPS, NO_HIT, _disk_hit, box_along_ray, disk_along_ray
from swarmstack.sim import threads


@dataclass(frozen=True)
class RayLayout:
    """Where a device's rays start and where they point (per-ray arrays, body frame)."""

    angle_rad: np.ndarray
    ring_m: np.ndarray
    elevation_m: np.ndarray
    range_m: float

    @staticmethod
    def ring(angles_rad, ring_m: float, elevation_m: float, range_m: float) -> "RayLayout":
        a = np.asarray(angles_rad, dtype=np.float64)
        return RayLayout(a, np.full(a.shape, float(ring_m)), np.full(a.shape, float(elevation_m)),
                         float(range_m))

    @property
    def count(self) -> int:
        return int(self.angle_rad.shape[0])

    @cached_property
    def reach_m(self) -> float:
        """How far from the body centre a ray can end (m)."""
        return float(np.max(self.ring_m + self.range_m, initial=0.0))

    @cached_property  # built once: the kernels read it every tick
    def table(self) -> np.ndarray:
        """float64[K, 4] per ray: cos and sin of its direction, ring radius, elevation."""
        return ray_table(self.angle_rad, self.ring_m, self.elevation_m)


@njit(cache=True, error_model="numpy")
def ray_table(angle_rad, ring_m, elevation_m):
    # computed by Numba's cos/sin, as the kernels always did: the same bits as before
    t = np.empty((angle_rad.shape[0], 4))
    t[:, 0] = np.cos(angle_rad)
    t[:, 1] = np.sin(angle_rad)
    t[:, 2] = ring_m
    t[:, 3] = elevation_m
    return t


def cast(world, group, layout: RayLayout, out: np.ndarray) -> None:
    """Hit distances (m) of ``layout``'s rays for every robot of ``group`` into ``out``."""
    threads.rows_plan(_cast_rows, _cast_parallel, world, group, (layout.table, layout.range_m),
                      None, None, out, chunk_items=CHUNK)()


# the fewest robots per work item of the parallel kernels (``threads.spread``; the result does
# not depend on it)
CHUNK = 64
# long rays are searched in pieces this many grid cells long (see long_rows)
PIECE_CELLS = 6.0
_SLACK_M = 1e-9  # added to the reach of a gathering box: covers the rounding of hit points


@njit(cache=True, error_model="numpy")
def cast_rows(a, b, base, bodies, scene, rays, range_m, out):
    """Hit distances (m; ``range_m`` if none) of robots ``a … b − 1`` into rows ``i − base``
    of ``out`` float64[·, K]; ``bodies``, ``scene``: ``World.bodies_args``,
    ``World.scene_args``; ``rays`` is :attr:`RayLayout.table`.

    Short devices (every ray ends within one grid cell of the body: proximity) gather the
    nearby shapes once per robot and intersect them in the robot's own frame, where each ray is
    a fixed radial line; long ones (ToF) search the grid per ray (:func:`long_rows`).
    """
    pose, run, radius, height = bodies
    boxes, cylinders, gparams, cell_start, order, bs, bi, cs, ci, max_radius = scene
    x, y, z, yaw = pose[0], pose[1], pose[2], pose[5]
    n_rays = rays.shape[0]
    reach = 0.0
    for k in range(n_rays):
        reach = max(reach, rays[k, 2] + range_m)
    short = reach <= gparams[2]  # then the per-cell static lists and a 3×3 block suffice
    if not short:
        long_rows(a, b, base, bodies, scene, rays, range_m, out)
        return
    nx = int(gparams[3])
    box_idx = np.empty(boxes.shape[0], dtype=np.int64)
    cyl_idx = np.empty(cylinders.shape[0], dtype=np.int64)
    rob_idx = np.empty(x.shape[0], dtype=np.int64)
    best = np.empty(n_rays)
    for i in range(a, b):
        row = i - base
        gx, gy = cell_xy(gparams, x[i], y[i])
        cell = gy * nx + gx
        nb = nc = 0
        if bs[cell + 1] > bs[cell]:  # most cells are far from every wall and obstacle
            nb = boxes_near_listed(x[i], y[i], reach, boxes, bi[bs[cell]:bs[cell + 1]], box_idx)
        if cs[cell + 1] > cs[cell]:
            nc = cylinders_near_listed(x[i], y[i], reach, cylinders, ci[cs[cell]:cs[cell + 1]],
                                       cyl_idx)
        nr = robots_near(x[i], y[i], reach, run[i], i, x, y, radius, max_radius, gparams,
                         cell_start, order, rob_idx)
        for k in range(n_rays):
            best[k] = range_m
        if nb + nc + nr > 0:
            c = math.cos(yaw[i])
            s = math.sin(yaw[i])
            for m in range(nr + nc):  # disks: other robots, then cylinders
                if m < nr:
                    j = rob_idx[m]
                    cx, cy, rr = x[j], y[j], radius[j]
                    z_lo, z_hi = z[j], z[j] + height[j]
                else:
                    j = cyl_idx[m - nr]
                    cx, cy, rr = cylinders[j, 0], cylinders[j, 1], cylinders[j, 2]
                    z_lo, z_hi = 0.0, cylinders[j, 3]
                dx = cx - x[i]
                dy = cy - y[i]
                u = c * dx + s * dy
                v = -s * dx + c * dy
                for k in range(n_rays):
                    zk = z[i] + rays[k, 3]
                    if zk < z_lo or zk > z_hi:
                        continue
                    t = disk_along_ray(u, v, rr, rays[k, 0], rays[k, 1], rays[k, 2])
                    if t < best[k]:
                        best[k] = t
            for m in range(nb):
                j = box_idx[m]
                dx = boxes[j, 0] - x[i]
                dy = boxes[j, 1] - y[i]
                bu = c * dx + s * dy
                bv = -s * dx + c * dy
                cb = boxes[j, 6] * c + boxes[j, 7] * s   # the box's yaw relative to the robot
                sb = boxes[j, 7] * c - boxes[j, 6] * s
                for k in range(n_rays):
                    zk = z[i] + rays[k, 3]
                    if zk < 0.0 or zk > boxes[j, 5]:
                        continue
                    t = box_along_ray(bu, bv, boxes[j, 2], boxes[j, 3], cb, sb, rays[k, 0],
                                       rays[k, 1], rays[k, 2])
                    if t < best[k]:
                        best[k] = t
        for k in range(n_rays):
            out[row, k] = min(best[k], range_m)


@njit(cache=True, error_model="numpy")
def long_rows(a, b, base, bodies, scene, rays, range_m, out):
    """Long rays (ToF): the first hit of each ray (what ``rays.first_hit`` finds). Every ray
    of the rows is laid out first; the static shapes go next, box by box over all rays at
    once (:func:`_boxes_hit`): their hit ends the part of a ray left to search.

    The robots of a run of at most ``SMALL_RUN`` bodies are then searched whole
    (:func:`_small_run_hit`); those of a larger run through the grid: the part of the ray
    left is cut into pieces of about ``PIECE_CELLS`` grid cells; the robots of each piece's
    bounding box (grown by the largest body radius) are gathered row by row from the grid —
    each grid row of a box is one contiguous run of robots — and tested. A robot met at t has
    its centre within its radius of the point at t, so it lies in the box of the piece holding
    t: once the best hit comes before the next piece starts, nothing further can beat it.
    Either way the minimum over the same shapes, each hit computed by the same formula, is
    the same number.

    The search is written out in this loop rather than called per ray: a compiled call per
    ray with this many arrays costs more than the search itself.
    """
    pose, run, radius, height = bodies
    boxes, cylinders, gparams, cell_start, order, _, _, _, _, max_radius = scene
    x, y, z, yaw = pose[0], pose[1], pose[2], pose[5]
    # scratch: the rays (float64[8, robots · rays]), a small run's bodies (float32[6,
    # SMALL_RUN]), their indices (int32) and flags (uint8, 8-byte aligned: read as uint64 words)
    ray = np.empty((8, (b - a) * rays.shape[0]))
    bodies_f = np.empty((6, SMALL_RUN), dtype=np.float32)
    who = np.empty(SMALL_RUN, dtype=np.int32)
    keep = np.empty(SMALL_RUN, dtype=np.uint8)
    nx, ny = int(gparams[3]), int(gparams[4])
    ox, oy, cell = gparams[0], gparams[1], gparams[2]
    piece_m = PIECE_CELLS * cell
    # 1 / cell: a cell index off by rounding is covered by the slack in the boxes' reach
    inv = 1.0 / cell
    grow = max_radius + _SLACK_M
    n_cells = nx * ny
    n_rays = rays.shape[0]
    # per ray (row of `ray`): start x, y, z, direction (dx, dy) times the range, best hit so
    # far, and the unit direction (for the whole-run pass)
    for i in range(a, b):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for k in range(n_rays):
            r = (i - a) * n_rays + k
            ca = c * rays[k, 0] - s * rays[k, 1]  # heading of the ray in the world
            sa = s * rays[k, 0] + c * rays[k, 1]
            x0 = x[i] + rays[k, 2] * ca
            y0 = y[i] + rays[k, 2] * sa
            ray[0, r] = x0
            ray[1, r] = y0
            ray[2, r] = z[i] + rays[k, 3]
            ray[3, r] = (x0 + range_m * ca) - x0
            ray[4, r] = (y0 + range_m * sa) - y0
            ray[6, r] = ca
            ray[7, r] = sa
    _boxes_hit(ray, boxes)
    # `bodies_f` and `who`: the bodies of the run last gathered (see _gather_run)
    words = keep.view(np.uint64)  # the flags eight at a time: most words are zero
    ring_max = rays[0, 2]  # (a loop: an array's max() needs the reference counting)
    for k in range(1, n_rays):
        ring_max = max(ring_max, rays[k, 2])
    gathered = -1
    n_run = 0
    for i in range(a, b):
        row = i - base
        rbase = run[i] * n_cells
        small = cell_start[rbase + n_cells] - cell_start[rbase] <= SMALL_RUN
        if small and run[i] != gathered:
            n_run = _gather_run(cell_start[rbase], cell_start[rbase + n_cells], order, x, y, z,
                                radius, height, range_m + ring_max + max_radius, bodies_f, who)
            gathered = run[i]
        for k in range(n_rays):
            r = (i - a) * n_rays + k
            x0 = ray[0, r]
            y0 = ray[1, r]
            z0 = ray[2, r]
            dx = ray[3, r]
            dy = ray[4, r]
            best = ray[5, r]
            for q in range(cylinders.shape[0]):
                best = min(best, _disk_hit(x0, y0, z0, dx, dy, 0.0, cylinders[q, 0],
                                           cylinders[q, 1], cylinders[q, 2], 0.0,
                                           cylinders[q, 3]))
            if small:
                best = _small_run_hit(i, x0, y0, z0, dx, dy, ray[6, r], ray[7, r], range_m,
                                      best, x, y, z, radius, height, bodies_f, who, keep, words,
                                      n_run)
                out[row, k] = range_m if best >= NO_HIT else best * range_m
                continue
            length = math.sqrt(dx * dx + dy * dy)
            n_pieces = max(1, int(math.ceil(length / piece_m)))
            dt = 1.0 / n_pieces
            for p in range(n_pieces):
                ta = p * dt
                if best <= ta:
                    break
                tb = min(1.0, ta + dt, best)
                ax = x0 + ta * dx
                ay = y0 + ta * dy
                bx = x0 + tb * dx
                by = y0 + tb * dy
                gx0 = max(0, min(nx - 1, int(math.floor((min(ax, bx) - grow - ox) * inv))))
                gx1 = max(0, min(nx - 1, int(math.floor((max(ax, bx) + grow - ox) * inv))))
                gy0 = max(0, min(ny - 1, int(math.floor((min(ay, by) - grow - oy) * inv))))
                gy1 = max(0, min(ny - 1, int(math.floor((max(ay, by) + grow - oy) * inv))))
                for gy in range(gy0, gy1 + 1):
                    crow = rbase + gy * nx
                    for q in range(cell_start[crow + gx0], cell_start[crow + gx1 + 1]):
                        j = order[q]
                        if j == i:
                            continue
                        best = min(best, _disk_hit(x0, y0, z0, dx, dy, 0.0, x[j], y[j],
                                                   radius[j], z[j], z[j] + height[j]))
            out[row, k] = range_m if best >= NO_HIT else best * range_m


@njit(cache=True, error_model="numpy", inline="always")
def _boxes_hit(ray, boxes):
    """Row 5 of ``ray`` (see :func:`long_rows`) set to the first hit of each ray on the boxes
    (``NO_HIT`` if none): ``_box_hit`` for a level ray, each box against all rays in one loop
    without branches (so that it runs on vector lanes; its tests become selects between
    values computed by the same operations, hence the same numbers)."""
    n = ray.shape[1]
    x0s, y0s, z0s, dxs, dys, best = ray[0], ray[1], ray[2], ray[3], ray[4], ray[5]
    for r in range(n):
        best[r] = NO_HIT
    for q in range(boxes.shape[0]):
        cx, cy, hx, hy, top, c, s = (boxes[q, 0], boxes[q, 1], boxes[q, 2], boxes[q, 3],
                                     boxes[q, 5], boxes[q, 6], boxes[q, 7])
        for r in range(n):
            x0, y0, z0, dx, dy = x0s[r], y0s[r], z0s[r], dxs[r], dys[r]
            # box_interval, its branches as selects
            px = c * (x0 - cx) + s * (y0 - cy)
            py = -s * (x0 - cx) + c * (y0 - cy)
            qx = c * dx + s * dy
            qy = -s * dx + c * dy
            t_in = -1e300
            t_out = 1e300
            ea = (-hx - px) / qx
            eb = (hx - px) / qx
            flat_x = abs(qx) < _EPS
            miss = flat_x & ((px < -hx) | (px > hx))
            t_in = t_in if flat_x else max(t_in, min(ea, eb))
            t_out = t_out if flat_x else min(t_out, max(ea, eb))
            ea = (-hy - py) / qy
            eb = (hy - py) / qy
            flat_y = abs(qy) < _EPS
            miss = miss | (flat_y & ((py < -hy) | (py > hy)))
            t_in = t_in if flat_y else max(t_in, min(ea, eb))
            t_out = t_out if flat_y else min(t_out, max(ea, eb))
            miss = miss | (t_in > t_out)
            # _box_hit's clip to [0, 1], then _clip_z for a level ray
            ta = max(NO_HIT if miss else t_in, 0.0)
            tb = min(-1.0 if miss else t_out, 1.0)
            hit = ta if ((ta <= tb) & (0.0 <= z0) & (z0 <= top)) else NO_HIT
            best[r] = min(best[r], hit)


# a run of at most this many bodies is searched whole by long rays (see long_rows)
SMALL_RUN = 256
# the whole-run pass goes over blocks of this many bodies (its vector loop's step, so that no
# body falls to a scalar remainder loop); SMALL_RUN is a multiple of it
_BLOCK = 16
# the whole-run pass works in float32: its slack is this much relative to the scene's size,
# ~100 times float32's rounding over its few operations
_REJECT_SLACK = 1e-5


@njit(cache=True, error_model="numpy", inline="always")
def _gather_run(q0, q1, order, x, y, z, radius, height, reach, bodies, who):
    """The bodies ``order[q0:q1]`` (one run) in float32 rows of ``bodies`` for
    :func:`_small_run_hit`, their indices in ``who``, padded to a whole block with bodies no
    ray meets. Each is grown by a slack that covers float32 rounding: x, y, radius + slack,
    (radius + 2 slack)², bottom − slack, top + slack. Returns the padded count."""
    n = q1 - q0
    size = 1.0 + reach
    for m in range(n):
        j = order[q0 + m]
        v = 1.0 + reach + abs(x[j]) + abs(y[j]) + abs(z[j]) + height[j]
        if v > size:  # so written, a body at NaN leaves the slack of the others alone
            size = v
    e = _REJECT_SLACK * size
    for m in range(n):
        j = order[q0 + m]
        who[m] = j
        bodies[0, m] = x[j]
        bodies[1, m] = y[j]
        bodies[2, m] = radius[j] + e
        bodies[3, m] = (radius[j] + 2.0 * e) ** 2
        bodies[4, m] = z[j] - e
        bodies[5, m] = z[j] + height[j] + e
    n_pad = (n + _BLOCK - 1) // _BLOCK * _BLOCK
    for m in range(n, n_pad):
        who[m] = -1
        bodies[0, m] = 0.0
        bodies[1, m] = 0.0
        bodies[2, m] = 0.0
        bodies[3, m] = 0.0
        bodies[4, m] = np.inf
        bodies[5, m] = -np.inf
    return n_pad


@njit(cache=True, error_model="numpy", inline="always")
def _small_run_hit(i, x0, y0, z0, dx, dy, ca, sa, range_m, best, x, y, z, radius, height,
                   bodies, who, keep, words, n):
    """``best`` lowered to the first hit of the ray (x0, y0, z0) + t (dx, dy, 0) (unit
    direction (ca, sa), ``range_m`` long) on the gathered bodies (:func:`_gather_run`) other
    than robot ``i``.

    A first pass over all bodies, in float32 and free of branches so that it runs on wide
    vector lanes, keeps those the ray may touch before ``best``: the centre within a (grown)
    radius of the ray's line and of its part [0, best], the ray's height within the (grown)
    body. Only those get the exact ``_disk_hit`` in float64: the minimum is the one over
    every body.
    """
    xf = np.float32(x0)
    yf = np.float32(y0)
    zf = np.float32(z0)
    cf = np.float32(ca)
    sf = np.float32(sa)
    lim = np.float32(min(best, 1.0) * range_m)
    me = who.dtype.type(i)
    xs, ys, rs, r2, lo, hi = bodies[0], bodies[1], bodies[2], bodies[3], bodies[4], bodies[5]
    for m in range(n):
        ux = xs[m] - xf
        uy = ys[m] - yf
        along = ux * cf + uy * sf
        across = ux * sf - uy * cf
        k = ((across * across <= r2[m]) & (along >= -rs[m]) & (along <= lim + rs[m])
             & (lo[m] <= zf) & (zf <= hi[m]) & (who[m] != me))
        keep[m] = k
    for w in range(n // 8):
        if words[w] != 0:
            for m in range(8 * w, 8 * w + 8):
                if keep[m]:
                    j = who[m]
                    best = min(best, _disk_hit(x0, y0, z0, dx, dy, 0.0, x[j], y[j], radius[j],
                                               z[j], z[j] + height[j]))
    return best


@njit(cache=True, error_model="numpy")
def _cast_rows(lo, hi, start, bodies, scene, params, keys, tick, state, out):
    """:func:`cast_rows` as a per-rows kernel (``params`` = (rays, range)) for :func:`cast`."""
    cast_rows(lo, hi, start, bodies, scene, params[0], params[1], out)


_cast_parallel = threads.chunked(_cast_rows)
