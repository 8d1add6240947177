"""Differential-drive wheels: commanded speeds → the speeds the motors actually apply."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from swarmstack.sim import threads
from numba import njit
from swarmstack.sensors.noise import NOISE_KINDS, draw

# robots per work item of the parallel form; a robot costs a few nanoseconds, so only large
# groups are worth the pool's launch
CHUNK = 8192
PARALLEL_MIN = 131072


@njit(cache=True, error_model="numpy")
def apply_rows(lo, hi, cmd, max_speed, kind, level, keys, tick, out, clamped):
    """Robots ``lo … hi − 1``: each writes only its own row."""
    for i in range(lo, hi):
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


parallel_apply = threads.chunked(apply_rows)


@dataclass(frozen=True)
class Wheels:
    """Clamp the ``wheels`` command (m/s, left/right) to ±``max_speed_m_s``, with optional
    relative speed noise (0 by default), into the drive state's ``wheel_speed``; ticks with a
    clamped command are counted in ``wheels_clamped`` when the drive state has it."""

    max_speed_m_s: float
    noise: str = "none"
    noise_level: float = 0.0

    def plan(self, world, group, keys, commands, drive):
        """The tick's call for this group (``threads.form``), bound to its arrays and ``keys``
        (the robots' ``wheels`` stream)."""
        cmd, out = commands["wheels"], drive["wheel_speed"]
        clamped = drive.get("wheels_clamped")
        if clamped is None:   # a drive state without the counter: count into a scratch array
            clamped = np.zeros(len(cmd), dtype=np.int64)
        kernel = threads.form(apply_rows, parallel_apply, 0, len(cmd), cmd, self.max_speed_m_s,
                              NOISE_KINDS[self.noise], self.noise_level, keys,
                              min_items=PARALLEL_MIN, chunk_items=CHUNK)
        if self.noise == "none":  # the tick only keys the noise: none, no Python frame a tick
            return partial(kernel, 0, out, clamped)
        return lambda: kernel(world.tick, out, clamped)
