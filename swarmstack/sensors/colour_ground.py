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
from numba import njit

from swarmstack.sensors.device import DeviceBase
from swarmstack.sim import threads
from swarmstack.world.floor import sample_texture
from swarmstack.world.rng import gaussian

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 2048
PARALLEL_MIN = 16384


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, state, out):
    """Fill rows ``i − start`` of ``out`` int[·, 3] with the noisy RGB readings of robots
    ``lo … hi − 1``; ``params`` = (floor texture, its bounds, sensor x, y in the body frame,
    noise mean, noise std)."""
    pose = bodies[0]
    texture, bounds, px, py, mean, std = params
    for i in range(lo, hi):
        c = math.cos(pose[5, i])
        s = math.sin(pose[5, i])
        rgb = sample_texture(texture, bounds, pose[0, i] + c * px - s * py,
                             pose[1, i] + s * px + c * py)
        for ch in range(3):
            v = float(rgb[ch])
            if std > 0.0 or mean != 0.0:
                v += mean + std * gaussian(keys[i - start], tick, ch)
            out[i - start, ch] = min(255, max(0, int(round(v))))


parallel_rows = threads.chunked(rows)


def plan_colour(world, group, keys, out, position_m, mean: float, std: float):
    """The call that writes the noisy colour under ``position_m`` (body frame) of every robot
    of ``group`` into ``out`` (shared by the devices that read the floor colour)."""
    params = (world.arena.floor.texture, world.bounds, float(position_m[0]),
              float(position_m[1]), float(mean), float(std))
    return threads.rows_plan(rows, parallel_rows, world, group, params, keys, None, out,
                             min_items=PARALLEL_MIN, chunk_items=CHUNK)


@dataclass(frozen=True)
class ColourGround(DeviceBase):
    """int32[3]: R, G, B 0–255 of the floor under the sensing point: ``positions_m`` holds its
    body-frame (x, y) in m, as one point of a list (the ground-sensor convention)."""

    positions_m: tuple
    noise_mean: float = 0.0
    noise_std: float = 5.0
    name: str = "ground_color"

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 3), dtype=np.int32)

    def plan(self, world, group, keys, out, state):
        return plan_colour(world, group, keys, out, self.positions_m[0], self.noise_mean,
                           self.noise_std)
