"""Velocity sensor of a differential-drive robot (Mercator report §4.2.2, Eqs. 3–5).

``v = (v_l + v_r)/2`` from the tread speeds the drive applies (Eq. 3); ``α`` is the yaw of the
orientation relative to boot (Eq. 4); the reading is ``(v cos α, v sin α)`` m/s along the axes
the robot had when it booted (Eq. 5). Like the reference plug-in it reports what the treads
drive, so a robot pushing against a wall still reads its tread speed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.sensors import quaternion
from swarmstack.sensors.device import BodyReading


def boot_frame_velocity(world, group, state: dict) -> np.ndarray:
    """float64[n, 2] Eqs. 3–5 for the robots of ``group``."""
    w = world.drive[group.index]["wheel_speed"]
    v = 0.5 * (w[:, 0] + w[:, 1])
    alpha = quaternion.to_euler(quaternion.boot_relative(world.bodies, group.slice, state))[:, 2]
    return np.stack([v * np.cos(alpha), v * np.sin(alpha)], axis=-1)


@dataclass(frozen=True)
class Velocity(BodyReading):
    """float64[2]: velocity (m/s) along the boot-time x and y axes."""

    name: str = "velocity"
    width = 2

    def read(self, world, group, state, out):
        out[...] = boot_frame_velocity(world, group, state)
