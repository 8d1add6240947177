"""Sensor noise models shared by every sensor kernel.

``NOISE_NONE``, ``NOISE_UNIFORM`` (ARGoS: add U(−η, η) to the normalised reading) and
``NOISE_GAUSSIAN`` (add N(0, η²)). Draws come from the robot's own stream for that sensor
(see ``swarmstack.world.rng``), so results do not depend on which other robots exist.
"""

from __future__ import annotations

from numba import njit
from swarmstack.world.rng import gaussian, symmetric

NOISE_NONE = 0
NOISE_UNIFORM = 1
NOISE_GAUSSIAN = 2
NOISE_KINDS = {"none": NOISE_NONE, "uniform": NOISE_UNIFORM, "gaussian": NOISE_GAUSSIAN}


@njit(cache=True, error_model="numpy", inline="always")
def draw(kind, level, key, tick, channel):
    """One noise sample of the given kind and level (0.0 when the model is off)."""
    if kind == NOISE_UNIFORM:
        return level * symmetric(key, tick, channel)
    if kind == NOISE_GAUSSIAN:
        return level * gaussian(key, tick, channel)
    return 0.0
