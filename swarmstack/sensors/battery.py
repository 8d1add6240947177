"""Battery level as a sensor: charge 0–1, discharged from the motion of the last tick.

The discharge models live in ``swarmstack.power``; this device only measures what they need —
how far each body moved and how much it turned during the last physics step — and keeps the
charge in its readings array. Tick 0 leaves the charge untouched (the plug-in's first-tick rule).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from swarmstack.power import kernels
from swarmstack.power.battery import BatteryModel, initial_charge, step_of
from swarmstack.sensors.device import DeviceBase
from swarmstack.sim import threads

# robots per work item of the parallel form, and the group size from which it pays (three
# transcendental functions per robot)
CHUNK = 4096
PARALLEL_MIN = 16384


@njit(cache=True, error_model="numpy")
def motion_rows(lo, hi, start, bodies, scene, prev_pose, keys, tick, state, out):
    """How far bodies ``lo … hi − 1`` moved (m) and turned (rad, in [0, π]) in the last
    physics step, into rows ``i − start`` of ``out`` = (distance, rotation)."""
    pose = bodies[0]
    distance, rotation = out
    for j in range(lo, hi):
        i = j - start
        distance[i] = math.hypot(pose[0, j] - prev_pose[0, j], pose[1, j] - prev_pose[1, j])
        turn = pose[5, j] - prev_pose[5, j]
        rotation[i] = abs(math.atan2(math.sin(turn), math.cos(turn)))  # the turn, wrapped


parallel_motion = threads.chunked(motion_rows)
# the parallel forms of the discharge models' kernels
PARALLEL_STEPS = {rows: threads.chunked(rows) for rows in (
    kernels.simple_rows, kernels.cubic_rows, kernels.segment_rows)}


@dataclass(frozen=True)
class Battery(DeviceBase):
    model: BatteryModel
    name: str = "battery"
    scalar = True

    def allocate(self, n: int) -> np.ndarray:
        return initial_charge(n, self.model)

    def plan(self, world, group, keys, out, state):
        n = len(out)
        motion = (np.empty(n), np.empty(n))
        measure = threads.rows_plan(motion_rows, parallel_motion, world, group,
                                    world.bodies.prev_pose, None, None, motion,
                                    min_items=PARALLEL_MIN, chunk_items=CHUNK)
        rows, parallel_min, args = step_of(self.model, out, *motion, float(world.dt), out)
        step = threads.form(rows, PARALLEL_STEPS[rows], 0, n, *args, min_items=parallel_min,
                            chunk_items=CHUNK)

        def sense():
            if world.tick > 0:  # tick 0 leaves the charge as it is (the plug-in's rule)
                measure()
                step()
        return sense
