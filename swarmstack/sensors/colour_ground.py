"""Colour ground sensor (Mercator report §4.2.1): the RGB floor colour under one point.

The floor texture is sampled at the sensor's position (body frame ``(x, y)``, rotated by the
yaw only); each channel gets Gaussian noise ``N(μ, σ)`` (the report recommends ``N(0, 5)``,
from 300 samples per colour, Fig. 6), then is rounded and clamped to 0–255. The draws come
from the robot's own ground stream, channel ``c`` of tick ``t`` always the same number, so a
device that re-derives the reading (the colour labeller) sees exactly this value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.world.floor import sample_texture
from swarmstack.world.rng import STREAM, gaussian

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 2048
PARALLEL_MIN = 16384


@njit(cache=True, error_model="numpy")
def colour_kernel(start, stop, x, y, yaw, px, py, texture, bounds, mean, std, keys, tick,
                  out):
    """Fill ``out`` int[stop − start, 3] with noisy RGB readings."""
    _colour_kernel_rows(start, start, stop, x, y, yaw, px, py, texture, bounds, mean, std, keys,
                        tick, out)


@njit(cache=True, error_model="numpy", parallel=True)
def colour_kernel_parallel(start, stop, x, y, yaw, px, py, texture, bounds, mean, std, keys,
                           tick, out, chunk):
    """``colour_kernel`` over chunks of ``chunk`` robots on the thread pool."""
    for c in prange((stop - start + chunk - 1) // chunk):
        lo = start + c * chunk
        _colour_kernel_rows(start, lo, min(stop, lo + chunk), x, y, yaw, px, py, texture,
                            bounds, mean, std, keys, tick, out)


@njit(cache=True, error_model="numpy", inline="always")
def _colour_kernel_rows(base, start, stop, x, y, yaw, px, py, texture, bounds, mean, std, keys,
                        tick, out):
    # robots start … stop − 1 of a group starting at body ``base`` (both forms share it)
    for i in range(start, stop):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        r, g, b = sample_texture(texture, bounds, x[i] + c * px - s * py, y[i] + s * px + c * py)
        rgb = (r, g, b)
        for ch in range(3):
            v = float(rgb[ch])
            if std > 0.0 or mean != 0.0:
                v += mean + std * gaussian(keys[i - base], tick, ch)
            out[i - base, ch] = min(255, max(0, int(round(v))))


def read_colour(world, group, keys, position_m, mean: float, std: float, out) -> None:
    b = world.bodies
    kernel = threads.pick(group.stop - group.start, colour_kernel, colour_kernel_parallel,
                          PARALLEL_MIN, CHUNK)
    kernel(group.start, group.stop, b.x, b.y, b.yaw, float(position_m[0]),
           float(position_m[1]), world.arena.floor.texture, world.bounds, float(mean),
           float(std), keys[:, STREAM["ground"]], world.tick, out)


@dataclass(frozen=True)
class ColourGround:
    """int32[3]: R, G, B 0–255 of the floor under the sensing point: ``positions_m`` holds its
    body-frame (x, y) in m, as one point of a list (the ground-sensor convention)."""

    positions_m: tuple
    noise_mean: float = 0.0
    noise_std: float = 5.0
    name: str = "ground_color"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 3), dtype=np.int32)

    def make_state(self, n: int):
        return None

    def update(self, world, group, keys, out, state) -> None:
        read_colour(world, group, keys, self.positions_m[0], self.noise_mean, self.noise_std, out)
