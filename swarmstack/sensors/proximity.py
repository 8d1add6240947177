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
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.world.rng import STREAM


@njit(cache=True, error_model="numpy")
def transfer(dist, range_m, a, b, c, full_scale, kind, level, keys, tick, out):
    """Eq. 1 + noise + quantisation, for a block of robots (keys: their proximity streams)."""
    for i in range(dist.shape[0]):
        for k in range(dist.shape[1]):
            d = dist[i, k]
            v = 0.0
            if d < range_m:
                v = min(1.0, max(0.0, a * d * d + b * d + c))
            v += draw(kind, level, keys[i], tick, k)
            out[i, k] = min(full_scale, max(0, int(round(full_scale * v))))


def reading(d_m, a: float, b: float, c: float, range_m: float, full_scale: int = 4095):
    """Noise-free reading for distances ``d_m`` (NumPy; used by validations and tests)."""
    d = np.asarray(d_m, dtype=np.float64)
    v = np.where(d < range_m, np.clip(a * d * d + b * d + c, 0.0, 1.0), 0.0)
    return np.clip(np.round(full_scale * v), 0, full_scale).astype(np.int64)


@dataclass(frozen=True)
class Proximity:
    layout: ranging.RayLayout
    a: float
    b: float
    c: float
    full_scale: int = 4095
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "proximity"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, self.layout.count), dtype=np.int32)

    def make_state(self, n: int):
        return np.zeros((n, self.layout.count))  # scratch for distances

    def update(self, world, group, keys, out, state) -> None:
        ranging.cast(world, group, self.layout, state)
        transfer(state, self.layout.range_m, self.a, self.b, self.c, self.full_scale,
                 NOISE_KINDS[self.noise], self.noise_level, keys[:, STREAM["proximity"]],
                 world.tick, out)
