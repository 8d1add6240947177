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

from numba import njit

from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.light import (CHUNK, illumination_rows, illumination_state, sensors,
                                      sources)
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.sim import threads


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, sums, out):
    """The lux meter of robots ``lo … hi − 1`` (rows ``i − start``): the shared source sum
    (``light.illumination_rows``, ``K·i/d²``) into ``sums``, noise, the clamp to
    ``[0, max_lux]``. ``params`` = sources + sensors + (max lux, noise kind, noise level), one
    flat tuple."""
    max_lux, kind, level = params[11], params[12], params[13]
    illumination_rows(lo, hi, start, bodies, scene, params[:6], params[6:11], sums)
    for row in range(lo - start, hi - start):
        v = sums[row, 0]
        if kind != NOISE_NONE:  # a draw of the "none" model adds 0.0: skip its hashing
            v += draw(kind, level, keys[row], tick, 0)
        out[row] = min(max_lux, max(0.0, v))


parallel_rows = threads.chunked(rows)


@dataclass(frozen=True)
class Lux(DeviceBase):
    """One light sensor at body-frame ``position_m`` (x, y, z above the base); reads lux."""

    position_m: tuple
    gain: float            # lux·m² per unit of source intensity
    range_m: float
    max_lux: float
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "light"
    scalar = True
    needs_emitters: ClassVar[bool] = True

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros(n)

    def make_state(self, n: int) -> dict:
        x, y, z = (float(v) for v in self.position_m)
        return illumination_state([np.arctan2(y, x)], np.hypot(x, y), z, n)

    def plan(self, world, group, keys, out, state):
        src = sources(world)
        params = (src + sensors(state, self.range_m, self.gain, False)
                  + (self.max_lux, NOISE_KINDS[self.noise], self.noise_level))
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys,
                                 state["sums"], out, chunk_items=CHUNK)
