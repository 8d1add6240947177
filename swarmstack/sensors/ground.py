"""Ground sensors (E-Puck2 ground module): floor grey level under three points → 0–1023.

The three sensors sit in a row across the front of the body, on the floor (paper §3.3). Each
samples the floor texture at its rotated position (rotation about z only: the robot is assumed
flat on the floor), converts the colour to grey ``0.299 R + 0.587 G + 0.114 B`` (0–255), scales
it to the device range ``× 1023/255``, adds ``U(−η, η) · 1023`` noise, then rounds and clamps to
0 (black) … 1023 (white).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.world.floor import sample_texture
from swarmstack.world.rng import STREAM

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 1024
PARALLEL_MIN = 8192


@njit(cache=True, error_model="numpy")
def ground_kernel(start, stop, x, y, yaw, points, texture, bounds, full_scale, kind, level,
                  keys, tick, out):
    """Fill ``out`` int[stop − start, K] for robots ``start … stop − 1``."""
    _ground_kernel_rows(start, start, stop, x, y, yaw, points, texture, bounds, full_scale,
                        kind, level, keys, tick, out)


@njit(cache=True, error_model="numpy", parallel=True)
def ground_kernel_parallel(start, stop, x, y, yaw, points, texture, bounds, full_scale, kind,
                           level, keys, tick, out, chunk):
    """``ground_kernel`` over chunks of ``chunk`` robots on the thread pool."""
    for c in prange((stop - start + chunk - 1) // chunk):
        lo = start + c * chunk
        _ground_kernel_rows(start, lo, min(stop, lo + chunk), x, y, yaw, points, texture,
                            bounds, full_scale, kind, level, keys, tick, out)


@njit(cache=True, error_model="numpy", inline="always")
def _ground_kernel_rows(base, start, stop, x, y, yaw, points, texture, bounds, full_scale, kind,
                        level, keys, tick, out):
    # robots start … stop − 1 of a group starting at body ``base`` (both forms share it)
    for i in range(start, stop):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for k in range(points.shape[0]):
            px = x[i] + c * points[k, 0] - s * points[k, 1]
            py = y[i] + s * points[k, 0] + c * points[k, 1]
            r, g, b = sample_texture(texture, bounds, px, py)
            grey = 0.299 * r + 0.587 * g + 0.114 * b
            v = grey * full_scale / 255.0 + draw(kind, level, keys[i - base], tick, k) * full_scale
            out[i - base, k] = min(full_scale, max(0, int(round(v))))


def reading(rgb, *, full_scale: int):
    """Noise-free reading for floor colours ``rgb`` (…, 3) in 0–255 (NumPy reference)."""
    c = np.asarray(rgb, dtype=np.float64)
    grey = 0.299 * c[..., 0] + 0.587 * c[..., 1] + 0.114 * c[..., 2]
    return np.clip(np.round(grey * full_scale / 255.0), 0, full_scale).astype(np.int64)


@dataclass(frozen=True)
class Ground:
    """``positions_m``: body-frame (x, y) of each sensor on the floor."""

    positions_m: tuple
    full_scale: int
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "ground"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, len(self.positions_m)), dtype=np.int32)

    def make_state(self, n: int):
        return np.asarray(self.positions_m, dtype=np.float64).reshape(-1, 2)

    def _arguments(self, world, group, keys, state) -> tuple:
        """The kernel's arguments before ``tick, out`` (the same every tick)."""
        b = world.bodies
        return (group.start, group.stop, b.x, b.y, b.yaw, state, world.arena.floor.texture,
                world.bounds, self.full_scale, NOISE_KINDS[self.noise], self.noise_level,
                keys[:, STREAM["ground"]])

    def update(self, world, group, keys, out, state) -> None:
        kernel = threads.pick(group.stop - group.start, ground_kernel, ground_kernel_parallel,
                              PARALLEL_MIN, CHUNK)
        kernel(*self._arguments(world, group, keys, state), world.tick, out)

    def bind(self, world, group, keys, out, state):
        """:meth:`update` for this group as a call without arguments, bound to the compiled
        serial kernel; None when the group may go parallel (then :meth:`update` chooses)."""
        if not threads.stays_serial(group.stop - group.start, PARALLEL_MIN):
            return None
        args = self._arguments(world, group, keys, state)
        kernel = ground_kernel

        def update_bound():
            kernel(*args, world.tick, out)

        return update_bound
