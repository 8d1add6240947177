"""The skimmer: a 6 cm disc driven as a unicycle (forward speed, turn rate), with the shared
positioning device. Nothing in swarmstack names it."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import Field

from swarmstack.robots.base import ActuatorSpec, Body, Command, HostFn, RobotType
from swarmstack.robots.devices import POSITIONING
from swarmstack.robots.options import Options

RADIUS_M, HEIGHT_M, MASS_KG = 0.03, 0.04, 0.1


@dataclass(frozen=True)
class Unicycle:
    """Forward speed (m/s) and turn rate (rad/s), held over the tick."""

    def make_state(self, n: int) -> dict[str, np.ndarray]:
        return {"drive": np.zeros((n, 2))}

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool:
        v, w = state["drive"][:, 0], state["drive"][:, 1]
        yaw = bodies.yaw[start:stop]
        bodies.x[start:stop] += v * np.cos(yaw) * dt
        bodies.y[start:stop] += v * np.sin(yaw) * dt
        bodies.yaw[start:stop] = np.arctan2(np.sin(yaw + w * dt), np.cos(yaw + w * dt))
        return bool(np.any(state["drive"] != 0.0))


class DriveOptions(Options):
    max_speed: float = Field(0.2, gt=0)


@dataclass(frozen=True)
class DriveActuator:
    max_speed: float

    def plan(self, world, group, keys, commands, drive):
        cmd, out = commands["drive"], drive["drive"]

        def apply() -> None:
            np.clip(np.nan_to_num(cmd[:, 0]), -self.max_speed, self.max_speed, out=out[:, 0])
            out[:, 1] = np.nan_to_num(cmd[:, 1])
        return apply


def set_drive(robot, speed_m_s: float, turn_rad_s: float = 0.0) -> None:
    """Forward speed (m/s) and turn rate (rad/s)."""
    robot.commands["drive"][:] = (speed_m_s, turn_rad_s)


SKIMMER = RobotType(
    name="skimmer",
    body=Body.disc(RADIUS_M, HEIGHT_M, MASS_KG),
    dynamics=Unicycle(),
    commands=(Command("drive", np.float64, (2,), 0.0, "m/s, rad/s", "speed, turn rate"),),
    actuators=(ActuatorSpec("drive", lambda o: DriveActuator(o.max_speed), DriveOptions),),
    devices={"positioning": POSITIONING},
    host_api=(HostFn("set_drive", set_drive, set_drive.__doc__, lengths=(0,)),),
    doc="a unicycle disc defined outside swarmstack",
)

NOT_A_TYPE = {"name": "skimmer"}
