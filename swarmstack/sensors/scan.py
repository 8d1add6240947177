"""Planar range scans: rays fanned out radially in one horizontal plane of each robot.

The shared kernel of the RVR's proximity ring (8 rays) and its lidar (719 rays). Ray ``k``
leaves the body centre along ``angle_rad[k]`` (CCW from the heading); its distance is counted
from the ring of radius ``ring_m`` where the device's window is, and the plane sits
``elevation_m`` above the body base.

Unlike :mod:`swarmstack.sensors.ranging` (which treats other robots as their bounding discs
and walks the grid per ray for long devices) a scan is organised *per shape*: all rays are
radial lines from one centre, so each shape covers an exact cone of directions, and only the
rays inside that cone are intersected with it. A 719-ray lidar in a room with four walls, a
few obstacles and a hundred robots thus costs a few thousand ray–shape tests per robot, not
719 grid walks. Box-shaped robots are intersected as their oriented boxes; a robot may also
carry a *mast* (a thin cylinder standing on its body, e.g. another RVR's lidar housing) seen
by scans at that height.
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.geometry.overlap import SHAPE_BOX
from swarmstack.geometry.nearby import boxes_near, cylinders_near, robots_near
from swarmstack.geometry.rays import box_along_ray, disk_along_ray
from numba import njit

TWO_PI = 2.0 * math.pi


@njit(cache=True, error_model="numpy", inline="always")
def _wrap(a):
    """Angle to (−π, π]."""
    a -= TWO_PI * math.floor(a / TWO_PI)
    if a > math.pi:
        a -= TWO_PI
    elif a <= -math.pi:
        a += TWO_PI
    return a


@njit(cache=True, error_model="numpy", inline="always")
def _cone_rays(lo, hi, a0, step, n_rays):
    """First ray index and count of the uniform fan ``a0 + k·step`` inside [lo, hi] (rad,
    robot frame, ``hi − lo < 2π``); indices wrap modulo ``n_rays``."""
    k_lo = math.ceil((lo - a0) / step - 1e-9)
    count = math.floor((hi - a0) / step + 1e-9) - k_lo + 1
    return k_lo, max(min(count, n_rays), 0)


@njit(cache=True, error_model="numpy")
def scan_kernel(start, stop, bodies, scene, shapes, mast, rays, out):
    """Fill ``out`` float64[stop − start, K] with the distance (m, from the ring) to the first
    thing each ray meets within ``range_m``, or ``inf``. ``bodies``, ``scene``:
    ``World.bodies_args``, ``World.scene_args``; ``shapes`` = (shape, half_x, half_y) of the
    bodies; ``mast`` = (mast_r, mast_lo, mast_hi) per body (:func:`masts`); ``rays`` =
    (angle_rad, uniform_step, ring_m, elevation_m, range_m).

    ``uniform_step`` > 0 says the rays are ``angle_rad[0] + k·step`` around the full circle
    (``K·step = 2π``), so each shape's cone maps to a run of ray indices; otherwise every ray
    is tested against every candidate. ``shape`` is 1 for box bodies (oriented by ``yaw``,
    ``half_x``/``half_y``), else a disc of ``radius``; ``mast_r`` > 0 adds a cylinder of that
    radius at the robot's centre spanning ``mast_lo … mast_hi`` above its base.
    """
    pose, run, radius, height = bodies
    boxes, cylinders, gparams, cell_start, order, _, _, _, _, max_radius = scene
    shape, half_x, half_y = shapes
    mast_r, mast_lo, mast_hi = mast
    angle_rad, uniform_step, ring_m, elevation_m, range_m = rays
    x, y, z, yaw = pose[0], pose[1], pose[2], pose[5]
    n = x.shape[0]
    n_rays = angle_rad.shape[0]
    reach = ring_m + range_m
    ray_cos = np.cos(angle_rad)
    ray_sin = np.sin(angle_rad)
    box_idx = np.empty(boxes.shape[0], dtype=np.int64)
    cyl_idx = np.empty(cylinders.shape[0], dtype=np.int64)
    rob_idx = np.empty(n, dtype=np.int64)
    best = np.empty(n_rays)
    a0 = angle_rad[0]
    for i in range(start, stop):
        zr = z[i] + elevation_m
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for k in range(n_rays):
            best[k] = np.inf
        nb = boxes_near(x[i], y[i], reach, boxes, box_idx)
        nc = cylinders_near(x[i], y[i], reach, cylinders, cyl_idx)
        nr = robots_near(x[i], y[i], reach, run[i], i, x, y, radius, max_radius, gparams,
                         cell_start, order, rob_idx)
        # discs: cylinders, robot discs, robot masts, robots' boxes handled below
        for m in range(nc + nr):
            is_box = False
            if m < nc:
                j = cyl_idx[m]
                if zr < 0.0 or zr > cylinders[j, 3]:
                    continue
                cx, cy, rr = cylinders[j, 0], cylinders[j, 1], cylinders[j, 2]
            else:
                j = rob_idx[m - nc]
                if z[j] <= zr <= z[j] + height[j]:
                    if shape[j] == SHAPE_BOX:
                        is_box = True
                    cx, cy, rr = x[j], y[j], radius[j]
                elif mast_r[j] > 0.0 and z[j] + mast_lo[j] <= zr <= z[j] + mast_hi[j]:
                    cx, cy, rr = x[j], y[j], mast_r[j]
                else:
                    continue
            dx = cx - x[i]
            dy = cy - y[i]
            u = c * dx + s * dy
            v = -s * dx + c * dy
            if is_box:
                cb = math.cos(yaw[j] - yaw[i])
                sb = math.sin(yaw[j] - yaw[i])
                hx = half_x[j]
                hy = half_y[j]
                _scan_box(u, v, hx, hy, cb, sb, ray_cos, ray_sin, angle_rad, a0, uniform_step,
                          ring_m, best)
                continue
            dist = math.sqrt(u * u + v * v)
            k0, count = 0, n_rays  # every ray, unless only a cone of them can meet it
            if uniform_step > 0.0 and dist > rr:
                phi = math.atan2(v, u)
                half = math.asin(min(1.0, rr / dist))
                k0, count = _cone_rays(phi - half, phi + half, a0, uniform_step, n_rays)
            for q in range(count):
                k = (k0 + q) % n_rays
                t = disk_along_ray(u, v, rr, ray_cos[k], ray_sin[k], ring_m)
                if t < best[k]:
                    best[k] = t
        for m in range(nb):
            j = box_idx[m]
            if zr < 0.0 or zr > boxes[j, 5]:
                continue
            dx = boxes[j, 0] - x[i]
            dy = boxes[j, 1] - y[i]
            bu = c * dx + s * dy
            bv = -s * dx + c * dy
            cb = boxes[j, 6] * c + boxes[j, 7] * s   # the box's yaw relative to the robot
            sb = boxes[j, 7] * c - boxes[j, 6] * s
            _scan_box(bu, bv, boxes[j, 2], boxes[j, 3], cb, sb, ray_cos, ray_sin, angle_rad, a0,
                      uniform_step, ring_m, best)
        row = i - start
        for k in range(n_rays):
            out[row, k] = best[k] if best[k] <= range_m else np.inf


@njit(cache=True, error_model="numpy", inline="always")
def _scan_box(bu, bv, hx, hy, cb, sb, ray_cos, ray_sin, angle_rad, a0, step, ring, best):
    """Intersect the rays inside a box's cone with it (box centre (bu, bv), half sizes, yaw
    (cb, sb), all in the robot frame)."""
    n_rays = angle_rad.shape[0]
    # is the scan centre inside the box (or on it)? then every ray starts inside or hits it
    lx = cb * (-bu) + sb * (-bv)
    ly = -sb * (-bu) + cb * (-bv)
    inside = abs(lx) <= hx and abs(ly) <= hy
    k0, count = 0, n_rays  # every ray, unless only a cone of them can meet the box
    if step > 0.0 and not inside:
        phi = math.atan2(bv, bu)
        lo = 0.0
        hi = 0.0
        for q in range(4):
            ex = hx if q == 0 or q == 3 else -hx
            ey = hy if q < 2 else -hy
            d = _wrap(math.atan2(bv + sb * ex + cb * ey, bu + cb * ex - sb * ey) - phi)
            if q == 0 or d < lo:
                lo = d
            if q == 0 or d > hi:
                hi = d
        k0, count = _cone_rays(phi + lo, phi + hi, a0, step, n_rays)
    for q in range(count):
        k = (k0 + q) % n_rays
        t = box_along_ray(bu, bv, hx, hy, cb, sb, ray_cos[k], ray_sin[k], ring)
        if t < best[k]:
            best[k] = t


# Robot types whose bodies carry a mast scans can see: type name → (radius, bottom, top) m
# above the body base. A type module adds itself with :func:`register_mast`.
MASTS: dict[str, tuple[float, float, float]] = {}


def register_mast(type_name: str, radius_m: float, bottom_m: float, top_m: float) -> None:
    MASTS[type_name] = (float(radius_m), float(bottom_m), float(top_m))


def masts(world) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per robot of the world: mast radius (0 = none), bottom and top above the body base."""
    n = world.bodies.n
    r = np.zeros(n)
    lo = np.zeros(n)
    hi = np.zeros(n)
    for g in world.groups:
        mast = MASTS.get(g.robot_type)
        if mast is not None:
            r[g.slice], lo[g.slice], hi[g.slice] = mast
    return r, lo, hi


