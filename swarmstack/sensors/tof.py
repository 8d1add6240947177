"""Time-of-flight distance sensor (E-Puck2's VL53L0X): one forward ray → millimetres.

The laser looks straight ahead from the front of the body (E-Puck2 paper §3.4). The reading is
the distance to the first thing the ray meets — walls, obstacles or robots of the same run —
``round(1000 d)`` mm clamped to 20–2000 (20 mm is the smallest value the real sensor returns);
when nothing lies within 2 m the reading is 2000. Noise (ARGoS convention) is added to the
distance before conversion: ``U(−η, η) · range`` (or ``N(0, η²) · range``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from numba import njit

from swarmstack.sensors import ranging
from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.sim import threads


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, dist, out):
    """The ray, then the reading, of robots ``lo … hi − 1`` (rows ``i − start``); ``params``
    = (ray table, range, min mm, max mm, noise kind, noise level), ``dist`` the scratch for
    the hit distances."""
    rays, range_m, min_mm, max_mm, kind, level = params
    ranging.cast_rows(lo, hi, start, bodies, scene, rays, range_m, dist)
    for row in range(lo - start, hi - start):
        d = dist[row, 0]
        if kind != NOISE_NONE:  # a draw of the "none" model adds 0.0: skip its hashing
            d = d + draw(kind, level, keys[row], tick, 0) * range_m
        out[row] = min(max_mm, max(min_mm, int(round(1000.0 * d))))


parallel_rows = threads.chunked(rows)


def reading(d_m, *, min_mm: int, max_mm: int):
    """Noise-free reading (mm) for true distances ``d_m`` (NumPy; validations and tests)."""
    d = np.asarray(d_m, dtype=np.float64)
    return np.clip(np.round(1000.0 * d), min_mm, max_mm).astype(np.int64)


@dataclass(frozen=True)
class ToF(DeviceBase):
    """``position_m`` (x, y, z) of the emitter in the body frame; the ray points along +x."""

    position_m: tuple[float, float, float]
    range_m: float
    min_mm: int
    max_mm: int
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "tof_mm"
    scalar = True

    @cached_property  # built once: it is read every tick
    def layout(self) -> ranging.RayLayout:
        # a ray from (px, py) pointing along the heading: ring radius and angle of the start
        # point only coincide with "forward" when py = 0, which holds for the E-Puck2
        px, py, pz = self.position_m
        if py != 0.0:
            raise ValueError("ToF must sit on the body's x axis (y = 0)")
        return ranging.RayLayout(np.zeros(1), np.array([float(px)]), np.array([float(pz)]),
                                 float(self.range_m))

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros(n, dtype=np.int32)

    def make_state(self, n: int):
        return np.zeros((n, 1))  # scratch for the hit distance

    def plan(self, world, group, keys, out, state):
        params = (self.layout.table, float(self.range_m), int(self.min_mm), int(self.max_mm),
                  NOISE_KINDS[self.noise], float(self.noise_level))
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys, state, out,
                                 chunk_items=ranging.CHUNK)
