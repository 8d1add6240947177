"""ARGoS's differential-steering sensor: what the wheels did during the last tick.

Each tick the reading holds, in ARGoS's units (cm and cm/s, as its Lua and C++ APIs give
them), the left and right wheel speeds the wheel actuator applied during the last physics step
(the group's drive state ``wheel_speed``, m/s), the distance each wheel covered in that step
(speed · dt) and the distance between the wheels. Like ARGoS's simulated sensor it reports what
the motors drove, so a robot pushing against a wall still reads its wheel speeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.sensors.device import BodyReading

CM_PER_M = 100.0


@dataclass(frozen=True)
class DifferentialSteering(BodyReading):
    """float64[5]: velocity_left, velocity_right (cm/s), distance_left, distance_right (cm),
    axis_length (cm)."""

    axis_length_m: float
    name: str = "differential_steering"
    width = 5

    def read(self, world, group, state, out):
        speed = world.drive[group.index]["wheel_speed"]
        np.multiply(speed, CM_PER_M, out=out[:, 0:2])
        np.multiply(speed, CM_PER_M * world.dt, out=out[:, 2:4])
        out[:, 4] = self.axis_length_m * CM_PER_M
