"""Locator odometry (Mercator report §4.2.7, Eq. 12): position since boot, north-aligned.

``(X, Y) = (X_c, Y_c) − (X_o, Y_o)``: the axes are the world's (shared "north", like the IMU),
the origin the robot's position at its first reading of the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.sensors.device import BodyReading


@dataclass(frozen=True)
class Locator(BodyReading):
    """float64[2]: (X, Y) m from the boot position, along the world axes."""

    name: str = "locator"
    width = 2

    def read(self, world, group, state, out):
        b, sl = world.bodies, group.slice
        here = np.stack([b.x[sl], b.y[sl]], axis=-1)
        out[...] = here - state.setdefault("origin", here.copy())
