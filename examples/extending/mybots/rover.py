"""A new robot type: the rover, a 30 × 20 × 15 cm box driven as a unicycle (forward speed,
turn rate), with the compass and the shared positioning device."""

from dataclasses import dataclass

import numpy as np
from pydantic import Field

from swarmstack.robots.base import (ActuatorSpec, Body, Command, HostFn, RadioSpec,
                                    RobotType)
from swarmstack.robots.devices import POSITIONING
from swarmstack.robots.options import Options

from mybots.compass import COMPASS


@dataclass(frozen=True)
class Unicycle:
    """Forward speed (m/s) and turn rate (rad/s), held over the tick."""

    def make_state(self, n: int) -> dict:
        return {"drive": np.zeros((n, 2))}   # what the motors apply

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool:
        speed, turn = state["drive"][:, 0], state["drive"][:, 1]
        yaw = bodies.yaw[start:stop]
        bodies.x[start:stop] += speed * np.cos(yaw) * dt
        bodies.y[start:stop] += speed * np.sin(yaw) * dt
        new_yaw = yaw + turn * dt
        bodies.yaw[start:stop] = np.arctan2(np.sin(new_yaw), np.cos(new_yaw))
        return bool(np.any(state["drive"] != 0.0))


class DriveOptions(Options):
    """``drive = { max_speed = 0.3, max_turn = 1.0 }`` in a rover group."""

    max_speed: float = Field(0.3, gt=0)   # m/s
    max_turn: float = Field(1.0, gt=0)    # rad/s


@dataclass(frozen=True)
class Drive:
    """The ``drive`` command, clamped to the motors' limits, into the drive state."""

    max_speed: float
    max_turn: float

    def plan(self, world, group, keys, commands, drive):
        command, motors = commands["drive"], drive["drive"]
        limits = np.array([self.max_speed, self.max_turn])

        def apply() -> None:
            np.clip(np.nan_to_num(command), -limits, limits, out=motors)
        return apply


def set_drive(robot, speed_m_s: float, turn_rad_s: float = 0.0) -> None:
    """Forward speed (m/s) and turn rate (rad/s, counter-clockwise)."""
    robot.commands["drive"][:] = (speed_m_s, turn_rad_s)


ROVER = RobotType(
    name="rover",
    body=Body.box(0.30, 0.20, 0.15, 3.0),
    dynamics=Unicycle(),
    commands=(Command("drive", np.float64, (2,), 0.0, "m/s, rad/s",
                      "forward speed, turn rate"),),
    actuators=(ActuatorSpec("drive", lambda o: Drive(o.max_speed, o.max_turn),
                            DriveOptions),),
    devices={"compass": COMPASS, "positioning": POSITIONING},
    radio=RadioSpec(range_m=2.0, payload_bytes=16, antenna_height_m=0.15),
    host_api=(HostFn("set_drive", set_drive, set_drive.__doc__, lengths=(0,)),),
    doc="a 30 × 20 cm unicycle rover with a compass",
)
