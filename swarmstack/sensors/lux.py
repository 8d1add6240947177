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

from swarmstack.sensors.light import illumination, illumination_state
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.world.rng import STREAM


@njit(cache=True, error_model="numpy")
def lux_transfer(sums, max_lux, kind, level, keys, tick, out):
    for i in range(sums.shape[0]):
        v = sums[i, 0] + draw(kind, level, keys[i], tick, 0)
        out[i] = min(max_lux, max(0.0, v))


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
        sums = illumination(world, group, state, self.range_m, self.gain, False)
        lux_transfer(sums, self.max_lux, NOISE_KINDS[self.noise], self.noise_level,
                     keys[:, STREAM["light"]], world.tick, out)
