"""Differential-drive wheels: commanded speeds → the speeds the motors actually apply."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.sensors.noise import NOISE_KINDS, draw

# robots per work item of the parallel form; a robot costs a few nanoseconds, so only large
# groups are worth the pool's launch
CHUNK = 8192
PARALLEL_MIN = 131072


@njit(cache=True, error_model="numpy")
def _apply(cmd, max_speed, kind, level, keys, tick, out, clamped):
    _apply_rows(0, cmd.shape[0], cmd, max_speed, kind, level, keys, tick, out, clamped)


@njit(cache=True, error_model="numpy", parallel=True)
def _apply_parallel(cmd, max_speed, kind, level, keys, tick, out, clamped, chunk):
    n = cmd.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        _apply_rows(c * chunk, min(n, (c + 1) * chunk), cmd, max_speed, kind, level, keys, tick,
                    out, clamped)


@njit(cache=True, error_model="numpy", inline="always")
def _apply_rows(start, stop, cmd, max_speed, kind, level, keys, tick, out, clamped):
    """Robots ``start … stop − 1``: each writes only its own row (both forms share this)."""
    for i in range(start, stop):
        over = False
        for w in range(2):
            v = cmd[i, w]
            if v != v:  # NaN from a controller: treat as stop rather than poison the state
                v = 0.0
            if abs(v) > max_speed:
                over = True
            v = min(max_speed, max(-max_speed, v))
            if v != 0.0:
                v *= 1.0 + draw(kind, level, keys[i], tick, w)  # relative speed error
            out[i, w] = v
        if over:
            clamped[i] += 1


@dataclass(frozen=True)
class Wheels:
    """Clamp the ``wheels`` command (m/s, left/right) to ±``max_speed_m_s``, with optional
    relative speed noise (0 by default), into the drive state's ``wheel_speed``; ticks with a
    clamped command are counted in ``wheels_clamped`` when the drive state has it."""

    max_speed_m_s: float
    noise: str = "none"
    noise_level: float = 0.0

    def plan(self, world, group, keys, commands, drive):
        """The tick's call for this group: the serial kernel, or the parallel one for a group
        large enough (``threads.go_parallel``), bound to its arrays and ``keys`` (the robots'
        ``wheels`` stream)."""
        cmd, out = commands["wheels"], drive["wheel_speed"]
        clamped = drive.get("wheels_clamped")
        if clamped is None:   # a drive state without the counter: count into a scratch array
            clamped = np.zeros(len(cmd), dtype=np.int64)
        kernel = (partial(_apply_parallel, chunk=threads.chunk(CHUNK))
                  if threads.go_parallel(len(cmd), PARALLEL_MIN) else _apply)
        args = (cmd, self.max_speed_m_s, NOISE_KINDS[self.noise], self.noise_level, keys)
        if self.noise == "none":  # the tick only keys the noise: none, no Python frame a tick
            return partial(kernel, *args, 0, out, clamped)
        return lambda: kernel(*args, world.tick, out, clamped)
