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
from functools import partial

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.world.rng import STREAM

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
def encoder_kernel(wheel_speed, dt, steps_per_m, kind, level, keys, tick, acc, out):
    """Advance accumulators ``acc`` float64[n, 2] from ``wheel_speed`` float64[n, 2] (m/s) and
    write ``out`` int[n, 2]."""
    _encoder_rows(0, wheel_speed.shape[0], wheel_speed, dt, steps_per_m, kind, level, keys,
                  tick, acc, out)


@njit(cache=True, error_model="numpy", parallel=True)
def encoder_kernel_parallel(wheel_speed, dt, steps_per_m, kind, level, keys, tick, acc, out,
                            chunk):
    """``encoder_kernel`` over chunks of ``chunk`` robots on the thread pool."""
    n = wheel_speed.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        _encoder_rows(c * chunk, min(n, (c + 1) * chunk), wheel_speed, dt, steps_per_m, kind,
                      level, keys, tick, acc, out)


@njit(cache=True, error_model="numpy", inline="always")
def _encoder_rows(start, stop, wheel_speed, dt, steps_per_m, kind, level, keys, tick, acc, out):
    for i in range(start, stop):
        for w in range(2):
            a = acc[i, w] + steps_per_m * wheel_speed[i, w] * dt
            a += draw(kind, level, keys[i], tick, w) * NOISE_SCALE
            while a >= REGISTER_HALF:
                a -= REGISTER_SPAN
            while a < -REGISTER_HALF:
                a += REGISTER_SPAN
            acc[i, w] = a
            out[i, w] = min(32767, int(math.floor(a + _SNAP)))


@dataclass(frozen=True)
class Encoders:
    """Left/right step counters; ``steps_per_m`` = steps per revolution / wheel circumference."""

    steps_per_m: float
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "encoders"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 2), dtype=np.int32)

    def make_state(self, n: int):
        return np.zeros((n, 2))  # accumulated steps (with fraction), per wheel

    @staticmethod
    def reset(state: np.ndarray, out: np.ndarray, rows=slice(None)) -> None:
        """Zero the counters of ``rows`` (the controller's "reset encoders")."""
        state[rows] = 0.0
        out[rows] = 0

    def update(self, world, group, keys, out, state) -> None:
        n = len(out)
        kernel = (encoder_kernel if n < threads.floor  # a small group: one comparison
                  else threads.pick(n, encoder_kernel, encoder_kernel_parallel, PARALLEL_MIN,
                                    CHUNK))
        kernel(world.drive[group.index]["wheel_speed"], world.dt, self.steps_per_m,
               NOISE_KINDS[self.noise], self.noise_level, keys[:, STREAM["encoders"]],
               world.tick, state, out)

    def bind(self, world, group, keys, out, state):
        """:meth:`update` for this group as a call without arguments, bound to the compiled
        serial kernel; None when the group may go parallel (then :meth:`update` chooses)."""
        if not threads.stays_serial(len(out), PARALLEL_MIN):
            return None
        speed, dt, per_m = world.drive[group.index]["wheel_speed"], world.dt, self.steps_per_m
        kind, level, key = NOISE_KINDS[self.noise], self.noise_level, keys[:, STREAM["encoders"]]
        kernel = encoder_kernel
        if kind == NOISE_NONE:  # the tick only keys the noise: none, no Python frame a tick
            return partial(kernel, speed, dt, per_m, kind, level, key, 0, state, out)

        def update_bound():
            kernel(speed, dt, per_m, kind, level, key, world.tick, state, out)

        return update_bound
