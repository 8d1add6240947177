"""Differential-drive integration equals the closed-form arc for any wheel speeds."""

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from swarmstack.physics.diffdrive import integrate_range

speeds = st.floats(-0.2, 0.2, allow_nan=False, allow_subnormal=False)  # 5e-324 m/s moves nothing


@settings(deadline=None)
@given(vl=speeds, vr=speeds, yaw=st.floats(-math.pi, math.pi), dt=st.floats(0.001, 0.5))
def test_matches_the_exact_arc(vl, vr, yaw, dt):
    axle = 0.053
    x, y, th = np.array([0.3]), np.array([-0.2]), np.array([yaw])
    moved = integrate_range(0, 1, x, y, th, np.array([[vl, vr]]), axle, dt, False)
    assert moved == (vl + vr != 0.0)
    v, w = 0.5 * (vl + vr), (vr - vl) / axle
    if abs(w) > 1e-6:
        ex = 0.3 + v / w * (math.sin(yaw + w * dt) - math.sin(yaw))
        ey = -0.2 - v / w * (math.cos(yaw + w * dt) - math.cos(yaw))
    else:
        ex = 0.3 + v * dt * math.cos(yaw)
        ey = -0.2 + v * dt * math.sin(yaw)
    assert abs(x[0] - ex) < 1e-9 and abs(y[0] - ey) < 1e-9
    dth = math.atan2(math.sin(th[0] - yaw - w * dt), math.cos(th[0] - yaw - w * dt))
    assert abs(dth) < 1e-9 and -math.pi < th[0] <= math.pi


def test_turning_on_the_spot_does_not_move():
    x, y, th = np.array([0.1]), np.array([0.2]), np.array([3.0])
    wheels = np.array([[-0.05, 0.05]])
    assert not integrate_range(0, 1, x, y, th, wheels, 0.053, 0.1, False)
    assert x[0] == 0.1 and y[0] == 0.2 and th[0] < 0  # wrapped past π
    # a box turning on the spot sweeps its corners: contacts must look at it
    assert integrate_range(0, 1, x, y, th, wheels, 0.053, 0.1, True)
