"""Infrared proximity sensors: ray distance → the device's 0–4095 reading.

Transfer function (E-Puck2 paper, Eq. 1): ``v = a d² + b d + c`` for ``d < range``, else 0,
clamped to [0, 1]; noise is added to ``v``; the reading is ``round(4095 v)`` clamped to
0–4095 (0 = nothing in range, 4095 = touching).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.sensors import ranging
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.world.rng import STREAM


@njit(cache=True, error_model="numpy")
def transfer(dist, range_m, a, b, c, full_scale, kind, level, keys, tick, out):
    """Eq. 1 + noise + quantisation, for a block of robots (keys: their proximity streams)."""
    for i in range(dist.shape[0]):
        _transfer_row(dist, i, range_m, a, b, c, full_scale, kind, level, keys[i], tick, out)


@njit(cache=True, error_model="numpy", inline="always")
def _transfer_row(dist, row, range_m, a, b, c, full_scale, kind, level, key, tick, out):
    for k in range(dist.shape[1]):
        d = dist[row, k]
        v = 0.0
        if d < range_m:
            v = min(1.0, max(0.0, a * d * d + b * d + c))
        if kind != NOISE_NONE:  # a draw of the "none" model adds 0.0: skip its hashing
            v += draw(kind, level, key, tick, k)
        out[row, k] = min(full_scale, max(0, int(round(full_scale * v))))


@njit(cache=True, error_model="numpy")
def _rows(lo, hi, start, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
          order, static, max_radius, rays, coef, kind, keys, stream, tick, dist, out):
    """Distances, then readings, of robots ``lo … hi − 1`` (rows ``i − start``)."""
    ranging.cast_rows(lo, hi, start, pose, run, radius, height, boxes, cylinders, gparams,
                      cell_start, order, static, max_radius, rays, coef[0], dist)
    full_scale = int(coef[4])
    for row in range(lo - start, hi - start):
        _transfer_row(dist, row, coef[0], coef[1], coef[2], coef[3], full_scale, kind, coef[5],
                      keys[row, stream], tick, out)


@njit(cache=True, error_model="numpy")
def sense_serial(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                 order, static, max_radius, rays, coef, kind, keys, stream, tick, dist, out):
    """Rays and Eq. 1 for robots ``start … stop − 1`` in one call. ``coef`` = (range, a, b, c,
    full scale, noise level); ``keys`` the group's uint64[n, streams], ``stream`` the column."""
    _rows(start, stop, start, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
          order, static, max_radius, rays, coef, kind, keys, stream, tick, dist, out)


@njit(cache=True, error_model="numpy", parallel=True)
def sense_parallel(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                   cell_start, order, static, max_radius, rays, coef, kind, keys, stream, tick,
                   dist, out, chunk):
    """:func:`sense_serial` over chunks of ``chunk`` robots on all threads (the same
    result)."""
    n_chunks = (stop - start + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo = start + c * chunk
        _rows(lo, min(stop, lo + chunk), start, pose, run, radius, height, boxes,
              cylinders, gparams, cell_start, order, static, max_radius, rays, coef, kind, keys,
              stream, tick, dist, out)


def reading(d_m, a: float, b: float, c: float, range_m: float, full_scale: int = 4095):
    """Noise-free reading for distances ``d_m`` (NumPy; used by validations and tests)."""
    d = np.asarray(d_m, dtype=np.float64)
    v = np.where(d < range_m, np.clip(a * d * d + b * d + c, 0.0, 1.0), 0.0)
    return np.clip(np.round(full_scale * v), 0, full_scale).astype(np.int64)


@dataclass(frozen=True)
class Proximity:
    layout: ranging.RayLayout
    a: float
    b: float
    c: float
    full_scale: int = 4095
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "proximity"
    scalar: bool = False

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, self.layout.count), dtype=np.int32)

    def make_state(self, n: int):
        return np.zeros((n, self.layout.count))  # scratch for distances

    @cached_property  # built once: it is read every tick
    def _coef(self) -> np.ndarray:
        return np.array([self.layout.range_m, self.a, self.b, self.c, self.full_scale,
                         self.noise_level], dtype=np.float64)

    def update(self, world, group, keys, out, state) -> None:
        b = world.bodies
        arena = world.arena
        kernel = threads.pick(group.stop - group.start, sense_serial, sense_parallel,
                              chunk_items=ranging.CHUNK, spread_out=True)
        kernel(group.start, group.stop, b.pose, b.run, b.radius, b.height, arena.boxes,
               arena.cylinders, world.grid, world.cell_start, world.order, world.static,
               world.max_radius, self.layout.table, self._coef, NOISE_KINDS[self.noise], keys,
               STREAM["proximity"], world.tick, state, out)

    def bind(self, world, group, keys, out, state):
        """:meth:`update` as a call without arguments (``ranging.bind_sensor_rows``)."""
        return ranging.bind_sensor_rows(sense_serial, world, group, self.layout.table,
                                        self._coef, NOISE_KINDS[self.noise], keys,
                                        STREAM["proximity"], state, out)
