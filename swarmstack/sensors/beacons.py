"""Omnidirectional camera that sees beacon lights on top of other robots (simulation only).

The Mercator report (§4.4) locates neighbours in simulation with an omnidirectional camera
that detects an invisible beacon LED on top of every other robot. Here: every robot of the same
run that carries a beacon (``beacon_z`` > 0, its height above the body base) within
``range_m`` of the camera and in line of sight (no wall, box or cylinder on the straight
segment camera → beacon) is seen at its centre distance (m) and bearing (rad, CCW from the
heading, in [0, 2π)). Detections are sorted by distance; at most ``max_count`` are kept.
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.geometry.nearby import robots_near
from swarmstack.geometry.rays import NO_HIT, hit_static
from numba import njit

TWO_PI = 2.0 * math.pi


@njit(cache=True, error_model="numpy")
def beacon_kernel(start, stop, bodies, scene, beacon_z, camera_z, range_m, count, dist, angle):
    """``count[i]`` int, ``dist``/``angle`` float64[stop − start, M] (unused slots: distance
    +inf, angle 0); ``bodies``, ``scene``: ``World.bodies_args``, ``World.scene_args``."""
    pose, run, radius, height = bodies
    boxes, cylinders, gparams, cell_start, order, _, _, _, _, max_radius = scene
    x, y, z, yaw = pose[0], pose[1], pose[2], pose[5]
    n = x.shape[0]
    m_max = dist.shape[1]
    rob_idx = np.empty(n, dtype=np.int64)
    d_tmp = np.empty(n)
    a_tmp = np.empty(n)
    for i in range(start, stop):
        row = i - start
        # every robot whose centre is within range (robots_near widens by the body radius)
        nr = robots_near(x[i], y[i], range_m, run[i], i, x, y, radius, max_radius, gparams,
                         cell_start, order, rob_idx)
        m = 0
        zc = z[i] + camera_z
        for q in range(nr):
            j = rob_idx[q]
            if beacon_z[j] <= 0.0:
                continue
            dx = x[j] - x[i]
            dy = y[j] - y[i]
            d = math.sqrt(dx * dx + dy * dy)
            if d > range_m:
                continue
            if hit_static(x[i], y[i], zc, x[j], y[j], z[j] + beacon_z[j], boxes,
                          cylinders) < NO_HIT:
                continue
            a = math.atan2(dy, dx) - yaw[i]
            a -= TWO_PI * math.floor(a / TWO_PI)
            d_tmp[m] = d
            a_tmp[m] = a
            m += 1
        order_m = np.argsort(d_tmp[:m])
        k = min(m, m_max)
        count[row] = k
        for q in range(m_max):
            if q < k:
                dist[row, q] = d_tmp[order_m[q]]
                angle[row, q] = a_tmp[order_m[q]]
            else:
                dist[row, q] = np.inf
                angle[row, q] = 0.0


def beacons(world, group, beacon_z: np.ndarray, camera_z: float, range_m: float, count, dist,
            angle) -> None:
    beacon_kernel(group.start, group.stop, world.bodies_args, world.scene_args, beacon_z,
                  camera_z, range_m, count, dist, angle)
