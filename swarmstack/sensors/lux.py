"""Ambient light in lux (the RVR's single front light sensor, Mercator report §4.2.6).

The report's steps: every light source in the scene, kept when not occluded (ray cast), adds a
term that depends on its distance and intensity; the sum is clamped to the sensor's range.
The occlusion and the sum over sources (static lights and other robots' lit LEDs) are the
E-Puck2 light sensor's (:func:`swarmstack.sensors.light.illumination`); only the transfer
differs: each visible source of intensity ``i`` within ``range_m`` adds ``K·i/d²`` lux,
``K = 138.9171`` lux·m² (the constant of the reference plug-in, used as an inverse-square
gain: DERIVED, not calibrated against a real sensor — the prototype's light sensor is covered
by its hat), optional uniform noise ``U(−η, η)`` lux, clamped to ``[0, max_lux]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from swarmstack.sim import threads

from numba import njit, prange
from swarmstack.sensors.light import (CHUNK, _any, _top, emitter_reach, illumination_rows,
                                      illumination_state, lit_robots)
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.world.rng import STREAM


@njit(cache=True, error_model="numpy")
def lux_transfer(sums, max_lux, kind, level, keys, tick, out):
    for i in range(sums.shape[0]):
        v = sums[i, 0] + draw(kind, level, keys[i], tick, 0)
        out[i] = min(max_lux, max(0.0, v))


@njit(cache=True, error_model="numpy")
def _lux_rows(lo, hi, start, sums, max_lux, kind, level, keys, stream, tick, out):
    for row in range(lo - start, hi - start):
        v = sums[row, 0]
        if kind != NOISE_NONE:  # a draw of the "none" model adds 0.0: skip its hashing
            v += draw(kind, level, keys[row, stream], tick, 0)
        out[row] = min(max_lux, max(0.0, v))


@njit(cache=True, error_model="numpy")
def sense_serial(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                 order, max_radius, lights, em_world, em_rgb, em_intensity, em_count, em_reach,
                 offsets, ring_max, range_m, gain, max_lux, kind, level, keys, stream, tick,
                 sums, out):
    """The lux meter of robots ``start … stop − 1`` in one call: the shared source sum
    (``light.illumination_rows``, ``K·i/d²``) and :func:`lux_transfer`."""
    lit = np.empty(em_count.shape[0], dtype=np.bool_)
    lit_robots(em_rgb, em_intensity, em_count, lit)
    any_lit = _any(lit)
    top_max = _top(pose[2], height)
    illumination_rows(start, stop, start, pose, run, radius, height, boxes, cylinders, gparams,
                      cell_start, order, max_radius, lights, em_world, em_rgb, em_intensity,
                      em_count, lit, any_lit, top_max, em_reach, offsets, ring_max, range_m, gain,
                      False, sums)
    _lux_rows(start, stop, start, sums, max_lux, kind, level, keys, stream, tick, out)


@njit(cache=True, error_model="numpy", parallel=True)
def sense_parallel(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                   cell_start, order, max_radius, lights, em_world, em_rgb, em_intensity,
                   em_count, em_reach, offsets, ring_max, range_m, gain, max_lux, kind, level,
                   keys, stream, tick, sums, out, chunk):
    """:func:`sense_serial` over chunks of robots on all threads (the same result)."""
    lit = np.empty(em_count.shape[0], dtype=np.bool_)
    lit_robots(em_rgb, em_intensity, em_count, lit)
    any_lit = _any(lit)
    top_max = _top(pose[2], height)
    n_chunks = (stop - start + chunk - 1) // chunk
    for ch in prange(n_chunks):
        lo = start + ch * chunk
        hi = min(stop, lo + chunk)
        illumination_rows(lo, hi, start, pose, run, radius, height, boxes, cylinders, gparams,
                          cell_start, order, max_radius, lights, em_world, em_rgb, em_intensity,
                          em_count, lit, any_lit, top_max, em_reach, offsets, ring_max, range_m,
                          gain, False, sums)
        _lux_rows(lo, hi, start, sums, max_lux, kind, level, keys, stream, tick, out)


@dataclass(frozen=True)
class Lux:
    """One light sensor at body-frame ``position_m`` (x, y, z above the base); reads lux."""

    position_m: tuple
    gain: float            # lux·m² per unit of source intensity
    range_m: float
    max_lux: float
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "light"
    scalar: bool = True
    needs_emitters: ClassVar[bool] = True

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros(n)

    def make_state(self, n: int) -> dict:
        x, y, z = (float(v) for v in self.position_m)
        return illumination_state([np.arctan2(y, x)], np.hypot(x, y), z, n)

    def update(self, world, group, keys, out, state) -> None:
        if state["reach"] is None:
            state["reach"] = emitter_reach(world)
        b = world.bodies
        em = world.emitters
        arena = world.arena
        kernel = threads.pick(group.stop - group.start, sense_serial, sense_parallel,
                              chunk_items=CHUNK, spread_out=True)
        kernel(group.start, group.stop, b.pose, b.run, b.radius, b.height, arena.boxes,
               arena.cylinders, world.grid, world.cell_start, world.order, world.max_radius,
               arena.lights, em.world, em.rgb, em.intensity, em.count, state["reach"],
               state["offsets"], state["ring_max"], self.range_m, self.gain, self.max_lux,
               NOISE_KINDS[self.noise], self.noise_level, keys, STREAM["light"], world.tick,
               state["sums"], out)
