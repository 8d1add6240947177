"""Positioning: the robot's own pose as a tracking system reports it (ARGoS's positioning
sensor, a motion-capture arena).

Reading float64[n, 6]: x, y, z (m), roll, pitch, yaw (rad) of the body, with optional Gaussian
errors on position (σ ``position_noise_m``, each axis) and yaw (σ ``yaw_noise_rad``; the result
wrapped to [−π, π]). Noise-free it is the true pose, bit for bit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from numba import njit

from swarmstack.sensors.device import BodyReading
from swarmstack.sim import threads
from swarmstack.world.rng import gaussian

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 2048
PARALLEL_MIN = 16384


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, state, out):
    """``params`` = (position σ, yaw σ)."""
    pose = bodies[0]
    pos_std, yaw_std = params
    for b in range(lo, hi):
        i = b - start
        for a in range(6):
            out[i, a] = pose[a, b]
        if pos_std > 0.0:
            for a in range(3):
                out[i, a] += pos_std * gaussian(keys[i], tick, a)
        if yaw_std > 0.0:
            y = out[i, 5] + yaw_std * gaussian(keys[i], tick, 3)
            out[i, 5] = math.atan2(math.sin(y), math.cos(y))


parallel_rows = threads.chunked(rows)


@dataclass(frozen=True)
class Positioning(BodyReading):
    position_noise_m: float = 0.0
    yaw_noise_rad: float = 0.0
    name: str = "pose"
    width = 6

    def plan(self, world, group, keys, out, state):
        params = (float(self.position_noise_m), float(self.yaw_noise_rad))
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys, None, out,
                                 min_items=PARALLEL_MIN, chunk_items=CHUNK)
