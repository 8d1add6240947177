import numpy as np
from scenes import build_world

from swarmstack.robots import epuck2
from swarmstack.world.arena import Arena


def setup(n=1):
    world, keys = build_world(Arena((-1, -1, 1, 1)), [[(0.0, 0.1 * k, 0.0) for k in range(n)]])
    dev = epuck2.encoders_device()
    g = world.group("epuck2")
    return world, keys, dev, g, dev.allocate(g.n), dev.make_state(g.n)


def tick(world, keys, dev, g, out, state, speeds):
    world.drive[0]["wheel_speed"][:] = speeds
    dev.plan(world, g, keys.of(dev.stream), out, state)()
    world.tick += 1


def test_one_second_at_10_cm_s_is_776_steps():
    world, keys, dev, g, out, state = setup()
    for _ in range(10):
        tick(world, keys, dev, g, out, state, (0.1, 0.1))
    assert out[0].tolist() == [776, 776]
    assert abs(state[0, 0] - epuck2.ENCODER_STEPS_PER_M * 0.1) < 1e-9


def test_steps_per_metre():
    assert abs(epuck2.ENCODER_STEPS_PER_M - 7763.66) < 0.01


def test_two_half_steps_make_one_step():
    world, keys, dev, g, out, state = setup()
    v = 0.5 / (epuck2.ENCODER_STEPS_PER_M * world.dt)  # 0.18° of wheel rotation per tick
    tick(world, keys, dev, g, out, state, (v, -v))
    assert out[0].tolist() == [0, -1]  # floor: half a step backwards is below zero
    tick(world, keys, dev, g, out, state, (v, -v))
    assert out[0].tolist() == [1, -1]


def test_wrap_both_directions():
    world, keys, dev, g, out, state = setup()
    state[0] = (32767.5, -32767.8)
    one = 1.0 / (epuck2.ENCODER_STEPS_PER_M * world.dt)
    tick(world, keys, dev, g, out, state, (one, -one))
    assert out[0].tolist() == [-32768, 32767]
    assert abs(state[0, 0] - (-32767.5)) < 1e-6 and abs(state[0, 1] - 32767.2) < 1e-6


def test_long_drive_wraps_like_a_16_bit_register():
    world, keys, dev, g, out, state = setup()
    total = 0.0
    for _ in range(300):
        tick(world, keys, dev, g, out, state, (0.15, -0.15))
        total += epuck2.ENCODER_STEPS_PER_M * 0.15 * world.dt
    expect = ((int(np.floor(total)) + 32768) % 65536) - 32768
    assert out[0, 0] == expect
    assert out[0, 1] == ((int(np.floor(-total)) + 32768) % 65536) - 32768


def test_independent_robots_and_reset():
    world, keys, dev, g, out, state = setup(3)
    tick(world, keys, dev, g, out, state, np.array([[0.1, 0.0], [0.0, 0.05], [-0.1, 0.1]]))
    assert out.tolist() == [[77, 0], [0, 38], [-78, 77]]
    type(dev).reset(state, out, 1)
    assert out[1].tolist() == [0, 0] and out[0, 0] == 77


def test_noise_bounded_and_reproducible():
    world, keys, dev, g, out, state = setup()
    noisy = epuck2.encoders_device(noise="uniform", noise_level=1e-4)
    s1, s2 = noisy.make_state(1), noisy.make_state(1)
    o1, o2 = noisy.allocate(1), noisy.allocate(1)
    world.drive[0]["wheel_speed"][:] = 0.0
    noisy.plan(world, g, keys.of(noisy.stream), o1, s1)()
    noisy.plan(world, g, keys.of(noisy.stream), o2, s2)()
    assert np.array_equal(s1, s2)
    assert np.all(np.abs(s1) <= 1e-4 * 32767) and np.any(s1 != 0)
