import math

import numpy as np

from swarmstack.actuators.leds import apply_led_commands, bind_lit_emitters, update_emitters
from swarmstack.robots import epuck2


def test_update_emitters_rotates_and_translates():
    local, _ = epuck2.led_emitters()
    n = 2
    loc = np.repeat(local[None], n, axis=0)
    out = np.zeros_like(loc)
    x, y, z = np.array([1.0, -1.0]), np.array([0.5, 0.0]), np.array([0.0, 0.1])
    yaw = np.array([math.pi / 2, 0.0])
    update_emitters(x, y, z, yaw, loc, out)
    # robot 0 turned left by 90°: body +x maps to world +y
    assert np.allclose(out[0, 0], [1.0, 0.5 + epuck2.LED_RING_RADIUS_M,
                                   epuck2.LED_RING_ELEVATION_M])
    assert np.allclose(out[1, :, :2], local[:, :2] + [-1.0, 0.0])
    assert np.allclose(out[1, :, 2], local[:, 2] + 0.1)


def test_lit_emitters_placed_dark_ones_left():
    """The per-tick placement moves the emitters of robots with a lit slot exactly as
    ``update_emitters`` does, and leaves those of all-dark robots where they were."""
    local, _ = epuck2.led_emitters()
    rng = np.random.default_rng(3)
    n = 7
    loc = np.repeat(local[None], n, axis=0)
    x, y = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
    z, yaw = rng.uniform(0, 0.1, n), rng.uniform(-3, 3, n)
    rgb = np.zeros((n, local.shape[0], 3), dtype=np.uint8)
    rgb[1, 0, 2] = 7      # one channel of one slot is enough
    rgb[4, 16] = 255      # the last slot
    rgb[6, 9, 0] = 1
    out = np.full_like(loc, 9.0)
    place = bind_lit_emitters(x, y, z, yaw, loc, rgb, out)
    place()
    want = np.zeros_like(loc)
    update_emitters(x, y, z, yaw, loc, want)
    lit = [1, 4, 6]
    assert np.array_equal(out[lit], want[lit])
    assert np.all(np.delete(out, lit, axis=0) == 9.0)
    x[:] += 0.5      # the bound call follows the arrays it was given
    rgb[4] = 0
    place()
    update_emitters(x, y, z, yaw, loc, want)
    assert np.array_equal(out[[1, 6]], want[[1, 6]])
    assert not np.array_equal(out[4], want[4])


def test_led_layout():
    local, owner = epuck2.led_emitters()
    assert local.shape == (17, 3) and owner.tolist() == list(range(9)) + [9] * 8
    # real robot numbering: LED 3 (index 2) on the right-hand side
    assert local[2, 1] < 0


def test_channel_masks():
    _, owner = epuck2.led_emitters()
    cmd = np.zeros((2, 10, 3), dtype=np.uint8)
    cmd[1, :] = (255, 255, 0)  # yellow everywhere on robot 1
    rgb = np.zeros((3, 17, 3), dtype=np.uint8)
    apply_led_commands(cmd, owner, epuck2.led_channel_mask(), rgb, 1)
    assert np.all(rgb[0] == 0) and np.all(rgb[1] == 0)
    r2 = rgb[2]
    assert r2[0].tolist() == [255, 0, 0]      # LED 1: red only
    assert r2[1].tolist() == [255, 255, 0]    # LED 2: RGB
    assert r2[8].tolist() == [255, 0, 0]      # front LED: red only
    assert np.all(r2[9:] == [0, 255, 0])      # body LED: green, on all 8 emitters


def test_all_off_commands_blacken_only_the_block():
    """Commands all off (the common case, done without the per-channel walk) turn the block's
    slots black and leave other robots and slots past the layout as they were."""
    _, owner = epuck2.led_emitters()
    rgb = np.full((4, 18, 3), 200, dtype=np.uint8)  # one slot more than the layout has
    cmd = np.zeros((2, 10, 3), dtype=np.uint8)
    apply_led_commands(cmd, owner, epuck2.led_channel_mask(), rgb, 1)
    assert np.all(rgb[1:3, :17] == 0)
    assert np.all(rgb[[0, 3]] == 200) and np.all(rgb[:, 17] == 200)
    cmd[0, 9] = (0, 5, 0)  # one LED on again: the channel walk
    apply_led_commands(cmd, owner, epuck2.led_channel_mask(), rgb, 1)
    assert np.all(rgb[1, 9:17] == [0, 5, 0]) and np.all(rgb[1, :9] == 0)
    assert np.all(rgb[2, :17] == 0) and np.all(rgb[:, 17] == 200)


def test_bound_led_actuator_matches_the_kernel():
    """The LED actuator's bound call (a group too small to go parallel) writes the emitter
    colours :func:`apply_led_commands` writes, tick after tick, LEDs on or all off, for a group
    that does not start at robot 0; slots past the layout are left alone."""
    from types import SimpleNamespace

    from swarmstack.actuators.leds import Leds

    _, owner = epuck2.led_emitters()
    mask = epuck2.led_channel_mask()
    rng = np.random.default_rng(5)
    cmd = np.zeros((3, 10, 3), dtype=np.uint8)
    rgb = np.full((5, 18, 3), 200, dtype=np.uint8)
    want = rgb.copy()
    world = SimpleNamespace(emitters=SimpleNamespace(rgb=rgb))
    call = Leds(owner, mask).plan(world, SimpleNamespace(start=2), None, {"leds": cmd}, None)
    for on in (0.0, 0.3, 1.0, 0.0, 0.05):
        cmd[...] = rng.integers(0, 256, cmd.shape) * (rng.random(cmd.shape) < on)
        call()
        apply_led_commands(cmd, owner, mask, want, 2)
        assert np.array_equal(rgb, want)
    assert np.all(rgb[:2] == 200) and np.all(rgb[:, 17] == 200)
