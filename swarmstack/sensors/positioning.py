"""Positioning: the robot's own pose as a tracking system reports it (ARGoS's positioning
sensor, a motion-capture arena).

Reading float64[n, 6]: x, y, z (m), roll, pitch, yaw (rad) of the body, with optional Gaussian
errors on position (σ ``position_noise_m``, each axis) and yaw (σ ``yaw_noise_rad``; the result
wrapped to [−π, π]). Noise-free it is the true pose, bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.world.rng import STREAM, gaussian


# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 2048
PARALLEL_MIN = 16384


@njit(cache=True, error_model="numpy")
def _noisy_pose(pose, start, stop, pos_std, yaw_std, keys, tick, out):
    _pose_rows(0, stop - start, pose, start, pos_std, yaw_std, keys, tick, out)


@njit(cache=True, error_model="numpy", parallel=True)
def _noisy_pose_parallel(pose, start, stop, pos_std, yaw_std, keys, tick, out, chunk):
    n = stop - start
    for c in prange((n + chunk - 1) // chunk):
        _pose_rows(c * chunk, min(n, (c + 1) * chunk), pose, start, pos_std, yaw_std, keys, tick,
                   out)


@njit(cache=True, error_model="numpy", inline="always")
def _pose_rows(lo, hi, pose, start, pos_std, yaw_std, keys, tick, out):
    """Group rows ``lo … hi − 1`` (body ``start + i``), each its own row of ``out``."""
    for i in range(lo, hi):
        b = start + i
        for a in range(6):
            out[i, a] = pose[a, b]
        if pos_std > 0.0:
            for a in range(3):
                out[i, a] += pos_std * gaussian(keys[i], tick, a)
        if yaw_std > 0.0:
            y = out[i, 5] + yaw_std * gaussian(keys[i], tick, 3)
            out[i, 5] = math.atan2(math.sin(y), math.cos(y))


@dataclass(frozen=True)
class Positioning:
    position_noise_m: float = 0.0
    yaw_noise_rad: float = 0.0
    name: str = "pose"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 6))

    def make_state(self, n: int):
        return None

    def update(self, world, group, keys, out, state) -> None:
        kernel = threads.pick(len(out), _noisy_pose, _noisy_pose_parallel, PARALLEL_MIN, CHUNK)
        kernel(world.bodies.pose, group.start, group.stop, self.position_noise_m,
               self.yaw_noise_rad, keys[:, STREAM["positioning"]], world.tick, out)
