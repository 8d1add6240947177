"""Battery level as a sensor: charge 0–1, discharged from the motion of the last tick.

The discharge models live in ``swarmstack.power``; this device only measures what they need —
how far each body moved and how much it turned during the last physics step — and keeps the
charge in its readings array. Tick 0 leaves the charge untouched (the plug-in's first-tick rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.power.battery import BatteryModel, discharge_at_tick, initial_charge, step_of

# robots per work item of the parallel form, and the group size from which it pays (three
# transcendental functions per robot)
CHUNK = 4096
PARALLEL_MIN = 16384


@njit(cache=True, error_model="numpy")
def motion_kernel(x, y, yaw, prev_x, prev_y, prev_yaw, start, distance, rotation):
    """How far bodies ``start …`` moved (m) and turned (rad, in [0, π]) in the last physics
    step, into ``distance`` and ``rotation`` (one row per body of the group)."""
    _motion_rows(0, distance.shape[0], x, y, yaw, prev_x, prev_y, prev_yaw, start, distance,
                 rotation)


@njit(cache=True, error_model="numpy", parallel=True)
def motion_kernel_parallel(x, y, yaw, prev_x, prev_y, prev_yaw, start, distance, rotation,
                           chunk):
    """``motion_kernel`` over chunks of ``chunk`` bodies on the thread pool."""
    n = distance.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        _motion_rows(c * chunk, min(n, (c + 1) * chunk), x, y, yaw, prev_x, prev_y, prev_yaw,
                     start, distance, rotation)


@njit(cache=True, error_model="numpy", inline="always")
def _motion_rows(lo, hi, x, y, yaw, prev_x, prev_y, prev_yaw, start, distance, rotation):
    for i in range(lo, hi):
        j = start + i
        distance[i] = math.hypot(x[j] - prev_x[j], y[j] - prev_y[j])
        turn = yaw[j] - prev_yaw[j]
        rotation[i] = abs(math.atan2(math.sin(turn), math.cos(turn)))  # the turn, wrapped


@dataclass(frozen=True)
class Battery:
    model: BatteryModel
    name: str = "battery"
    scalar: bool = True

    def allocate(self, n: int) -> np.ndarray:
        return initial_charge(n, self.model)

    def make_state(self, n: int):
        return None

    def _motion_args(self, world, group, distance, rotation) -> tuple:
        b = world.bodies
        return (b.x, b.y, b.yaw, b.prev_x, b.prev_y, b.prev_yaw, group.start, distance,
                rotation)

    def update(self, world, group, keys, out, state) -> None:
        n = len(out)
        distance, rotation = np.empty(n), np.empty(n)
        measure = threads.pick(n, motion_kernel, motion_kernel_parallel, PARALLEL_MIN, CHUNK)
        measure(*self._motion_args(world, group, distance, rotation))
        discharge_at_tick(world.tick, out, distance, rotation, world.dt, self.model, out=out,
                          pick=threads.pick)

    def bind(self, world, group, keys, out, state):
        """:meth:`update` for this group as a call without arguments, bound to the compiled
        serial kernels (motion, then its model's step); None when the group may go parallel."""
        n = len(out)
        distance, rotation = np.empty(n), np.empty(n)
        serial, _, parallel_min, args = step_of(self.model, out, distance, rotation,
                                                float(world.dt), out)
        if (not threads.stays_serial(n, min(parallel_min, PARALLEL_MIN))
                or not out.flags.c_contiguous):
            return None
        step = partial(serial, *args)
        margs = self._motion_args(world, group, distance, rotation)
        measure = partial(motion_kernel, *margs)

        def update_bound():
            if world.tick > 0:  # tick 0 leaves the charge as it is (the plug-in's rule)
                measure()
                step()

        return update_bound
