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
from numba import njit, prange

from swarmstack import jit, threads

from swarmstack.geometry.grid import cell_xy
from swarmstack.geometry.nearby import boxes_near_listed, cylinders_near_listed, robots_near
from swarmstack.geometry.rays import NO_HIT, _box_hit, _disk_hit, box_interval
from swarmstack.sensors.device import serial_arrays


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
    b = world.bodies
    kernel = cast_parallel if threads.go_parallel(group.stop - group.start) else cast_serial
    kernel(group.start, group.stop, b.pose, b.run, b.radius, b.height, world.arena.boxes,
           world.arena.cylinders, world.grid, world.cell_start, world.order, world.static,
           world.max_radius, layout.table, layout.range_m, out)


@njit(cache=True, error_model="numpy", inline="always")
def _disk_along_ray(u, v, r, ca, sa, ring):
    """Distance from a radial ray's start to a disk of radius ``r`` centred at (u, v) in the
    robot frame (the ray leaves the origin's ring at ``ring`` along (ca, sa)); inf if missed."""
    along = u * ca + v * sa
    across = u * sa - v * ca
    if across * across > r * r:
        return np.inf
    half = math.sqrt(r * r - across * across)
    if along + half < ring:           # the whole disk lies behind the sensor
        return np.inf
    return max(along - half - ring, 0.0)


@njit(cache=True, error_model="numpy", inline="always")
def _box_along_ray(bu, bv, hx, hy, cb, sb, ca, sa, ring):
    """Distance from a radial ray's start to a rectangle (centre (bu, bv), half-sizes hx, hy,
    rotated by (cb, sb)) given in the robot frame; inf if missed."""
    t_in, t_out = box_interval(ring * ca, ring * sa, ca, sa, bu, bv, hx, hy, cb, sb)
    if t_out < 0.0:  # behind the start, or missed (the interval is then (NO_HIT, -1))
        return np.inf
    return max(t_in, 0.0)


# robots per work item of the parallel kernels (the result does not depend on it)
CHUNK = 64
# long rays are searched in pieces this many grid cells long (see long_rows)
PIECE_CELLS = 6.0
_SLACK_M = 1e-9  # added to the reach of a gathering box: covers the rounding of hit points


@njit(cache=True, error_model="numpy")
def cast_rows(a, b, base, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
              order, static, max_radius, rays, range_m, out):
    """Hit distances (m; ``range_m`` if none) of robots ``a … b − 1`` into rows ``i − base``
    of ``out`` float64[·, K]; ``rays`` is :attr:`RayLayout.table`.

    Short devices (every ray ends within one grid cell of the body: proximity) gather the
    nearby shapes once per robot and intersect them in the robot's own frame, where each ray is
    a fixed radial line; long ones (ToF) search the grid per ray (:func:`long_rows`).
    """
    x = pose[0]
    y = pose[1]
    z = pose[2]
    yaw = pose[5]
    n_rays = rays.shape[0]
    reach = 0.0
    for k in range(n_rays):
        reach = max(reach, rays[k, 2] + range_m)
    short = reach <= gparams[2]  # then the per-cell static lists and a 3×3 block suffice
    if not short:
        long_rows(a, b, base, x, y, z, yaw, run, radius, height, boxes, cylinders, gparams,
                  cell_start, order, max_radius, rays, range_m, out)
        return
    bs, bi, cs, ci = static
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
                    t = _disk_along_ray(u, v, rr, rays[k, 0], rays[k, 1], rays[k, 2])
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
                    t = _box_along_ray(bu, bv, boxes[j, 2], boxes[j, 3], cb, sb, rays[k, 0],
                                       rays[k, 1], rays[k, 2])
                    if t < best[k]:
                        best[k] = t
        for k in range(n_rays):
            out[row, k] = min(best[k], range_m)


