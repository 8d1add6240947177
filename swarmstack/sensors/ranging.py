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

import numpy as np
from numba import njit

from swarmstack.geometry.grid import cell_xy
from swarmstack.geometry.nearby import boxes_near_listed, cylinders_near_listed, robots_near
from swarmstack.geometry.rays import NO_HIT, first_hit, hit_candidates


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


def cast(world, group, layout: RayLayout, out: np.ndarray) -> None:
    """Hit distances (m) of ``layout``'s rays for every robot of ``group`` into ``out``."""
    b = world.bodies
    cast_rays(group.start, group.stop, b.x, b.y, b.z, b.yaw, b.run, b.radius, b.height,
              world.arena.boxes, world.arena.cylinders, world.grid, world.cell_start,
              world.order, world.static, world.max_radius, layout.angle_rad, layout.ring_m,
              layout.elevation_m, layout.range_m, out)


@njit(cache=True, error_model="numpy")
def cast_rays(start, stop, x, y, z, yaw, run, radius, height, boxes, cylinders,
              gparams, cell_start, order, static, max_radius,
              angle_rad, ring_m, elevation_m, range_m, out):
    """Fill ``out`` float64[stop − start, K] with hit distances in metres (``range_m`` if none).

    Short devices (all rays end within about two grid cells of the body) gather nearby
    candidates once per robot; long ones (ToF, lidar) walk the grid per ray.
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
    for i in range(start, stop):
        nb = nc = nr = 0
        if short:
            gx, gy = cell_xy(gparams, x[i], y[i])
            cell = gy * nx + gx
            if bs[cell + 1] > bs[cell]:  # most cells are far from every wall and obstacle
                nb = boxes_near_listed(x[i], y[i], reach, boxes, bi[bs[cell]:bs[cell + 1]],
                                       box_idx)
            if cs[cell + 1] > cs[cell]:
                nc = cylinders_near_listed(x[i], y[i], reach, cylinders,
                                           ci[cs[cell]:cs[cell + 1]], cyl_idx)
            nr = robots_near(x[i], y[i], reach, run[i], i, x, y, radius, max_radius, gparams,
                             cell_start, order, rob_idx)
        if short and nb + nc + nr == 0:
            for k in range(n_rays):  # nothing within reach: every ray sees its full range
                out[i - start, k] = range_m
            continue
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for k in range(n_rays):
            ca = c * ray_cos[k] - s * ray_sin[k]  # heading of the ray in the world
            sa = s * ray_cos[k] + c * ray_sin[k]
            x0 = x[i] + ring_m[k] * ca
            y0 = y[i] + ring_m[k] * sa
            z0 = z[i] + elevation_m[k]
            x1 = x0 + range_m * ca
            y1 = y0 + range_m * sa
            if short:
                t = hit_candidates(x0, y0, z0, x1, y1, z0, box_idx, nb, cyl_idx, nc, rob_idx,
                                   nr, boxes, cylinders, x, y, z, radius, height)
            else:
                t = first_hit(x0, y0, z0, x1, y1, z0, run[i], i, -1, boxes, cylinders,
                              x, y, z, radius, height, gparams, cell_start, order, max_radius)
            out[i - start, k] = range_m if t >= NO_HIT else t * range_m
