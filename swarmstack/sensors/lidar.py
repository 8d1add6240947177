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

from numba import njit

from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.scan import scan_into, scan_state
from swarmstack.sim import threads
from swarmstack.world.rng import symmetric

# robots per work item of the parallel transfer, and the group size from which it pays
CHUNK = 64
PARALLEL_MIN = 1024


@njit(cache=True, error_model="numpy")
def transfer_rows(lo, hi, start, bodies, scene, params, keys, tick, dist, out):
    """Rows ``lo − start … hi − start − 1``: distances ``dist`` → readings; ``params`` =
    (min, max, no-hit reading, η)."""
    min_m, max_m, no_hit_m, eta = params
    for i in range(lo - start, hi - start):
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


parallel_transfer = threads.chunked(transfer_rows)


@dataclass(frozen=True)
class Lidar(DeviceBase):
    count: int
    first_angle_rad: float
    ring_m: float
    elevation_m: float
    min_m: float
    max_m: float
    no_hit_m: float
    noise_width_m: float = 0.0    # η: noise U(−η, η)
    name: str = "lidar"

    @property
    def angles(self) -> np.ndarray:
        step = 2.0 * math.pi / self.count
        return self.first_angle_rad + step * np.arange(self.count)

    def allocate(self, n: int) -> np.ndarray:
        return np.full((n, self.count), float(self.no_hit_m))

    def make_state(self, n: int) -> dict:
        return scan_state(self.angles, n)

    def distances(self, world, group, state, max_m: float | None = None) -> np.ndarray:
        """Noise-free distances (m, +inf beyond ``max_m``, default the device's range)."""
        return scan_into(world, group, state, 2.0 * math.pi / self.count, self.ring_m,
                         self.elevation_m, self.max_m if max_m is None else max_m)

    def plan(self, world, group, keys, out, state):
        transfer = threads.rows_plan(transfer_rows, parallel_transfer, world, group,
                                     self.transfer_params, keys, state["dist"], out,
                                     min_items=PARALLEL_MIN, chunk_items=CHUNK)

        def sense():
            self.distances(world, group, state)
            transfer()
        return sense

    @property
    def transfer_params(self) -> tuple:
        """The ``params`` of :func:`transfer_rows`."""
        return self.min_m, self.max_m, self.no_hit_m, self.noise_width_m