def scan(world, group, angles: np.ndarray, uniform_step: float, ring_m: float,
         elevation_m: float, range_m: float, mast, out: np.ndarray) -> None:
    """Run :func:`scan_kernel` for ``group`` (``mast`` = the arrays of :func:`masts`)."""
    b = world.bodies
    scan_kernel(group.start, group.stop, world.bodies_args, world.scene_args,
                (b.shape, b.half_x, b.half_y), mast,
                (angles, float(uniform_step), float(ring_m), float(elevation_m), float(range_m)),
                out)


def scan_state(angles, n: int) -> dict:
    """A scanning device's state for ``n`` robots: its rays' ``angles``, the hit distances
    ``dist`` and the robots' ``masts`` (found at the first scan)."""
    angles = np.asarray(angles, dtype=np.float64)
    return {"dist": np.zeros((n, angles.shape[0])), "masts": None, "angles": angles}


def scan_into(world, group, state: dict, uniform_step: float, ring_m: float,
              elevation_m: float, range_m: float) -> np.ndarray:
    """:func:`scan` of ``group`` into ``state["dist"]`` (:func:`scan_state`), returned."""
    if state["masts"] is None:
        state["masts"] = masts(world)
    scan(world, group, state["angles"], uniform_step, ring_m, elevation_m, range_m,
         state["masts"], state["dist"])
    return state["dist"]
