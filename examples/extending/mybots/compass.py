"""A new sensor kind: a compass reading the robot's heading, with noise from its own stream.

The reading is the yaw (rad, counter-clockwise from the arena's +x axis: east 0, north π/2)
in (−π, π], one number per robot. Noise (``noise = "uniform"`` or ``"gaussian"``, ``level``
in rad) is drawn from the robot's own ``compass`` key, so it does not depend on which other
robots or sensors exist.
"""

import math
from dataclasses import dataclass, replace

import numpy as np
from numba import njit

from swarmstack.robots.base import DeviceSpec, ScriptGlobal
from swarmstack.robots.epuck2 import EPUCK2
from swarmstack.robots.options import NoiseOptions
from swarmstack.sensors.noise import NOISE_KINDS, draw


@njit(cache=True)
def read_headings(start, pose, keys, tick, kind, level, out):
    """Rows ``start …`` of ``pose`` (float64[6, N]: x, y, z, roll, pitch, yaw) into ``out``."""
    for i in range(out.shape[0]):
        yaw = pose[5, start + i] + draw(kind, level, keys[i], tick, 0)
        out[i] = math.atan2(math.sin(yaw), math.cos(yaw))


@dataclass(frozen=True)
class Compass:
    noise: str = "none"
    level: float = 0.0
    name: str = "compass"      # controllers read robot.compass
    stream: str = "compass"    # its random keys
    scalar: bool = True        # one number a robot

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros(n)

    def make_state(self, n: int):
        return None

    def plan(self, world, group, keys, out, state):
        kind, level = NOISE_KINDS[self.noise], float(self.level)

        def sense() -> None:
            read_headings(group.start, world.bodies.pose, keys, world.tick, kind, level, out)
        return sense


def make_compass(options: NoiseOptions, base_dir=None) -> Compass:
    return Compass(options.noise, options.level)


COMPASS = DeviceSpec(
    "compass", NoiseOptions, make_compass,
    "heading, 0-d float64 rad in (−π, π], counter-clockwise from +x",
    script=ScriptGlobal("compass", float, "heading (rad)"))

# the E-Puck2 with a compass: the built-in type with one more device
EPUCK2_COMPASS = replace(EPUCK2, name="epuck2_compass",
                         devices={**EPUCK2.devices, "compass": COMPASS})
