import math

import numpy as np
import pytest
from scenes import build_world, read

from swarmstack.robots import epuck2
from swarmstack.sensors import tof
from swarmstack.world.arena import Arena

TX = epuck2.TOF_POSITION_M[0]
BIG = (-5.0, -5.0, 5.0, 5.0)


def expected_mm(d):
    return int(tof.reading(d, min_mm=epuck2.TOF_MIN_MM, max_mm=epuck2.TOF_MAX_MM))


@pytest.mark.parametrize("yaw_deg", [0.0, 20.0, -35.0, 60.0])
@pytest.mark.parametrize("wall_x", [0.3, 1.0])
def test_wall_at_angles(yaw_deg, wall_x):
    arena = Arena(BIG, boxes=np.array([[wall_x + 0.05, 0.0, 0.05, 4.0, 0.0, 0.1]]))
    yaw = math.radians(yaw_deg)
    world, keys = build_world(arena, [[(0.0, 0.0, yaw)]])
    d = (wall_x - TX * math.cos(yaw)) / math.cos(yaw)
    out = read(epuck2.tof_device(), world, keys)
    assert out[0] == expected_mm(d)


def test_rotated_box():
    # a 45°-rotated square whose corner points at the robot
    arena = Arena(BIG, boxes=np.array([[0.5, 0.0, 0.1, 0.1, math.pi / 4, 0.1]]))
    world, keys = build_world(arena, [[(0.0, 0.0, 0.0)]])
    d = 0.5 - 0.1 * math.sqrt(2) - TX
    assert read(epuck2.tof_device(), world, keys)[0] == expected_mm(d)


@pytest.mark.parametrize("yaw_deg", [0.0, 90.0, -135.0])
def test_cylinder(yaw_deg):
    yaw = math.radians(yaw_deg)
    r, dist = 0.05, 0.4
    arena = Arena(BIG, cylinders=np.array([[dist * math.cos(yaw), dist * math.sin(yaw), r, 0.1]]))
    world, keys = build_world(arena, [[(0.0, 0.0, yaw)]])
    assert read(epuck2.tof_device(), world, keys)[0] == expected_mm(dist - r - TX)


def test_low_obstacle_under_the_beam_is_not_seen():
    arena = Arena(BIG, cylinders=np.array([[0.4, 0.0, 0.05, 0.02]]))  # 2 cm high, beam at 3.6 cm
    world, keys = build_world(arena, [[(0.0, 0.0, 0.0)]])
    assert read(epuck2.tof_device(), world, keys)[0] == 2000


@pytest.mark.parametrize("gap", [0.1, 0.25, 0.7])
def test_robot_ahead(gap):
    world, keys = build_world(Arena(BIG), [[(0.0, 0.0, 0.0), (gap, 0.0, 1.0)]])
    out = read(epuck2.tof_device(), world, keys)
    assert out[0] == expected_mm(gap - epuck2.RADIUS_M - TX)


def test_nothing_in_range_and_minimum():
    world, keys = build_world(Arena(BIG), [[(0.0, 0.0, 0.0), (0.0705, 0.0, 0.0)]])
    out = read(epuck2.tof_device(), world, keys)
    assert out[0] == 20  # 3.5 mm from the other robot: clamped to the 20 mm minimum
    assert out[1] == 2000


def test_runs_never_interfere():
    # run 1 has a robot right in front of run 0's robot: run 0 must not see it
    world, keys = build_world(Arena(BIG), [[(0.0, 0.0, 0.0)], [(0.3, 0.0, 0.0), (0.0, 0.0, 0.0)]])
    out = read(epuck2.tof_device(), world, keys)
    assert out[0] == 2000
    assert out[2] == expected_mm(0.3 - epuck2.RADIUS_M - TX)


def test_noise_bounded_and_reproducible():
    arena = Arena(BIG, boxes=np.array([[0.55, 0.0, 0.05, 4.0, 0.0, 0.1]]))
    world, keys = build_world(arena, [[(0.0, 0.0, 0.0)] * 1, ])
    exact = read(epuck2.tof_device(), world, keys)
    dev = epuck2.tof_device(noise="uniform", noise_level=0.01)
    vals = []
    for t in range(50):
        world.tick = t
        vals.append(int(read(dev, world, keys)[0]))
    assert max(abs(v - int(exact[0])) for v in vals) <= 0.01 * 2000 + 1
    assert len(set(vals)) > 5
    world.tick = 3
    assert read(dev, world, keys)[0] == vals[3]
