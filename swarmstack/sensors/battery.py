"""Battery level as a sensor: charge 0–1, discharged from the motion of the last tick.

The discharge models live in ``swarmstack.power``; this device only measures what they need —
how far each body moved and how much it turned during the last physics step — and keeps the
charge in its readings array. Tick 0 leaves the charge untouched (the plug-in's first-tick rule).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack import power, threads


@dataclass(frozen=True)
class Battery:
    model: power.BatteryModel
    name: str = "battery"
    scalar: bool = True

    def allocate(self, n: int) -> np.ndarray:
        return power.initial_charge(n, self.model)

    def make_state(self, n: int):
        return None

    def update(self, world, group, keys, out, state) -> None:
        b = world.bodies
        sl = group.slice
        distance = np.hypot(b.x[sl] - b.prev_x[sl], b.y[sl] - b.prev_y[sl])
        turn = b.yaw[sl] - b.prev_yaw[sl]
        rotation = np.abs(np.arctan2(np.sin(turn), np.cos(turn)))
        power.discharge_at_tick(world.tick, out, distance, rotation, world.dt, self.model, out=out,
                                pick=threads.pick)
