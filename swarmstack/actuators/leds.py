"""LED actuators: logical LED commands → coloured emitter slots, body frame → world frame.

A robot's logical LEDs (what a controller addresses) and its emitters (what other robots'
cameras and light sensors see) are not one-to-one: the E-Puck2's green body LED glows all
around the body and is realised as several emitters switched together, and its red-only LEDs
cannot show other colours. ``apply_led_commands`` does that mapping for a block of robots;
``update_emitters`` places every emitter in the world after physics has moved the bodies, and
``bind_lit_emitters`` only those of robots with a lit LED (what a simulation does each tick).
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange

# robots per work item of the parallel forms, and the counts from which they pay: placing a
# robot's emitters costs tens of nanoseconds, copying its LED commands a few
CHUNK = 1024
PARALLEL_MIN_EMITTERS = 8192
PARALLEL_MIN_COMMANDS = 131072


def update_emitters(x, y, z, yaw, local, world_out) -> None:
    """World positions of every emitter slot: ``world_out[i, e] = pose_i · local[i, e]``.

    ``x, y, z, yaw`` float64[N] (z = body base height); ``local``/``world_out`` float64[N, E, 3].
    On the thread pool for large worlds (``threads.form``); each robot writes only its own
    slots, so the result is the same.
    """
    threads.form(emitter_rows, parallel_emitters, 0, x.shape[0], x, y, z, yaw, local, world_out,
                 min_items=PARALLEL_MIN_EMITTERS, chunk_items=CHUNK)()


@njit(cache=True, error_model="numpy", inline="always")
def emitter_rows(lo, hi, x, y, z, yaw, local, world_out):
    for i in range(lo, hi):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for e in range(local.shape[1]):
            lx = local[i, e, 0]
            ly = local[i, e, 1]
            world_out[i, e, 0] = x[i] + c * lx - s * ly
            world_out[i, e, 1] = y[i] + s * lx + c * ly
            world_out[i, e, 2] = z[i] + local[i, e, 2]


parallel_emitters = threads.chunked(emitter_rows)


def bind_lit_emitters(x, y, z, yaw, local, rgb, world_out):
    """A call without arguments that places the emitters of every robot with at least one lit
    slot (a colour other than black in ``rgb`` uint8[N, E, 3]), as :func:`update_emitters`
    does, and leaves those of robots whose slots are all dark where they were.

    Light sensors and cameras skip dark emitters, so their positions are never read; placing
    them anyway (17 per E-Puck2) cost 1.5 µs a tick for 50 robots.
    The kernel's form is chosen here, once: serial, or parallel when
    :func:`threads.go_parallel` says so."""
    if threads.go_parallel(x.shape[0], PARALLEL_MIN_EMITTERS):
        return partial(lit_emitters_parallel, x, y, z, yaw, local, rgb, world_out,
                       threads.chunk(CHUNK))
    if rgb.flags.c_contiguous:
        flat = rgb.reshape(-1)  # a view: the colours written each tick show through
        return partial(lit_emitters_flat, x, y, z, yaw, local, rgb, flat, world_out)
    return partial(lit_rows, 0, x.shape[0], x, y, z, yaw, local, rgb, world_out)


@njit(cache=True, error_model="numpy")
def lit_emitters_flat(x, y, z, yaw, local, rgb, rgb_flat, world_out):
    """:func:`lit_rows` of every robot, given ``rgb`` also as one row of bytes (``rgb_flat``, a
    view of it: flattening here would need the reference counting)."""
    if any_byte(rgb_flat):  # else the common case: every LED off
        _place_lit(0, x.shape[0], x, y, z, yaw, local, rgb, world_out)


@njit(cache=True, error_model="numpy", parallel=True)
def lit_emitters_parallel(x, y, z, yaw, local, rgb, world_out, chunk):
    if not any_on(rgb):  # every LED off (the common case): no launch on the pool for nothing
        return
    n = x.shape[0]
    for c in prange((n + chunk - 1) // chunk):
        lit_rows(c * chunk, min(n, (c + 1) * chunk), x, y, z, yaw, local, rgb, world_out)


@njit(cache=True, error_model="numpy", inline="always")
def any_byte(flat):
    """Whether any byte of the 1-D uint8 array ``flat`` is not 0 (one OR over the whole
    array: it vectorises, unlike a search that stops at the first lit one). Needs no
    reference counting, unlike :func:`any_on`."""
    acc = np.uint8(0)
    for k in range(flat.shape[0]):
        acc = np.uint8(acc | flat[k])  # kept a byte: the OR then runs 64 bytes at a time
    return acc != 0


@njit(cache=True, error_model="numpy", inline="always")
def any_on(a):
    """:func:`any_byte` of a uint8 colour array of any shape (LED commands or emitter
    colours)."""
    return any_byte(a.ravel())


@njit(cache=True, error_model="numpy", inline="always")
def lit_rows(start, stop, x, y, z, yaw, local, rgb, world_out):
    """:func:`emitter_rows` of the robots ``start … stop − 1`` that have a lit slot."""
    if any_on(rgb[start:stop]):  # else the common case: every LED of the block off
        _place_lit(start, stop, x, y, z, yaw, local, rgb, world_out)


@njit(cache=True, error_model="numpy", inline="always")
def _place_lit(start, stop, x, y, z, yaw, local, rgb, world_out):
    """Place the emitters of the robots ``start … stop − 1`` that have a lit slot."""
    for i in range(start, stop):
        lit = np.uint8(0)
        for e in range(rgb.shape[1]):  # no early exit: an OR over the row vectorises
            lit |= rgb[i, e, 0] | rgb[i, e, 1] | rgb[i, e, 2]
        if lit != 0:
            emitter_rows(i, i + 1, x, y, z, yaw, local, world_out)


@njit(cache=True, error_model="numpy")
def apply_led_commands(led_rgb_cmd, owner, channel_mask, rgb_out, start):
    """Copy commanded colours onto emitter slots, keeping only the channels each LED can show.

    ``led_rgb_cmd`` uint8[n, L, 3] commands of robots ``start … start + n − 1``; ``owner``
    int[E] the logical LED of each emitter slot (slots ≥ E are left alone); ``channel_mask``
    uint8[L, 3] 1 where the LED has that colour channel (a red-only LED told to show yellow
    shows red; told to show blue it stays dark); ``rgb_out`` uint8[N, E', 3] the emitters'
    colours, written in place.
    """
    led_rows(0, led_rgb_cmd.shape[0], led_rgb_cmd, owner, channel_mask, rgb_out, start)


@njit(cache=True, error_model="numpy", inline="always")
def led_rows(lo, hi, led_rgb_cmd, owner, channel_mask, rgb_out, start):
    """:func:`apply_led_commands` of the robots ``lo … hi − 1`` of the commands."""
    if not any_on(led_rgb_cmd[lo:hi]):  # every LED of the block off: every slot black
        rgb_out[start + lo:start + hi, :owner.shape[0], :] = 0
        return
    cmd = np.ascontiguousarray(led_rgb_cmd).reshape(led_rgb_cmd.shape[0], -1)
    _copy_led_rows(lo, hi, cmd, led_sources(owner, channel_mask), rgb_out, start)


parallel_leds = threads.chunked(led_rows)


@njit(cache=True, error_model="numpy")
def led_sources(owner, channel_mask):
    """int64[E, 3]: for each emitter slot and channel, the index of its byte among a robot's
    flattened LED commands (``3·LED + channel``), or −1 for a channel its LED does not have.
    Copying through it is a gather per robot, faster than walking LEDs and channel masks."""
    src = np.empty((owner.shape[0], 3), dtype=np.int64)
    for e in range(owner.shape[0]):
        for ch in range(3):
            src[e, ch] = 3 * owner[e] + ch if channel_mask[owner[e], ch] != 0 else -1
    return src


@njit(cache=True, error_model="numpy", inline="always")
def _copy_led_rows(lo, hi, cmd_rows, src, rgb_out, start):
    """Robots ``lo … hi − 1`` of ``cmd_rows`` uint8[n, 3·L] onto their slots (``src``:
    :func:`led_sources`), from row ``start + lo`` of ``rgb_out``."""
    for i in range(lo, hi):
        for e in range(src.shape[0]):
            for ch in range(3):
                b = src[e, ch]
                rgb_out[start + i, e, ch] = cmd_rows[i, b] if b >= 0 else 0


@njit(cache=True, error_model="numpy")
def led_commands_flat(cmd_rows, cmd_flat, src, rgb_out, rgb_flat, start):
    """:func:`apply_led_commands` for a group whose kernel stays serial, given its commands
    as one row of bytes per robot (``cmd_rows`` uint8[n, 3·L]) and as one row in all
    (``cmd_flat``), both views of the commands, the table ``src`` of :func:`led_sources`, and
    ``rgb_out`` also as one row of bytes (``rgb_flat``)."""
    n = cmd_rows.shape[0]
    if not any_byte(cmd_flat):  # every LED off: every slot black
        slots = rgb_out.shape[1]
        if src.shape[0] != slots:  # the robots have slots of other emitters too
            rgb_out[start:start + n, :src.shape[0], :] = 0
            return
        # one run of bytes, written only if some byte is not black yet: a store, even of the
        # same bytes, takes every cache line it touches from the other cores (those of the
        # sensing of the last tick on two threads) and dirties it; the read costs what the
        # store did (5 µs for 10 000 E-Puck2s) and leaves the lines where they are
        block = rgb_flat[start * slots * 3:(start + n) * slots * 3]
        if any_byte(block):
            block[:] = 0
        return
    _copy_led_rows(0, n, cmd_rows, src, rgb_out, start)


class Leds:
    """The ``leds`` command (uint8[n, L, 3]) → the group's emitter colours, per the type's
    :class:`~swarmstack.robots.base.EmitterLayout` (owner of each emitter, channels per LED)."""

    def __init__(self, owner, channels):
        self.owner = owner
        self.channels = channels

    def plan(self, world, group, keys, commands, drive):
        """The tick's call for this group (``threads.form``), bound to the commands and the
        emitter colours (``keys`` unused: LEDs draw no noise)."""
        cmd = commands["leds"]
        owner, channels, rgb, start = self.owner, self.channels, world.emitters.rgb, group.start
        if threads.go_parallel(len(cmd), PARALLEL_MIN_COMMANDS):
            return threads.form(led_rows, parallel_leds, 0, len(cmd), cmd, owner, channels, rgb,
                                start, min_items=PARALLEL_MIN_COMMANDS, chunk_items=CHUNK)
        if cmd.flags.c_contiguous and rgb.flags.c_contiguous:
            # views of the commands and the colours: what a controller writes shows through
            rows, flat, rgb_flat = cmd.reshape(len(cmd), -1), cmd.reshape(-1), rgb.reshape(-1)
            return partial(led_commands_flat, rows, flat, led_sources(owner, channels), rgb,
                           rgb_flat, start)
        return partial(apply_led_commands, cmd, owner, channels, rgb, start)
