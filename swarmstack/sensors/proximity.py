"""Infrared proximity sensors: ray distance → the device's 0–4095 reading.

Transfer function (E-Puck2 paper, Eq. 1): ``v = a d² + b d + c`` for ``d < range``, else 0,
clamped to [0, 1]; noise is added to ``v``; the reading is ``round(4095 v)`` clamped to
0–4095 (0 = nothing in range, 4095 = touching).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from swarmstack.sensors import ranging
from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.sim import threads


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, dist, out):
    """Distances, then readings, of robots ``lo … hi − 1`` (rows ``i − start``); ``params`` =
    (ray table, range, a, b, c, full scale, noise kind, noise level), ``dist`` the scratch
    for the distances."""
    rays, range_m, a, b, c, full_scale, kind, level = params
    ranging.cast_rows(lo, hi, start, bodies, scene, rays, range_m, dist)
    for row in range(lo - start, hi - start):
        for k in range(dist.shape[1]):
            d = dist[row, k]
            v = 0.0
            if d < range_m:
                v = min(1.0, max(0.0, a * d * d + b * d + c))
            if kind != NOISE_NONE:  # a draw of the "none" model adds 0.0: skip its hashing
                v += draw(kind, level, keys[row], tick, k)
            out[row, k] = min(full_scale, max(0, int(round(full_scale * v))))


parallel_rows = threads.chunked(rows)


def reading(d_m, a: float, b: float, c: float, range_m: float, full_scale: int = 4095):
    """Noise-free reading for distances ``d_m`` (NumPy; used by validations and tests)."""
    d = np.asarray(d_m, dtype=np.float64)
    v = np.where(d < range_m, np.clip(a * d * d + b * d + c, 0.0, 1.0), 0.0)
    return np.clip(np.round(full_scale * v), 0, full_scale).astype(np.int64)


@dataclass(frozen=True)
class Proximity(DeviceBase):
    layout: ranging.RayLayout
    a: float
    b: float
    c: float
    full_scale: int = 4095
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "proximity"

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, self.layout.count), dtype=np.int32)

    def make_state(self, n: int):
        return np.zeros((n, self.layout.count))  # scratch for distances

    def plan(self, world, group, keys, out, state):
        params = (self.layout.table, float(self.layout.range_m), float(self.a), float(self.b),
                  float(self.c), int(self.full_scale), NOISE_KINDS[self.noise],
                  float(self.noise_level))
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys, state, out,
                                 chunk_items=ranging.CHUNK)
