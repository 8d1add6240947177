"""The RVR as a body: box, tread drive and its mapping from Table 1's wheels, LEDs others see."""

import math

import numpy as np
import pytest

from swarmstack.robots import get
from swarmstack.robots import rvr
from tests.rvr.scenes import commands, rvr_sim


def test_registered_as_a_box_with_the_plugin_collision_square():
    t = get("rvr")
    assert t.body.shape == "box"
    assert (2 * t.body.half_x, 2 * t.body.half_y, t.body.height_m) == (0.286, 0.286, 0.114)
    assert t.emitters.n_leds == 5


def test_straight_drive_moves_at_the_tread_speed():
    sim = rvr_sim([(0.0, 0.0, 0.0)], {})
    commands(sim)["wheels"][:] = (0.2, 0.2)
    sim.run(10)
    b = sim.world.bodies
    assert b.x[0] == pytest.approx(0.2, abs=1e-9) and b.y[0] == pytest.approx(0.0, abs=1e-9)


def test_turning_rate_follows_the_tread_spacing():
    sim = rvr_sim([(0.0, 0.0, 0.0)], {})
    commands(sim)["wheels"][:] = (-0.0735, 0.0735)   # ω = 0.147 / 0.147 = 1 rad/s
    sim.run(10)
    assert sim.world.bodies.yaw[0] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("value, m_s", [(155, 1.55), (10, 0.10), (-50, -0.5), (400, 1.55)])
def test_reference_wheels_are_cm_per_s_capped_at_155(value, m_s):
    class R:
        commands = {"wheels": np.zeros(2)}
    rvr.set_treads(R, value, value)
    assert R.commands["wheels"][0] == pytest.approx(m_s)


def test_box_bodies_collide_square():
    # driven into a wall 0.3 m ahead of its front face, the RVR stops with its flat front (not
    # its bounding circle) against the wall
    sim = rvr_sim([(0.0, 0.0, 0.0)], {}, boxes=[{"center": [0.443 + 0.05, 0.0],
                                                  "size": [0.1, 2.0, 0.3]}])
    commands(sim)["wheels"][:] = (0.5, 0.5)
    sim.run(20)
    # the box front (x + 0.143) stops at the wall face x = 0.443
    assert sim.world.bodies.x[0] + 0.143 == pytest.approx(0.443, abs=0.01)


def test_leds_are_seen_by_an_epuck2_camera():
    epuck = {"name": "cam", "placement": {"kind": "explicit", "poses": [[0.0, 0.0, 0.0]]},
             "sensors": {"camera": True}}
    sim = rvr_sim([(0.6, 0.0, math.pi)], {}, others=[epuck])
    commands(sim)["leds"][:] = (0, 0, 255)
    sim.run(1)
    cam = next(g for g in sim.groups if g.slice.name == "cam").readings["camera"][0]
    seen = cam[cam[:, 0] >= 0]
    assert len(seen) >= 1 and np.all(seen[:, 4] == 255) and np.all(seen[:, 2] == 0)


def test_set_led_addresses_the_five_leds_in_the_documented_order():
    class R:
        commands = {"leds": np.zeros((5, 3), np.uint8)}
    rvr.set_led(R, 4, 1, 2, 3)
    assert list(R.commands["leds"][4]) == [1, 2, 3] and not R.commands["leds"][:4].any()
    # LED 4 is the back one, LEDs 0 and 1 the front pair (left, right)
    pos = np.array(rvr.LED_POSITIONS_M)
    assert pos[4, 0] < 0 and pos[0, 0] > 0 and pos[1, 0] > 0 and pos[0, 1] > 0 > pos[1, 1]


def test_reset_reboots_the_odometry():
    sim = rvr_sim([(0.3, 0.2, 0.5)], {"locator": True, "quaternion": True, "velocity": True})
    commands(sim)["wheels"][:] = (0.1, 0.2)
    sim.run(20)
    readings = sim.groups[0].readings
    assert abs(readings["locator"][0]).max() > 0.05
    sim.reset()
    assert list(readings["locator"][0]) == [0.0, 0.0]
    assert list(readings["quaternion"][0]) == pytest.approx([1.0, 0.0, 0.0, 0.0])
