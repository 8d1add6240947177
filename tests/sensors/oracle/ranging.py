"""Frozen copy of the ray-casting kernel shared by proximity and ToF
(``swarmstack/sensors/ranging.py``) and of both transfers, as they were before the sensing
kernels were rebuilt for speed: the oracle of the property tests.
"""

from __future__ import annotations

import math
import numpy as np
from numba import njit

from swarmstack.geometry.grid import cell_xy
from .nearby import boxes_near_listed, cylinders_near_listed, robots_near
from .rays import NO_HIT, box_interval, first_hit
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.world.rng import FIXED_WORDS as STREAM  # the old stream columns


def cast(world, group, layout, out: np.ndarray) -> None:
    """Hit distances (m) of ``layout``'s rays for every robot of ``group`` into ``out``."""
    b = world.bodies
    cast_rays(group.start, group.stop, b.x, b.y, b.z, b.yaw, b.run, b.radius, b.height,
              world.arena.boxes, world.arena.cylinders, world.grid, world.cell_start,
              world.order, world.static, world.max_radius, layout.angle_rad, layout.ring_m,
              layout.elevation_m, layout.range_m, out)


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


@njit(cache=True, error_model="numpy")
def cast_rays(start, stop, x, y, z, yaw, run, radius, height, boxes, cylinders,
              gparams, cell_start, order, static, max_radius,
              angle_rad, ring_m, elevation_m, range_m, out):
    """Fill ``out`` float64[stop − start, K] with hit distances in metres (``range_m`` if none).

    Short devices (every ray ends within one grid cell of the body: proximity) gather the
    nearby shapes once per robot and intersect them in the robot's own frame, where each ray is
    a fixed radial line; long ones (ToF, lidar) walk the grid per ray.
    """
    n_rays = angle_rad.shape[0]
    reach = 0.0
    for k in range(n_rays):
        reach = max(reach, ring_m[k] + range_m)
    short = reach <= gparams[2]  # then the per-cell static lists and a 3×3 block suffice
    bs, bi, cs, ci = static
    nx = int(gparams[3])
    n = x.shape[0]
    ray_cos = np.cos(angle_rad)
    ray_sin = np.sin(angle_rad)
    box_idx = np.empty(boxes.shape[0], dtype=np.int64)
    cyl_idx = np.empty(cylinders.shape[0], dtype=np.int64)
    rob_idx = np.empty(n, dtype=np.int64)
    best = np.empty(n_rays)
    for i in range(start, stop):
        row = i - start
        if not short:
            c = math.cos(yaw[i])
            s = math.sin(yaw[i])
            for k in range(n_rays):
                ca = c * ray_cos[k] - s * ray_sin[k]  # heading of the ray in the world
                sa = s * ray_cos[k] + c * ray_sin[k]
                x0 = x[i] + ring_m[k] * ca
                y0 = y[i] + ring_m[k] * sa
                z0 = z[i] + elevation_m[k]
                t = first_hit(x0, y0, z0, x0 + range_m * ca, y0 + range_m * sa, z0, run[i], i,
                              -1, boxes, cylinders, x, y, z, radius, height, gparams,
                              cell_start, order, max_radius)
                out[row, k] = range_m if t >= NO_HIT else t * range_m
            continue
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
                    zk = z[i] + elevation_m[k]
                    if zk < z_lo or zk > z_hi:
                        continue
                    t = _disk_along_ray(u, v, rr, ray_cos[k], ray_sin[k], ring_m[k])
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
                    zk = z[i] + elevation_m[k]
                    if zk < 0.0 or zk > boxes[j, 5]:
                        continue
                    t = _box_along_ray(bu, bv, boxes[j, 2], boxes[j, 3], cb, sb, ray_cos[k],
                                       ray_sin[k], ring_m[k])
                    if t < best[k]:
                        best[k] = t
        for k in range(n_rays):
            out[row, k] = min(best[k], range_m)


@njit(cache=True, error_model="numpy")
def proximity_transfer(dist, range_m, a, b, c, full_scale, kind, level, keys, tick, out):
    for i in range(dist.shape[0]):
        for k in range(dist.shape[1]):
            d = dist[i, k]
            v = 0.0
            if d < range_m:
                v = min(1.0, max(0.0, a * d * d + b * d + c))
            v += draw(kind, level, keys[i], tick, k)
            out[i, k] = min(full_scale, max(0, int(round(full_scale * v))))


@njit(cache=True, error_model="numpy")
def tof_transfer(dist, range_m, min_mm, max_mm, kind, level, keys, tick, out):
    for i in range(dist.shape[0]):
        d = dist[i, 0] + draw(kind, level, keys[i], tick, 0) * range_m
        out[i] = min(max_mm, max(min_mm, int(round(1000.0 * d))))


def proximity(dev, world, group, keys, out, dist):
    """``Proximity.update`` as it was; ``dist`` receives the ray distances (m)."""
    cast(world, group, dev.layout, dist)
    proximity_transfer(dist, dev.layout.range_m, dev.a, dev.b, dev.c, dev.full_scale,
                       NOISE_KINDS[dev.noise], dev.noise_level, keys[:, STREAM["proximity"]],
                       world.tick, out)


def tof(dev, world, group, keys, out, dist):
    """``ToF.update`` as it was."""
    cast(world, group, dev.layout, dist)
    tof_transfer(dist, dev.range_m, dev.min_mm, dev.max_mm, NOISE_KINDS[dev.noise],
                 dev.noise_level, keys[:, STREAM["tof"]], world.tick, out)
