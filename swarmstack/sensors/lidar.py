"""Rotating 2-D lidar (the RVR's YDLIDAR X4, Mercator report §4.2.10).

A fan of ``count`` rays evenly spread over the full circle, the first at ``first_angle_rad``
(CCW from the heading), leaving a ring of ``ring_m`` at ``elevation_m`` above the body base.
A ray that meets something at ``d ∈ [min_m, max_m]`` reads ``d + U(−η, η)`` clamped to
``[0, max_m]``; closer than ``min_m`` it reads 0.0 (the device's invalid code); nothing within
``max_m`` reads ``no_hit_m`` (12.0 by default, the real device's "no return" as the report's
authors deduced it; the reference plug-in used 0.0). The report's width of the uniform noise
is left to the user (Fig. 9); η = 0 by default.

The rays are cast by :mod:`swarmstack.sensors.scan`, one Numba kernel over every robot of the
group and every ray; the noise draws come from each robot's own stream.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.sensors.scan import masts, scan
from swarmstack.world.rng import symmetric

# robots per work item of the parallel transfer, and the group size from which it pays
CHUNK = 64
PARALLEL_MIN = 1024


@njit(cache=True, error_model="numpy")
def lidar_transfer(dist, min_m, max_m, no_hit_m, eta, keys, tick, out):
    _transfer_rows(0, dist.shape[0], dist, min_m, max_m, no_hit_m, eta, keys, tick, out)


@njit(cache=True, error_model="numpy", parallel=True)
def lidar_transfer_parallel(dist, min_m, max_m, no_hit_m, eta, keys, tick, out, chunk):
    """``lidar_transfer`` over chunks of ``chunk`` robots on the thread pool."""
    n = dist.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        _transfer_rows(c * chunk, min(n, (c + 1) * chunk), dist, min_m, max_m, no_hit_m, eta,
                       keys, tick, out)


@njit(cache=True, error_model="numpy", inline="always")
def _transfer_rows(start, stop, dist, min_m, max_m, no_hit_m, eta, keys, tick, out):
    """Robots ``start … stop − 1``: distances → readings, each robot its own row."""
    for i in range(start, stop):
        key = keys[i]
        for k in range(dist.shape[1]):
            d = dist[i, k]
            if d > max_m:
                out[i, k] = no_hit_m
            elif d < min_m:
                out[i, k] = 0.0
            else:
                if eta > 0.0:
                    d += eta * symmetric(key, tick, k)
                out[i, k] = min(max_m, max(0.0, d))


@dataclass(frozen=True)
class Lidar:
    count: int
    first_angle_rad: float
    ring_m: float
    elevation_m: float
    min_m: float
    max_m: float
    no_hit_m: float
    noise_width_m: float = 0.0    # η: noise U(−η, η)
    stream: int = 0               # index of the robot stream the noise draws from
    name: str = "lidar"
    scalar: bool = False

    @property
    def angles(self) -> np.ndarray:
        step = 2.0 * math.pi / self.count
        return self.first_angle_rad + step * np.arange(self.count)

    def allocate(self, n: int) -> np.ndarray:
        return np.full((n, self.count), float(self.no_hit_m))

    def make_state(self, n: int) -> dict:
        return {"dist": np.zeros((n, self.count)), "masts": None, "angles": self.angles}

    def distances(self, world, group, state, max_m: float | None = None) -> np.ndarray:
        """Noise-free distances (m, +inf beyond ``max_m``, default the device's range)."""
        if state["masts"] is None:
            state["masts"] = masts(world)
        scan(world, group, state["angles"], 2.0 * math.pi / self.count, self.ring_m,
             self.elevation_m, self.max_m if max_m is None else max_m, state["masts"],
             state["dist"])
        return state["dist"]

    def update(self, world, group, keys, out, state) -> None:
        kernel = threads.pick(len(out), lidar_transfer, lidar_transfer_parallel, PARALLEL_MIN,
                              CHUNK)
        kernel(self.distances(world, group, state), self.min_m, self.max_m, self.no_hit_m,
               self.noise_width_m, keys[:, self.stream], world.tick, out)
