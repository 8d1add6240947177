import math

import numpy as np
import pytest
from scenes import build_world, read, set_leds

from swarmstack.robots import epuck2
from swarmstack.sensors import light
from swarmstack.world.arena import Arena


def _eq2(distances, intensities, axis=None):
    """Eq. 2 with the E-Puck2's constants (noise-free reference)."""
    return light.reading(distances, intensities, gamma=epuck2.LIGHT_GAMMA,
                         range_m=epuck2.LIGHT_RANGE_M, full_scale=epuck2.FULL_SCALE_12BIT,
                         axis=axis)

BIG = (-3.0, -3.0, 3.0, 3.0)
R = epuck2.IR_RING_RADIUS_M
H = epuck2.IR_ELEVATION_M


def sensor_world(k, dist, intensity=1.0, z=None, boxes=None, extra=()):
    """One robot turned so that sensor k looks along +x; a light ``dist`` ahead of sensor k."""
    yaw = -epuck2.IR_ANGLES_RAD[k]
    z = H if z is None else z
    lights = np.array([[R + dist, 0.0, z, intensity]])
    arena = Arena(BIG, lights=lights, light_rgb=np.array([[255, 255, 0]], dtype=np.uint8),
                  boxes=np.zeros((0, 6)) if boxes is None else np.asarray(boxes, dtype=float))
    return build_world(arena, [[(0.0, 0.0, yaw), *extra]])


def sensor_positions(world, i=0):
    b = world.bodies
    a = b.yaw[i] + np.asarray(epuck2.IR_ANGLES_RAD)
    return np.stack([b.x[i] + R * np.cos(a), b.y[i] + R * np.sin(a), np.full(8, H)], axis=1)


def expected_all(world, sources, intensities):
    """Eq. 2 per sensor for unoccluded point sources (N, 3)."""
    s = sensor_positions(world)
    d = np.linalg.norm(s[:, None, :] - np.asarray(sources)[None], axis=2)
    return _eq2(d, intensities, axis=-1)


@pytest.mark.parametrize("d,expected", [(0.075, 0), (0.1, 1792), (0.2, 3519), (0.5, 4003)])
def test_reference_matches_spec_vectors(d, expected):
    assert _eq2(d, 1.0) == expected


def test_reference_out_of_range_and_sum():
    assert _eq2(0.51, 1.0) == 4095
    assert _eq2([0.2, 0.2], [1.0, 1.0], axis=0) == round(4095 * (1 - 2 * 0.140625))
    assert _eq2([0.1, 0.6], [1.0, 5.0], axis=0) == 1792
    assert _eq2([0.1, 0.2], 1.0).tolist() == [1792, 3519]


@pytest.mark.parametrize("k", [0, 3, 6])
@pytest.mark.parametrize("d,expected", [(0.075, 0), (0.1, 1792), (0.2, 3519), (0.5, 4003),
                                        (0.52, 4095)])
def test_simulated_matches_spec_vectors(k, d, expected):
    world, keys = sensor_world(k, d)
    assert read(epuck2.light_device(), world, keys)[0, k] == expected


@pytest.mark.parametrize("intensity", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("d", [0.05, 0.12, 0.3, 0.45])
def test_all_sensors_follow_eq2(intensity, d):
    world, keys = sensor_world(0, d, intensity)
    src = world.arena.lights[:, :3]
    assert np.array_equal(read(epuck2.light_device(), world, keys)[0], expected_all(world, src, intensity))


def test_saturation_distance_is_gamma_times_intensity():
    for i in (0.5, 1.0, 2.0):
        dsat = epuck2.LIGHT_GAMMA * i
        assert _eq2(dsat * 0.999, i) == 0
        assert _eq2(dsat * 1.05, i) > 0


def test_wall_occludes():
    wall = [[R + 0.1, 0.0, 0.005, 0.3, 0.0, 0.1]]  # 10 cm high wall halfway
    world, keys = sensor_world(0, 0.2, boxes=wall)
    assert np.all(read(epuck2.light_device(), world, keys)[0] == 4095)


def test_light_above_low_wall_stays_visible():
    wall = [[R + 0.1, 0.0, 0.005, 0.3, 0.0, 0.02]]  # 2 cm high: sight lines pass above it
    world, keys = sensor_world(0, 0.2, z=0.15, boxes=wall)
    out = read(epuck2.light_device(), world, keys)[0]
    assert np.array_equal(out, expected_all(world, world.arena.lights[:, :3], 1.0))
    assert out[0] < 4095


def test_robot_between_occludes():
    world, keys = sensor_world(0, 0.3, extra=[(R + 0.15, 0.0, 0.0)])
    world.bodies.yaw[0] = 0.0  # sensors 0 and 7 look towards the blocking robot
    world.refresh_grid()
    out = read(epuck2.light_device(), world, keys)[0]
    assert out[0] == 4095 and out[7] == 4095


def test_leds_of_other_robots_are_sources_but_not_own():
    world, keys = build_world(Arena(BIG), [[(0.0, 0.0, 0.0), (0.15, 0.0, math.pi)]])
    assert np.all(read(epuck2.light_device(), world, keys) == 4095)  # all LEDs off
    set_leds(world, 0, {k: (255, 0, 0) for k in range(8)})
    assert np.all(read(epuck2.light_device(), world, keys)[0] == 4095)  # own LEDs: never seen
    set_leds(world, 1, {0: (255, 0, 0)})  # LED 1 of robot 1 faces robot 0
    out = read(epuck2.light_device(), world, keys)[0]
    src = world.emitters.world[1, 0:1]
    assert np.array_equal(out, expected_all(world, src, epuck2.LED_LIGHT_INTENSITY))
    assert out[0] < 4095


def test_runs_never_interfere():
    # run 1: a robot between run 0's sensor and light, and a robot with bright LEDs
    world, keys = build_world(Arena(BIG, lights=np.array([[0.3, 0.0, H, 1.0]]),
                                    light_rgb=np.array([[255, 255, 255]], dtype=np.uint8)),
                              [[(0.0, 0.0, 0.0)], [(0.15, 0.0, 0.0), (0.0, 0.1, 0.0)]])
    world.emitters.intensity[:] = 5.0
    set_leds(world, 1, {k: (255, 0, 0) for k in range(8)})
    set_leds(world, 2, {k: (255, 0, 0) for k in range(8)})
    out = read(epuck2.light_device(), world, keys)
    assert np.array_equal(out[0], expected_all(world, world.arena.lights[:, :3], 1.0))


def test_noise_bounded_and_reproducible():
    world, keys = sensor_world(0, 0.2)
    exact = read(epuck2.light_device(), world, keys)
    dev = epuck2.light_device(noise="uniform", noise_level=0.02)
    a = read(dev, world, keys)
    b = read(dev, world, keys)
    assert np.array_equal(a, b)
    assert np.all(np.abs(a.astype(int) - exact) <= 0.02 * 4095 + 1)
    assert not np.array_equal(a, exact)
