"""Controllers reading the compass: turn to face north (+y), then keep that heading."""

import math

from swarmstack.controllers.api import Controller

NORTH = math.pi / 2


def heading_error(compass) -> float:
    """How far to turn (rad, counter-clockwise positive) to face north."""
    error = NORTH - float(compass)
    return math.atan2(math.sin(error), math.cos(error))


class FaceNorth(Controller):
    """An E-Puck2 with a compass: turn on the spot until facing north, then stop."""

    def init(self, robot, params):
        self.speed = float(params.get("speed", 0.02))          # m/s at each wheel
        self.tolerance = float(params.get("tolerance", 0.1))   # rad

    def step(self, robot):
        error = heading_error(robot.compass)
        if abs(error) < self.tolerance:
            robot.set_wheels(0.0, 0.0)
        else:
            turn = math.copysign(self.speed, error)
            robot.set_wheels(-turn, turn)


class DriveNorth(Controller):
    """A rover: drive at ``speed`` while steering towards north."""

    def init(self, robot, params):
        self.speed = float(params.get("speed", 0.05))   # m/s
        self.gain = float(params.get("gain", 2.0))      # rad/s per rad of error

    def step(self, robot):
        robot.set_drive(self.speed, self.gain * heading_error(robot.compass))
