"""Gyroscope (Mercator report §4.2.4, Eqs. 10–11): angular velocity from two orientations.

``Q_t = Q_c · Q_{t−1}⁻¹`` (Eq. 10) is the rotation over the last tick; its Euler angles
``(α_x, α_y, α_z)`` divided by the tick ``Δt`` are the reading (Eq. 11, rad/s); ``Q_c`` is then
remembered as ``Q_{t−1}``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.sensors import quaternion


@dataclass(frozen=True)
class Gyroscope:
    """float64[3]: angular velocity (rad/s) about x, y, z."""

    name: str = "gyroscope"
    stream: str = "gyroscope"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 3))

    def make_state(self, n: int) -> dict:
        return {"previous": None}

    def plan(self, world, group, keys, out, state):
        def sense():
            q = quaternion.of_bodies(world.bodies, group.slice)
            prev = state["previous"]
            if prev is None:
                prev = q
            delta = quaternion.multiply(q, quaternion.inverse(prev))
            out[...] = quaternion.to_euler(delta) / world.dt
            state["previous"] = q
        return sense
