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
        if abs(w) < 1e-12:
            x[i] += v * dt * math.cos(th)
            y[i] += v * dt * math.sin(th)
        else:
            r = v / w
            th2 = th + w * dt
            x[i] += r * (math.sin(th2) - math.sin(th))
            y[i] -= r * (math.cos(th2) - math.cos(th))
            th = th2
        # wrap to (−π, π] without trigonometry (|w dt| is far below 2π)
        if th > math.pi:
            th -= 2.0 * math.pi
        elif th <= -math.pi:
            th += 2.0 * math.pi
        yaw[i] = th
