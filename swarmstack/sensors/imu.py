"""IMU orientation (Mercator report §4.2.5): absolute roll, pitch, yaw.

The real IMU fuses a magnetometer, so every robot shares one reference; in simulation that is
the world frame (its +x is the shared "virtual north").
"""

from __future__ import annotations

from dataclasses import dataclass

from swarmstack.sensors.device import BodyReading


@dataclass(frozen=True)
class Imu(BodyReading):
    """float64[3]: roll, pitch, yaw (rad) in the world frame."""

    name: str = "imu"

    def read(self, world, group, state, out):
        out[...] = world.bodies.pose[3:6, group.slice].T