@njit(cache=True, error_model="numpy")
def long_rows(a, b, base, x, y, z, yaw, run, radius, height, boxes, cylinders, gparams,
              cell_start, order, max_radius, rays, range_m, out):
    """Long rays (ToF): the first hit of each ray, as ``rays.first_hit`` finds it, with less
    work. The static shapes go first: their hit ends the part of the ray left to search. That
    part is cut into pieces of about ``PIECE_CELLS`` grid cells; the robots of each piece's
    bounding box (grown by the largest body radius) are gathered row by row from the grid —
    each grid row of a box is one contiguous run of robots — and tested. A robot met at t has
    its centre within its radius of the point at t, so it lies in the box of the piece holding
    t: once the best hit comes before the next piece starts, nothing further can beat it. The
    minimum over the same shapes is the same number.

    The search is written out in this loop rather than called per ray: a compiled call per
    ray with this many arrays costs more than the search itself.
    """
    nx, ny = int(gparams[3]), int(gparams[4])
    ox = gparams[0]
    oy = gparams[1]
    cell = gparams[2]
    piece_m = PIECE_CELLS * cell
    # 1 / cell: a cell index off by rounding is covered by the slack in the boxes' reach
    inv = 1.0 / cell
    grow = max_radius + _SLACK_M
    for i in range(a, b):
        row = i - base
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        rbase = run[i] * nx * ny
        for k in range(rays.shape[0]):
            ca = c * rays[k, 0] - s * rays[k, 1]  # heading of the ray in the world
            sa = s * rays[k, 0] + c * rays[k, 1]
            x0 = x[i] + rays[k, 2] * ca
            y0 = y[i] + rays[k, 2] * sa
            z0 = z[i] + rays[k, 3]
            x1 = x0 + range_m * ca
            y1 = y0 + range_m * sa
            dx = x1 - x0
            dy = y1 - y0
            best = NO_HIT
            for q in range(boxes.shape[0]):
                best = min(best, _box_hit(x0, y0, z0, dx, dy, 0.0, boxes, q))
            for q in range(cylinders.shape[0]):
                best = min(best, _disk_hit(x0, y0, z0, dx, dy, 0.0, cylinders[q, 0],
                                           cylinders[q, 1], cylinders[q, 2], 0.0,
                                           cylinders[q, 3]))
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


@njit(cache=True, error_model="numpy")
def cast_serial(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                order, static, max_radius, rays, range_m, out):
    """Hit distances of robots ``start … stop − 1`` into ``out`` float64[stop − start, K]."""
    cast_rows(start, stop, start, pose, run, radius, height, boxes, cylinders, gparams,
              cell_start, order, static, max_radius, rays, range_m, out)


@njit(cache=True, error_model="numpy", parallel=True)
def cast_parallel(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                  order, static, max_radius, rays, range_m, out):
    """:func:`cast_serial` over chunks of robots on all threads (the same result)."""
    n_chunks = (stop - start + CHUNK - 1) // CHUNK
    for c in prange(n_chunks):
        a = start + c * CHUNK
        cast_rows(a, min(stop, a + CHUNK), start, pose, run, radius, height, boxes, cylinders,
                  gparams, cell_start, order, static, max_radius, rays, range_m, out)


def bind_sensor_rows(kernel, world, group, rays, coef, kind, keys, stream, state, out):
    """A ray sensor's ``update`` for one group as a call without arguments, bound to the
    compiled serial ``kernel`` (``tof``/``proximity`` ``sense_serial``: the arguments of
    :func:`cast_serial`, then the transfer's); None when the group may go parallel (then
    ``update`` chooses; ``device.serial_arrays``)."""
    head = serial_arrays(world, group)
    if head is None:
        return None
    start, stop, pose, run, radius, height, boxes, cylinders, gparams = head
    static, max_radius = world.static, world.max_radius
    compiled = jit.compiled(kernel, start, stop, pose, run, radius, height, boxes, cylinders,
                            gparams, world.cell_start, world.order, static, max_radius, rays,
                            coef, kind, keys, stream, world.tick, state, out)

    def update_bound():
        compiled(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                 world.cell_start, world.order, static, max_radius, rays, coef, kind, keys,
                 stream, world.tick, state, out)
    return update_bound
