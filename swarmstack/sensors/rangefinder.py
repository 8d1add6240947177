"""Time-of-flight rangefinders reporting metres (the RVR's TeraRanger Multiflex ring, Mercator
report §4.2.9).

Each ray returns the distance to the first obstacle when it lies in ``[min_m, max_m]``, ``−inf``
when it is closer than ``min_m`` and ``+inf`` when nothing is within ``max_m`` (the report's
convention; the reference plug-in returns 0.0 for "no hit", which is ambiguous with contact).
Finite readings get Gaussian noise ``N(mean, std)`` from the robot's proximity stream (the
report shows a narrow normal distribution, Fig. 8, without its σ).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numba import njit

from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.scan import scan_into, scan_state
from swarmstack.sim import threads
from swarmstack.world.rng import gaussian

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 4096
PARALLEL_MIN = 32768


@njit(cache=True, error_model="numpy")
def transfer_rows(lo, hi, start, bodies, scene, params, keys, tick, dist, out):
    """Rows ``lo − start … hi − start − 1``: distances ``dist`` → readings; ``params`` =
    (min, max, noise mean, noise std)."""
    min_m, max_m, mean, std = params
    for i in range(lo - start, hi - start):
        for k in range(dist.shape[1]):
            d = dist[i, k]
            if d > max_m:
                out[i, k] = np.inf
            elif d < min_m:
                out[i, k] = -np.inf
            else:
                if std > 0.0 or mean != 0.0:
                    d += mean + std * gaussian(keys[i], tick, k)
                out[i, k] = d


parallel_transfer = threads.chunked(transfer_rows)


@dataclass(frozen=True)
class Rangefinders(DeviceBase):
    """Rays at ``angles_rad`` (CCW from the heading) leaving a ring of ``ring_m`` at
    ``elevation_m`` above the body base; float64[K] metres, ±inf outside the range."""

    angles_rad: tuple
    ring_m: float
    elevation_m: float
    min_m: float
    max_m: float
    noise_mean: float = 0.0
    noise_std: float = 0.0
    name: str = "proximity"

    def allocate(self, n: int) -> np.ndarray:
        return np.full((n, len(self.angles_rad)), np.inf)

    def make_state(self, n: int) -> dict:
        return scan_state(self.angles_rad, n)

    def distances(self, world, group, state) -> np.ndarray:
        """Noise-free hit distances (m, +inf when nothing within ``max_m``)."""
        return scan_into(world, group, state, 0.0, self.ring_m, self.elevation_m, self.max_m)

    def plan(self, world, group, keys, out, state):
        transfer = threads.rows_plan(transfer_rows, parallel_transfer, world, group,
                                     (self.min_m, self.max_m, self.noise_mean, self.noise_std),
                                     keys, state["dist"], out, min_items=PARALLEL_MIN,
                                     chunk_items=CHUNK)

        def sense():
            self.distances(world, group, state)
            transfer()
        return sense
