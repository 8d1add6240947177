"""LED actuators: logical LED commands → coloured emitter slots, body frame → world frame.

A robot's logical LEDs (what a controller addresses) and its emitters (what other robots'
cameras and light sensors see) are not one-to-one: the E-Puck2's green body LED glows all
around the body and is realised as several emitters switched together, and its red-only LEDs
cannot show other colours. ``apply_led_commands`` does that mapping for a block of robots;
``update_emitters`` places every emitter in the world after physics has moved the bodies.
"""

from __future__ import annotations

import math

from numba import njit, prange

from swarmstack import threads

# robots per work item of the parallel forms, and the counts from which they pay: placing a
# robot's emitters costs tens of nanoseconds, copying its LED commands a few
CHUNK = 1024
PARALLEL_MIN_EMITTERS = 8192
PARALLEL_MIN_COMMANDS = 131072


def update_emitters(x, y, z, yaw, local, world_out) -> None:
    """World positions of every emitter slot: ``world_out[i, e] = pose_i · local[i, e]``.

    ``x, y, z, yaw`` float64[N] (z = body base height); ``local``/``world_out`` float64[N, E, 3].
    On the thread pool for large worlds (``threads.go_parallel``); each robot writes only its
    own slots, so the result is the same.
    """
    n = x.shape[0]
    if n < threads.floor:  # a small world: one comparison
        update_emitters_serial(x, y, z, yaw, local, world_out)
    else:
        threads.pick(n, update_emitters_serial, update_emitters_parallel, PARALLEL_MIN_EMITTERS,
                     CHUNK)(x, y, z, yaw, local, world_out)


@njit(cache=True, error_model="numpy")
def update_emitters_serial(x, y, z, yaw, local, world_out):
    _emitter_rows(0, x.shape[0], x, y, z, yaw, local, world_out)


@njit(cache=True, error_model="numpy", parallel=True)
def update_emitters_parallel(x, y, z, yaw, local, world_out, chunk):
    n = x.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        _emitter_rows(c * chunk, min(n, (c + 1) * chunk), x, y, z, yaw, local, world_out)


@njit(cache=True, error_model="numpy", inline="always")
def _emitter_rows(start, stop, x, y, z, yaw, local, world_out):
    for i in range(start, stop):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for e in range(local.shape[1]):
            lx = local[i, e, 0]
            ly = local[i, e, 1]
            world_out[i, e, 0] = x[i] + c * lx - s * ly
            world_out[i, e, 1] = y[i] + s * lx + c * ly
            world_out[i, e, 2] = z[i] + local[i, e, 2]


@njit(cache=True, error_model="numpy")
def apply_led_commands(led_rgb_cmd, owner, channel_mask, rgb_out, start):
    """Copy commanded colours onto emitter slots, keeping only the channels each LED can show.

    ``led_rgb_cmd`` uint8[n, L, 3] commands of robots ``start … start + n − 1``; ``owner``
    int[E] the logical LED of each emitter slot (slots ≥ E are left alone); ``channel_mask``
    uint8[L, 3] 1 where the LED has that colour channel (a red-only LED told to show yellow
    shows red; told to show blue it stays dark); ``rgb_out`` uint8[N, E', 3] the emitters'
    colours, written in place.
    """
    _led_rows(0, led_rgb_cmd.shape[0], led_rgb_cmd, owner, channel_mask, rgb_out, start)


@njit(cache=True, error_model="numpy", parallel=True)
def apply_led_commands_parallel(led_rgb_cmd, owner, channel_mask, rgb_out, start, chunk):
    """``apply_led_commands`` over chunks of ``chunk`` robots on the thread pool."""
    n = led_rgb_cmd.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        _led_rows(c * chunk, min(n, (c + 1) * chunk), led_rgb_cmd, owner, channel_mask, rgb_out,
                  start)


@njit(cache=True, error_model="numpy", inline="always")
def _led_rows(lo, hi, led_rgb_cmd, owner, channel_mask, rgb_out, start):
    for i in range(lo, hi):
        for e in range(owner.shape[0]):
            led = owner[e]
            for ch in range(3):
                if channel_mask[led, ch] != 0:
                    rgb_out[start + i, e, ch] = led_rgb_cmd[i, led, ch]
                else:
                    rgb_out[start + i, e, ch] = 0


class Leds:
    """The ``leds`` command (uint8[n, L, 3]) → the group's emitter colours, per the type's
    :class:`~swarmstack.robots.base.EmitterLayout` (owner of each emitter, channels per LED)."""

    def __init__(self, owner, channels):
        self.owner = owner
        self.channels = channels

    def apply(self, world, group, keys, commands, drive) -> None:
        cmd = commands["leds"]
        n = len(cmd)
        kernel = (apply_led_commands if n < threads.floor
                  else threads.pick(n, apply_led_commands, apply_led_commands_parallel,
                                    PARALLEL_MIN_COMMANDS, CHUNK))
        kernel(cmd, self.owner, self.channels, world.emitters.rgb, group.start)
