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
from numba import njit

from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.sim import threads
from swarmstack.world.floor import sample_texture

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 1024
PARALLEL_MIN = 8192


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, points, out):
    """Fill rows ``i − start`` of ``out`` int[·, K] for robots ``lo … hi − 1``; ``points``
    the sensors' body-frame (x, y); ``params`` = (floor texture, its bounds, full scale, noise
    kind, noise level)."""
    pose = bodies[0]
    texture, bounds, full_scale, kind, level = params
    for i in range(lo, hi):
        c = math.cos(pose[5, i])
        s = math.sin(pose[5, i])
        for k in range(points.shape[0]):
            px = pose[0, i] + c * points[k, 0] - s * points[k, 1]
            py = pose[1, i] + s * points[k, 0] + c * points[k, 1]
            r, g, b = sample_texture(texture, bounds, px, py)
            grey = 0.299 * r + 0.587 * g + 0.114 * b
            v = grey * full_scale / 255.0 + draw(kind, level, keys[i - start], tick, k) * full_scale
            out[i - start, k] = min(full_scale, max(0, int(round(v))))


parallel_rows = threads.chunked(rows)


def reading(rgb, *, full_scale: int):
    """Noise-free reading for floor colours ``rgb`` (…, 3) in 0–255 (NumPy reference)."""
    c = np.asarray(rgb, dtype=np.float64)
    grey = 0.299 * c[..., 0] + 0.587 * c[..., 1] + 0.114 * c[..., 2]
    return np.clip(np.round(grey * full_scale / 255.0), 0, full_scale).astype(np.int64)


@dataclass(frozen=True)
class Ground(DeviceBase):
    """``positions_m``: body-frame (x, y) of each sensor on the floor."""

    positions_m: tuple
    full_scale: int
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "ground"

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, len(self.positions_m)), dtype=np.int32)

    def make_state(self, n: int):
        return np.asarray(self.positions_m, dtype=np.float64).reshape(-1, 2)

    def plan(self, world, group, keys, out, state):
        params = (world.arena.floor.texture, world.bounds, self.full_scale,
                  NOISE_KINDS[self.noise], self.noise_level)
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys, state, out,
                                 min_items=PARALLEL_MIN, chunk_items=CHUNK)
