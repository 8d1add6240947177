"""Differential-drive kinematics: wheel speeds → body motion, integrated exactly over a tick."""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, error_model="numpy")
def integrate(x, y, yaw, v_left, v_right, axle_m, dt):
    """Move every robot along the arc its wheel speeds (m/s) describe during ``dt`` seconds.

    Writes ``x``, ``y``, ``yaw`` in place; yaw is wrapped to (−π, π]. Arcs are integrated in closed
    form, so the result does not depend on the tick length beyond the commands being constant.
    """
    for i in range(x.shape[0]):
        v = 0.5 * (v_left[i] + v_right[i])
        w = (v_right[i] - v_left[i]) / axle_m[i]
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
        th += 2.0 * half
        # wrap to (−π, π] without trigonometry (|w dt| is far below 2π)
        if th > math.pi:
            th -= 2.0 * math.pi
        elif th <= -math.pi:
            th += 2.0 * math.pi
        yaw[i] = th
