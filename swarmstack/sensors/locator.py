"""Locator odometry (Mercator report §4.2.7, Eq. 12): position since boot, north-aligned.

``(X, Y) = (X_c, Y_c) − (X_o, Y_o)``: the axes are the world's (shared "north", like the IMU),
the origin the robot's position at its first reading of the run.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Locator:
    """float64[2]: (X, Y) m from the boot position, along the world axes."""

    name: str = "locator"
    stream: str = "locator"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 2))

    def make_state(self, n: int) -> dict:
        return {"origin": None}

    def plan(self, world, group, keys, out, state):
        def sense():
            b = world.bodies
            sl = group.slice
            here = np.stack([b.x[sl], b.y[sl]], axis=-1)
            if state["origin"] is None:
                state["origin"] = here.copy()
            out[...] = here - state["origin"]
        return sense
