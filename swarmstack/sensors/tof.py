"""Time-of-flight distance sensor (E-Puck2's VL53L0X): one forward ray → millimetres.

The laser looks straight ahead from the front of the body (E-Puck2 paper §3.4). The reading is
the distance to the first thing the ray meets — walls, obstacles or robots of the same run —
``round(1000 d)`` mm clamped to 20–2000 (20 mm is the smallest value the real sensor returns);
when nothing lies within 2 m the reading is 2000. Noise (ARGoS convention) is added to the
distance before conversion: ``U(−η, η) · range`` (or ``N(0, η²) · range``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.sensors import ranging
from swarmstack.sensors.device import serial_arrays
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.world.rng import STREAM


@njit(cache=True, error_model="numpy")
def transfer(dist, range_m, min_mm, max_mm, kind, level, keys, tick, out):
    """Distance (m) + noise → clamped millimetres, for a block of robots."""
    for i in range(dist.shape[0]):
        out[i] = _mm(dist[i, 0], range_m, min_mm, max_mm, kind, level, keys[i], tick)


@njit(cache=True, error_model="numpy", inline="always")
def _mm(d, range_m, min_mm, max_mm, kind, level, key, tick):
    if kind != NOISE_NONE:  # a draw of the "none" model adds 0.0: skip its hashing
        d = d + draw(kind, level, key, tick, 0) * range_m
    return min(max_mm, max(min_mm, int(round(1000.0 * d))))


@njit(cache=True, error_model="numpy")
def _rows(lo, hi, start, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
          order, static, max_radius, rays, coef, kind, keys, stream, tick, dist, out):
    """Distance, then reading, of robots ``lo … hi − 1`` (rows ``i − start``)."""
    ranging.cast_rows(lo, hi, start, pose, run, radius, height, boxes, cylinders, gparams,
                      cell_start, order, static, max_radius, rays, coef[0], dist)
    _readings(lo, hi, start, coef, kind, keys, stream, tick, dist, out)


@njit(cache=True, error_model="numpy", inline="always")
def _readings(lo, hi, start, coef, kind, keys, stream, tick, dist, out):
    """The readings (mm) of rows ``lo − start … hi − start − 1`` from their distances."""
    min_mm = int(coef[1])
    max_mm = int(coef[2])
    for row in range(lo - start, hi - start):
        out[row] = _mm(dist[row, 0], coef[0], min_mm, max_mm, kind, coef[3], keys[row, stream],
                       tick)


@njit(cache=True, error_model="numpy")
def _long_rows(lo, hi, start, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
               order, max_radius, rays, coef, kind, keys, stream, tick, dist, out):
    """:func:`_rows` for a ray that ends beyond the grid cell of its robot (the usual ToF):
    the static index is not needed, which saves passing it in (``ranging.long_rows``: the
    walls over all rays at once, a small run's robots all tested on vector lanes)."""
    ranging.long_rows(lo, hi, start, pose[0], pose[1], pose[2], pose[5], run, radius, height,
                      boxes, cylinders, gparams, cell_start, order, max_radius, rays, coef[0],
                      dist)
    _readings(lo, hi, start, coef, kind, keys, stream, tick, dist, out)


@njit(cache=True, error_model="numpy")
def long_serial(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                order, max_radius, rays, coef, kind, keys, stream, tick, dist, out):
    """:func:`sense_serial` for a ray longer than a grid cell (see :func:`_long_rows`)."""
    _long_rows(start, stop, start, pose, run, radius, height, boxes, cylinders, gparams,
               cell_start, order, max_radius, rays, coef, kind, keys, stream, tick, dist, out)


@njit(cache=True, error_model="numpy")
def long_serial_scratch(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                        cell_start, order, max_radius, rays, coef, kind, keys, stream, tick, dist,
                        out, ray, bodies, who, keep):
    """:func:`long_serial` in the scratch ``ray, bodies, who, keep`` of
    ``ranging.long_scratch(stop − start, rays)``."""
    ranging.long_rows_into(start, stop, start, pose[0], pose[1], pose[2], pose[5], run, radius,
                           height, boxes, cylinders, gparams, cell_start, order, max_radius,
                           rays, coef[0], dist, ray, bodies, who, keep)
    _readings(start, stop, start, coef, kind, keys, stream, tick, dist, out)


@njit(cache=True, error_model="numpy", parallel=True)
def long_parallel(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                  order, max_radius, rays, coef, kind, keys, stream, tick, dist, out, chunk):
    """:func:`long_serial` over chunks of robots on all threads (the same result)."""
    n_chunks = (stop - start + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo = start + c * chunk
        _long_rows(lo, min(stop, lo + chunk), start, pose, run, radius, height, boxes,
                   cylinders, gparams, cell_start, order, max_radius, rays, coef, kind, keys,
                   stream, tick, dist, out)


@njit(cache=True, error_model="numpy")
def sense_serial(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                 order, static, max_radius, rays, coef, kind, keys, stream, tick, dist, out):
    """The ray and the reading of robots ``start … stop − 1`` in one call. ``coef`` = (range,
    min mm, max mm, noise level); ``keys`` the group's uint64[n, streams], ``stream`` the
    column."""
    _rows(start, stop, start, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
          order, static, max_radius, rays, coef, kind, keys, stream, tick, dist, out)


@njit(cache=True, error_model="numpy", parallel=True)
def sense_parallel(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                   cell_start, order, static, max_radius, rays, coef, kind, keys, stream, tick,
                   dist, out, chunk):
    """:func:`sense_serial` over chunks of robots on all threads (the same result)."""
    n_chunks = (stop - start + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo = start + c * chunk
        _rows(lo, min(stop, lo + chunk), start, pose, run, radius, height, boxes,
              cylinders, gparams, cell_start, order, static, max_radius, rays, coef, kind, keys,
              stream, tick, dist, out)


def reading(d_m, *, min_mm: int, max_mm: int):
    """Noise-free reading (mm) for true distances ``d_m`` (NumPy; validations and tests)."""
    d = np.asarray(d_m, dtype=np.float64)
    return np.clip(np.round(1000.0 * d), min_mm, max_mm).astype(np.int64)


@dataclass(frozen=True)
class ToF:
    """``position_m`` (x, y, z) of the emitter in the body frame; the ray points along +x."""

    position_m: tuple[float, float, float]
    range_m: float
    min_mm: int
    max_mm: int
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "tof_mm"
    scalar: bool = True

    @cached_property  # built once: it is read every tick
    def layout(self) -> ranging.RayLayout:
        # a ray from (px, py) pointing along the heading: ring radius and angle of the start
        # point only coincide with "forward" when py = 0, which holds for the E-Puck2
        px, py, pz = self.position_m
        if py != 0.0:
            raise ValueError("ToF must sit on the body's x axis (y = 0)")
        return ranging.RayLayout(np.zeros(1), np.array([float(px)]), np.array([float(pz)]),
                                 float(self.range_m))

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros(n, dtype=np.int32)

    def make_state(self, n: int):
        return np.zeros((n, 1))  # scratch for the hit distance

    @cached_property
    def _coef(self) -> np.ndarray:
        return np.array([self.range_m, self.min_mm, self.max_mm, self.noise_level],
                        dtype=np.float64)

    def update(self, world, group, keys, out, state) -> None:
        b = world.bodies
        arena = world.arena
        n = group.stop - group.start
        layout = self.layout
        if layout.reach_m > world.grid[2]:  # the usual case: see ranging.cast_rows
            kernel = threads.pick(n, long_serial, long_parallel, chunk_items=ranging.CHUNK,
                                  spread_out=True)
            kernel(group.start, group.stop, b.pose, b.run, b.radius, b.height, arena.boxes,
                   arena.cylinders, world.grid, world.cell_start, world.order, world.max_radius,
                   layout.table, self._coef, NOISE_KINDS[self.noise], keys, STREAM["tof"],
                   world.tick, state, out)
            return
        kernel = threads.pick(n, sense_serial, sense_parallel, chunk_items=ranging.CHUNK,
                              spread_out=True)
        kernel(group.start, group.stop, b.pose, b.run, b.radius, b.height, arena.boxes,
               arena.cylinders, world.grid, world.cell_start, world.order, world.static,
               world.max_radius, layout.table, self._coef, NOISE_KINDS[self.noise], keys,
               STREAM["tof"], world.tick, state, out)

    def bind(self, world, group, keys, out, state):
        """:meth:`update` as a call without arguments (``device.serial_arrays``): a ray that
        ends beyond its robot's grid cell (the usual ToF) through :func:`long_serial_scratch`,
        its scratch made here once."""
        kind, stream = NOISE_KINDS[self.noise], STREAM["tof"]
        if self.layout.reach_m <= world.grid[2]:
            return ranging.bind_sensor_rows(sense_serial, world, group, self.layout.table,
                                            self._coef, kind, keys, stream, state, out)
        head = serial_arrays(world, group)
        if head is None:
            return None
        start, stop, pose, run, radius, height, boxes, cylinders, gparams = head
        max_radius, rays, coef = world.max_radius, self.layout.table, self._coef
        ray, bodies, who, keep = ranging.long_scratch(stop - start, rays.shape[0])
        kernel = long_serial_scratch

        def update_bound():
            kernel(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                   world.cell_start, world.order, max_radius, rays, coef, kind, keys, stream,
                   world.tick, state, out, ray, bodies, who, keep)
        return update_bound
