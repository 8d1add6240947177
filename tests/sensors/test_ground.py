import math

import numpy as np
from scenes import build_world, read

from swarmstack.sensors import ground
from swarmstack.robots import epuck2
from swarmstack.world.arena import Arena
from swarmstack.world.floor import Floor

BOUNDS = (-0.5, -0.5, 0.5, 0.5)
WHITE, BLACK = (255, 255, 255), (0, 0, 0)


def floor_world(regions, poses, background=WHITE, resolution=0.001):
    fl = Floor.painted(BOUNDS, background, regions, resolution)
    return build_world(Arena(BOUNDS, floor=fl), [poses])


def test_reference_scale():
    assert ground.reading(WHITE, full_scale=epuck2.GROUND_FULL_SCALE) == 1023 and ground.reading(BLACK, full_scale=epuck2.GROUND_FULL_SCALE) == 0
    assert ground.reading((128, 128, 128), full_scale=epuck2.GROUND_FULL_SCALE) == round(128 * 1023 / 255)
    assert ground.reading((255, 0, 0), full_scale=epuck2.GROUND_FULL_SCALE) == round(0.299 * 255 * 1023 / 255)


def test_uniform_grey_floor():
    world, keys = build_world(Arena(BOUNDS, floor=Floor.uniform_grey(0.5)), [[(0.0, 0.0, 0.0)]])
    v = ground.reading((128, 128, 128), full_scale=epuck2.GROUND_FULL_SCALE)
    assert read(epuck2.ground_device(), world, keys)[0].tolist() == [v, v, v]


def test_painted_rect_stripe_and_rotation():
    stripe = [{"rect": (0.02, -0.2, 0.04, 0.2), "rgb": BLACK}]
    poses = [(0.0, 0.0, 0.0),               # sensors at x = 0.03: on the stripe
             (0.0, 0.0, math.pi),           # sensors at x = −0.03: white
             (0.0, 0.3, math.pi / 2),       # sensors across x ≈ 0: white (y 0.33 off stripe)
             (0.03, -0.03, math.pi / 2),    # row along x on the stripe
             (0.048, -0.03, math.pi / 2)]   # rotated: only the left-hand sensor (k=2) on black
    world, keys = floor_world(stripe, poses)
    out = read(epuck2.ground_device(), world, keys)
    assert out.tolist() == [[0, 0, 0], [1023] * 3, [1023] * 3, [0, 0, 0], [1023, 1023, 0]]


def test_painted_circle_and_colour():
    regions = [{"circle": (0.2, 0.0, 0.05), "rgb": (0, 0, 255)}]
    world, keys = floor_world(regions, [(0.2 - 0.03, 0.0, 0.0), (0.2 - 0.03 - 0.06, 0.0, 0.0)])
    out = read(epuck2.ground_device(), world, keys)
    blue = int(ground.reading((0, 0, 255), full_scale=epuck2.GROUND_FULL_SCALE))
    assert out.tolist() == [[blue] * 3, [1023] * 3]


def test_noise_bounded_and_reproducible():
    world, keys = build_world(Arena(BOUNDS, floor=Floor.uniform_grey(0.5)), [[(0.0, 0.0, 0.0)]])
    exact = read(epuck2.ground_device(), world, keys)
    dev = epuck2.ground_device(noise="uniform", noise_level=0.05)
    a, b = read(dev, world, keys), read(dev, world, keys)
    assert np.array_equal(a, b)
    assert np.all(np.abs(a.astype(int) - exact) <= 0.05 * 1023 + 1) and np.any(a != exact)
