import math

import numpy as np

from swarmstack.actuators.leds import apply_led_commands, update_emitters
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
