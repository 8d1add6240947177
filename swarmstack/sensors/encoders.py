"""Simulated wheel encoders (E-Puck2 stepper motors): wheel travel → signed 16-bit step counts.

The real robot counts motor steps, 1000 per wheel revolution, in two 16-bit registers (paper
§3.5). Each tick the wheel speeds applied during the last physics step (the group's drive
state ``wheel_speed``, m/s, left/right) advance a floating-point accumulator by ``steps_per_m · v · dt`` (plus
``U(−η, η) · 32767`` when noisy). The fraction is kept, so partial steps add up (two 0.18° turns
make exactly one step); the accumulator wraps like the register (≥ 32768 → −65536,
< −32768 → +65536) and the reading is ``floor(acc)`` in −32768 … 32767.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.sim import threads

REGISTER_SPAN = 65536.0
REGISTER_HALF = 32768.0
NOISE_SCALE = 32767.0
# partial steps summed in floating point may land a hair below a whole step (0.5 + 0.5 →
# 0.9999999999): such a sum counts as the whole step
_SNAP = 1e-9


# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 8192
PARALLEL_MIN = 131072


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, acc, out):
    """Advance the accumulators ``acc`` float64[n, 2] of robots ``lo … hi − 1`` (rows
    ``i − start``) and write ``out`` int[n, 2]; ``params`` = (wheel speeds float64[n, 2] m/s,
    dt, steps per m, noise kind, noise level)."""
    wheel_speed, dt, steps_per_m, kind, level = params
    for i in range(lo - start, hi - start):
        for w in range(2):
            a = acc[i, w] + steps_per_m * wheel_speed[i, w] * dt
            a += draw(kind, level, keys[i], tick, w) * NOISE_SCALE
            while a >= REGISTER_HALF:
                a -= REGISTER_SPAN
            while a < -REGISTER_HALF:
                a += REGISTER_SPAN
            acc[i, w] = a
            out[i, w] = min(32767, int(math.floor(a + _SNAP)))


parallel_rows = threads.chunked(rows)


@dataclass(frozen=True)
class Encoders(DeviceBase):
    """Left/right step counters; ``steps_per_m`` = steps per revolution / wheel circumference."""

    steps_per_m: float
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "encoders"

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 2), dtype=np.int32)

    def make_state(self, n: int):
        return np.zeros((n, 2))  # accumulated steps (with fraction), per wheel

    @staticmethod
    def reset(state: np.ndarray, out: np.ndarray, rows=slice(None)) -> None:
        """Zero the counters of ``rows`` (the controller's "reset encoders")."""
        state[rows] = 0.0
        out[rows] = 0

    def plan(self, world, group, keys, out, state):
        params = (world.drive[group.index]["wheel_speed"], world.dt, self.steps_per_m,
                  NOISE_KINDS[self.noise], self.noise_level)
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys, state, out,
                                 min_items=PARALLEL_MIN, chunk_items=CHUNK)
