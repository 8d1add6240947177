"""Gyroscope (Mercator report §4.2.4, Eqs. 10–11): angular velocity from two orientations.

``Q_t = Q_c · Q_{t−1}⁻¹`` (Eq. 10) is the rotation over the last tick; its Euler angles
``(α_x, α_y, α_z)`` divided by the tick ``Δt`` are the reading (Eq. 11, rad/s); ``Q_c`` is then
remembered as ``Q_{t−1}``.
"""

from __future__ import annotations

from dataclasses import dataclass

from swarmstack.sensors import quaternion
from swarmstack.sensors.device import BodyReading


@dataclass(frozen=True)
class Gyroscope(BodyReading):
    """float64[3]: angular velocity (rad/s) about x, y, z."""

    name: str = "gyroscope"

    def read(self, world, group, state, out):
        q = quaternion.of_bodies(world.bodies, group.slice)
        prev = state.get("previous", q)
        out[...] = quaternion.to_euler(quaternion.multiply(q, quaternion.inverse(prev))) / world.dt
        state["previous"] = q
