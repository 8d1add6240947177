import math

import numpy as np
import pytest
from scenes import build_world, read

from swarmstack.robots import epuck2
from swarmstack.sensors import proximity, ranging
from swarmstack.sensors.proximity import Proximity
from swarmstack.world.arena import Arena

A, B, C = epuck2.PROXIMITY_EQ1
VECTORS = [(0.0, 4095), (0.01, 2976), (0.02, 1971), (0.03, 1128), (0.04, 448), (0.05, 0)]


def device(**kw):
    layout = ranging.RayLayout.ring(epuck2.IR_ANGLES_RAD, epuck2.IR_RING_RADIUS_M,
                                    epuck2.IR_ELEVATION_M, epuck2.PROXIMITY_RANGE_M)
    return Proximity(layout, A, B, C, **kw)


def wall_in_front_of_sensor(k, d):
    """World with one robot whose sensor k faces a wall d metres away along its axis."""
    yaw = -epuck2.IR_ANGLES_RAD[k]  # turn the robot so that sensor k points along +x
    face = epuck2.IR_RING_RADIUS_M + d
    arena = Arena((-1, -1, 1, 1), boxes=np.array([[face + 0.05, 0.0, 0.05, 0.5, 0.0, 0.1]]))
    return build_world(arena, [[(0.0, 0.0, yaw)]])


@pytest.mark.parametrize("d,expected", VECTORS)
def test_reference_matches_spec_vectors(d, expected):
    assert proximity.reading(d, A, B, C, epuck2.PROXIMITY_RANGE_M) == expected


@pytest.mark.parametrize("k", [0, 7, 2])
@pytest.mark.parametrize("d,expected", VECTORS)
def test_simulated_sensor_facing_wall(k, d, expected):
    world, keys = wall_in_front_of_sensor(k, d)
    out = read(device(), world, keys)
    assert out[0, k] == expected


def test_oblique_sensor_sees_longer_distance():
    # sensor 0 at 15° off the wall normal: the ray travels d / cos(15°)
    world, keys = wall_in_front_of_sensor(0, 0.02)
    world.bodies.yaw[:] = 0.0  # robot now faces the wall; sensor 0 points 15° to the right
    world.refresh_grid()
    face = epuck2.IR_RING_RADIUS_M + 0.02
    a = epuck2.IR_ANGLES_RAD[0]
    x0 = epuck2.IR_RING_RADIUS_M * math.cos(a)
    d = (face - x0) / math.cos(a)
    out = read(device(), world, keys)
    assert out[0, 0] == proximity.reading(d, A, B, C, epuck2.PROXIMITY_RANGE_M)


def test_noise_uniform_bounded_and_reproducible():
    world, keys = wall_in_front_of_sensor(0, 0.03)
    exact = read(device(), world, keys)
    noisy = read(device(noise="uniform", noise_level=0.05), world, keys)
    again = read(device(noise="uniform", noise_level=0.05), world, keys)
    assert np.array_equal(noisy, again)
    assert np.all(np.abs(noisy.astype(int) - exact) <= 0.05 * 4095 + 1)
    assert not np.array_equal(noisy, exact)
