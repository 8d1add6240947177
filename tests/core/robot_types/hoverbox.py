"""A robot type that exists only for the tests: a box that moves holonomically and can rise.

It proves the robot-type contract: a new type is this one module — body, dynamics, commands,
actuator, devices, host API — plus :func:`~swarmstack.robots.base.register`, with no edit to
the tick, the builder, the config schema or the controller views.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from pydantic import Field

from swarmstack.robots.base import (ActuatorSpec, Body, Command, DeviceSpec, HostFn, RadioSpec,
                                    RobotType, register)
from swarmstack.robots.options import NoiseOptions, Options

LENGTH_M, WIDTH_M, HEIGHT_M, MASS_KG = 0.20, 0.10, 0.08, 1.0
MAX_SPEED_M_S = 0.5
RANGE_M = 0.10


@dataclass(frozen=True)
class Holonomic:
    """Body-frame velocity (vx, vy, vz m/s, wz rad/s) held over the tick; z never below 0."""

    def make_state(self, n: int) -> dict[str, np.ndarray]:
        return {"velocity": np.zeros((n, 4))}

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool:
        v = state["velocity"]
        yaw = bodies.yaw[start:stop]
        c, s = np.cos(yaw), np.sin(yaw)
        bodies.x[start:stop] += (c * v[:, 0] - s * v[:, 1]) * dt
        bodies.y[start:stop] += (s * v[:, 0] + c * v[:, 1]) * dt
        bodies.z[start:stop] = np.maximum(0.0, bodies.z[start:stop] + v[:, 2] * dt)
        bodies.yaw[start:stop] = np.arctan2(np.sin(yaw + v[:, 3] * dt), np.cos(yaw + v[:, 3] * dt))
        return bool(np.any(v != 0.0))


class VelocityOptions(Options):
    max_speed: float = Field(MAX_SPEED_M_S, gt=0)


@dataclass(frozen=True)
class VelocityActuator:
    max_speed: float

    def plan(self, world, group, keys, commands, drive):
        cmd, out = commands["velocity"], drive["velocity"]

        def apply() -> None:
            np.clip(np.nan_to_num(cmd), -self.max_speed, self.max_speed, out=out)
        return apply


def proximity(options, base_dir=None):
    from swarmstack.sensors.proximity import Proximity
    from swarmstack.sensors.ranging import RayLayout

    # four rays from the middle of each face
    angles = np.array([0.0, math.pi / 2, math.pi, -math.pi / 2])
    ring = np.array([LENGTH_M / 2, WIDTH_M / 2, LENGTH_M / 2, WIDTH_M / 2])
    layout = RayLayout(angles, ring, np.full(4, HEIGHT_M / 2), RANGE_M)
    # a linear 1 (touching) … 0 (at range) response
    return Proximity(layout, 0.0, -1.0 / RANGE_M, 1.0, 1000, options.noise, options.level)


def set_velocity(robot, vx: float, vy: float, vz: float = 0.0, wz: float = 0.0) -> None:
    """Body-frame velocity (m/s) and yaw rate (rad/s)."""
    robot.commands["velocity"][:] = (vx, vy, vz, wz)


HOVERBOX = register(RobotType(
    name="hoverbox",
    body=Body.box(LENGTH_M, WIDTH_M, HEIGHT_M, MASS_KG),
    dynamics=Holonomic(),
    commands=(Command("velocity", np.float64, (4,), 0.0, "m/s, rad/s", "vx, vy, vz, wz"),),
    actuators=(ActuatorSpec("velocity", lambda o: VelocityActuator(o.max_speed),
                            VelocityOptions),),
    devices={"proximity": DeviceSpec("proximity", NoiseOptions, proximity, "4 face rays")},
    radio=RadioSpec(0.5, 64, 0.05),
    host_api=(HostFn("set_velocity", set_velocity, set_velocity.__doc__, lengths=(0, 1, 2)),),
    doc="a holonomic box for the tests",
))
