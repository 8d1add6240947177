"""Accelerometer of a differential-drive robot (Mercator report §4.2.3, Eqs. 6–9), in g.

Each reading computes the boot-frame velocity vector ``v_t`` as the velocity sensor does
(Eqs. 6–8) and returns ``a = (v_t − v_{t−1}) / (G Δt)`` with ``G = 9.81 m/s²`` and ``Δt`` the
tick (Eq. 9), then remembers ``v_t``. The report's equations are planar: the z axis reads 0
(gravity is not added).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.sensors.velocity import boot_frame_velocity

G_M_S2 = 9.81   # the report's G (Eq. 9)


@dataclass(frozen=True)
class Accelerometer:
    """float64[3]: acceleration (g) along the boot-time x, y axes and z (0)."""

    g_m_s2: float = G_M_S2
    name: str = "accelerometer"
    stream: str = "accelerometer"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 3))

    def make_state(self, n: int) -> dict:
        return {"boot": None, "previous": None}

    def plan(self, world, group, keys, out, state):
        def sense():
            v = boot_frame_velocity(world, group, state)
            prev = state["previous"]
            if prev is None:   # the first reading: no earlier velocity, no acceleration
                prev = v
            out[:, :2] = (v - prev) / (self.g_m_s2 * world.dt)
            out[:, 2] = 0.0
            state["previous"] = v
        return sense
