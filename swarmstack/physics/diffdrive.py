"""Differential-drive kinematics: wheel speeds → body motion, integrated exactly over a tick."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def integrate_range(start, stop, x, y, yaw, wheel_speed, axle_m, dt, turning_moves):
    """Move bodies ``start … stop − 1`` along the arcs their wheel speeds describe during
    ``dt`` seconds; ``wheel_speed`` float64[stop − start, 2] (left, right) m/s, one axle.

    Writes ``x``, ``y``, ``yaw`` in place; yaw is wrapped to (−π, π]. Arcs are integrated in
    closed form, so the result does not depend on the tick length beyond the commands being
    constant. Returns True when a body translated (or turned, if ``turning_moves``).
    """
    moved = False
    for i in range(start, stop):
        v_left = wheel_speed[i - start, 0]
        v_right = wheel_speed[i - start, 1]
        v = 0.5 * (v_left + v_right)
        w = (v_right - v_left) / axle_m
        th = yaw[i]
        half = 0.5 * w * dt
        # chord of the arc: length v dt · sin(half)/half, along the mid-arc heading
        # (one form for arcs and straight lines, without the cancellation of r·(sin θ2 − sin θ))
        if v != 0.0:  # turning on the spot moves nothing: skip the trigonometry
            chord = v * dt
            if abs(half) > 1e-9:
                chord *= math.sin(half) / half
            mid = th + half
            x[i] += chord * math.cos(mid)
            y[i] += chord * math.sin(mid)
            moved = True
        elif turning_moves and half != 0.0:  # a box's corners sweep as it turns
            moved = True
        th += 2.0 * half
        # wrap to (−π, π] without trigonometry (|w dt| is far below 2π)
        if th > math.pi:
            th -= 2.0 * math.pi
        elif th <= -math.pi:
            th += 2.0 * math.pi
        yaw[i] = th
    return moved


@dataclass(frozen=True)
class DiffDrive:
    """Two wheels ``axle_m`` apart driven at the speeds the wheel actuator applied.

    Drive state: ``wheel_speed`` float64[n, 2] (left, right) m/s, written by the actuator each
    tick and read by encoders. ``turning_moves``: a turn on the spot sweeps a box body's corners
    (so contacts must be checked) but not a disc's.
    """

    axle_m: float
    turning_moves: bool = False

    def make_state(self, n: int) -> dict[str, np.ndarray]:
        return {"wheel_speed": np.zeros((n, 2))}

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool:
        return integrate_range(start, stop, bodies.x, bodies.y, bodies.yaw, state["wheel_speed"],
                               self.axle_m, dt, self.turning_moves)
