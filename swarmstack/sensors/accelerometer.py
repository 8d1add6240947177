"""Accelerometer of a differential-drive robot (Mercator report §4.2.3, Eqs. 6–9), in g.

Each reading computes the boot-frame velocity vector ``v_t`` as the velocity sensor does
(Eqs. 6–8) and returns ``a = (v_t − v_{t−1}) / (G Δt)`` with ``G = 9.81 m/s²`` and ``Δt`` the
tick (Eq. 9), then remembers ``v_t``. The report's equations are planar: the z axis reads 0
(gravity is not added).
"""

from __future__ import annotations

from dataclasses import dataclass

from swarmstack.sensors.device import BodyReading
from swarmstack.sensors.velocity import boot_frame_velocity

G_M_S2 = 9.81   # the report's G (Eq. 9)


@dataclass(frozen=True)
class Accelerometer(BodyReading):
    """float64[3]: acceleration (g) along the boot-time x, y axes and z (0)."""

    g_m_s2: float = G_M_S2
    name: str = "accelerometer"

    def read(self, world, group, state, out):
        v = boot_frame_velocity(world, group, state)
        # the first reading: no earlier velocity, no acceleration
        out[:, :2] = (v - state.get("previous", v)) / (self.g_m_s2 * world.dt)
        out[:, 2] = 0.0
        state["previous"] = v
