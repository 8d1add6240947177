"""Placement checks the bodies' true shapes — the RVR as its rotated box, discs as circles —
against walls, obstacles and the robots placed before, and starts a drone given a height in
the air, hovering there."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack import Controller
from swarmstack.experiments.config import ConfigError
from swarmstack.sim.simulation import Simulation
from swarmstack.robots import rvr

ARENA_M = 2.0
WALL_M = 0.02
INNER_M = ARENA_M / 2 - WALL_M      # the walls' inner faces are at ±0.98 m
HALF_M = rvr.BOX_LENGTH_M / 2       # the RVR is a 0.286 m square box


def experiment(*robots, boxes=()) -> dict:
    return {"simulation": {"ticks_per_second": 10, "seed": 1},
            "arena": {"size": [ARENA_M, ARENA_M], "walls": {"thickness": WALL_M}},
            "boxes": list(boxes), "robots": list(robots)}


def group(name, rtype, poses, **extra) -> dict:
    return {"name": name, "type": rtype,
            "placement": {"kind": "explicit", "poses": [list(p) for p in poses]}, **extra}


def rvrs(*poses, **extra) -> dict:
    return group("rvr", "rvr", poses, **extra)


def started(data) -> Simulation:
    sim = Simulation.from_dict(data)
    sim.start()
    return sim


def refused(data) -> str:
    with pytest.raises(ConfigError) as exc:
        Simulation.from_dict(data)
    return str(exc.value)


def test_an_rvr_17_cm_from_a_wall_is_placed_and_its_proximity_reads_too_close():
    # its box is 2.7 cm clear of the wall; its bounding circle (20 cm) would not be
    sim = started(experiment(rvrs((INNER_M - 0.17, 0.0, 0.0),
                                  sensors={"proximity": {"noise_std": 0.0}})))
    assert sim.world.bodies.x[0] == pytest.approx(INNER_M - 0.17)
    prox = sim.groups[0].readings["proximity"][0]
    assert prox[1] == -math.inf            # the front rangefinder: the wall within 5 cm
    assert prox[5] == pytest.approx(2 * INNER_M - 0.17 - rvr.PROX_RING_M)   # behind: far


@settings(max_examples=40, deadline=None)
@given(st.floats(0.10, 0.30), st.floats(-math.pi, math.pi))
def test_an_rvr_near_a_wall_is_placed_exactly_when_its_rotated_box_is_clear(gap, yaw):
    reach = HALF_M * (abs(math.cos(yaw)) + abs(math.sin(yaw)))   # its extent along x
    if abs(reach - gap) < 1e-6:
        return
    data = experiment(rvrs((INNER_M - gap, 0.0, yaw)))
    if reach < gap:
        assert Simulation.from_dict(data).world.bodies.n == 1
    else:
        message = refused(data)
        assert "robots[0].placement: robot 0 of group 'rvr' at (" in message
        assert "overlaps the wall or box centred at (0.99, 0)" in message


def test_two_rvrs_side_by_side_fit_unless_turned_into_each_other():
    started(experiment(rvrs((0.0, 0.0, 0.0), (0.29, 0.0, 0.0))))   # 4 mm between the boxes
    message = refused(experiment(rvrs((0.0, 0.0, 0.0), (0.29, 0.0, 0.3))))
    assert ("robots[0].placement: robot 1 of group 'rvr' at (0.29, 0, yaw 0.3 rad) overlaps "
            "robot 0 of group 'rvr'") in message


def test_an_obstacle_box_and_a_disc_robot_are_checked_against_the_rvr_box():
    box = {"center": [0.5, 0.0], "size": [0.2, 0.2, 0.1]}
    # the box's face at x = 0.4; the RVR's at 0.143 from its centre
    started(experiment(rvrs((0.25, 0.0, 0.0)), boxes=[box]))
    assert "overlaps the wall or box centred at (0.5, 0)" in refused(
        experiment(rvrs((0.25, 0.0, 0.5)), boxes=[box]))
    # an E-Puck2 (radius 3.5 cm) beside the RVR's corner region, clear of its faces
    puck = group("puck", "epuck2", [(0.0, 0.185, 0.0)])
    started(experiment(rvrs((0.0, 0.0, 0.0)), puck))
    assert "overlaps robot 0 of group 'rvr'" in refused(
        experiment(rvrs((0.0, 0.0, math.pi / 4)), puck))


def test_random_placement_fits_rvrs_where_only_their_boxes_fit():
    # one RVR by the wall, one beside another: each only by its true box
    near_wall = {"name": "wall", "type": "rvr", "count": 1,
                 "placement": {"kind": "gaussian", "mean": [INNER_M - 0.16, 0.0],
                               "std": 0.001, "yaw": 0.0}}
    beside = {"name": "beside", "type": "rvr", "count": 1,
              "placement": {"kind": "gaussian", "mean": [-0.3, 0.0], "std": 0.001,
                            "yaw": 0.0}}
    sim = started(experiment(rvrs((-0.6, 0.0, 0.0)), near_wall, beside))
    b = sim.world.bodies
    assert b.x[1] == pytest.approx(INNER_M - 0.16, abs=0.01)
    assert b.x[2] == pytest.approx(-0.3, abs=0.01)


def test_a_crazyflie_placed_at_1_m_starts_there_and_hovers():
    drone = group("drone", "crazyflie", [(0.0, 0.0, 1.0, 0.3)])
    puck = group("puck", "epuck2", [(0.0, 0.0, 0.0)])    # right below: heights apart
    sim = started(experiment(drone, puck))
    b = sim.world.bodies
    assert (b.z[0], b.yaw[0]) == (1.0, 0.3)
    for _ in range(30):
        sim.step()
    assert b.z[0] == pytest.approx(1.0, abs=1e-9)            # holding, not falling
    assert (b.x[0], b.y[0]) == pytest.approx((0.0, 0.0), abs=1e-9)
    sim.reset()
    assert b.z[0] == 1.0


class GotoAtOnce(Controller):
    """Flies to (0.5, 0, 1) from the first step, without taking off."""

    def step(self, robot):
        if robot.tick == 0:
            robot.goto(0.5, 0.0, 1.0)


def test_a_drone_placed_in_the_air_obeys_goto_without_a_takeoff():
    drone = group("drone", "crazyflie", [(0.0, 0.0, 1.0, 0.0)],
                  controller={"python": "tests.core.test_placement_shapes:GotoAtOnce"})
    sim = started(experiment(drone))
    for _ in range(100):
        sim.step()
    b = sim.world.bodies
    assert (b.x[0], b.z[0]) == pytest.approx((0.5, 1.0), abs=0.01)


def test_a_drone_on_the_floor_still_starts_with_its_motors_off():
    sim = started(experiment(group("drone", "crazyflie", [(0.0, 0.0, 0.0, 0.0),
                                                           (0.3, 0.0, 0.0)])))
    for _ in range(10):
        sim.step()
    assert np.array_equal(sim.world.bodies.z, [0.0, 0.0])


@pytest.mark.parametrize("rtype", ["epuck2", "rvr"])
def test_a_ground_robot_given_a_height_is_refused_in_one_line(rtype):
    message = refused(experiment(group("g", rtype, [(0.0, 0.0, 0.5, 0.0)])))
    assert message.count("\n") == 0
    assert (f"robots[0].placement: robot 0 of group 'g' at (0, 0, z 0.5 m, yaw 0 rad): {rtype} "
            "robots cannot fly") in message


def test_a_pose_of_the_wrong_length_is_refused_in_one_line():
    message = refused(experiment(group("g", "crazyflie", [(0.0, 0.0, 0.5, 0.0, 1.0)])))
    assert message.count("\n") == 0
    assert ("robots[0].placement.poses[0]: expected [x, y, yaw] or [x, y, z, yaw]; found 5 "
            "items") in message
