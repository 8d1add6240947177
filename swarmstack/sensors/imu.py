"""IMU orientation (Mercator report §4.2.5): absolute roll, pitch, yaw.

The real IMU fuses a magnetometer, so every robot shares one reference; in simulation that is
the world frame (its +x is the shared "virtual north").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Imu:
    """float64[3]: roll, pitch, yaw (rad) in the world frame."""

    name: str = "imu"
    stream: str = "imu"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 3))

    def make_state(self, n: int):
        return None

    def plan(self, world, group, keys, out, state):
        def sense():
            b = world.bodies
            sl = group.slice
            out[:, 0] = b.roll[sl]
            out[:, 1] = b.pitch[sl]
            out[:, 2] = b.yaw[sl]
        return sense
