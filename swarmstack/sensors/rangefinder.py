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

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.sensors.scan import masts, scan
from swarmstack.world.rng import STREAM, gaussian

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 4096
PARALLEL_MIN = 32768


@njit(cache=True, error_model="numpy")
def rangefinder_transfer(dist, min_m, max_m, mean, std, keys, tick, out):
    _rangefinder_transfer_rows(0, dist.shape[0], dist, min_m, max_m, mean, std, keys, tick, out)


@njit(cache=True, error_model="numpy", parallel=True)
def rangefinder_transfer_parallel(dist, min_m, max_m, mean, std, keys, tick, out, chunk):
    """``rangefinder_transfer`` over chunks of ``chunk`` robots on the thread pool."""
    n = dist.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        _rangefinder_transfer_rows(c * chunk, min(n, (c + 1) * chunk), dist, min_m, max_m, mean,
                                   std, keys, tick, out)


@njit(cache=True, error_model="numpy", inline="always")
def _rangefinder_transfer_rows(start, stop, dist, min_m, max_m, mean, std, keys, tick, out):
    # robots start … stop − 1, each writing only its own outputs (both forms share it)
    for i in range(start, stop):
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


@dataclass(frozen=True)
class Rangefinders:
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
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.full((n, len(self.angles_rad)), np.inf)

    def make_state(self, n: int) -> dict:
        return {"dist": np.zeros((n, len(self.angles_rad))), "masts": None,
                "angles": np.asarray(self.angles_rad, dtype=np.float64)}

    def distances(self, world, group, state) -> np.ndarray:
        """Noise-free hit distances (m, +inf when nothing within ``max_m``)."""
        if state["masts"] is None:
            state["masts"] = masts(world)
        scan(world, group, state["angles"], 0.0, self.ring_m, self.elevation_m, self.max_m,
             state["masts"], state["dist"])
        return state["dist"]

    def update(self, world, group, keys, out, state) -> None:
        kernel = threads.pick(len(out), rangefinder_transfer, rangefinder_transfer_parallel,
                              PARALLEL_MIN, CHUNK)
        kernel(self.distances(world, group, state), self.min_m, self.max_m, self.noise_mean,
               self.noise_std, keys[:, STREAM["proximity"]], world.tick, out)
