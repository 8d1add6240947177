"""A controller for skimmers: drive straight at ``params.speed`` (m/s)."""

from swarmstack.controllers.api import Controller


class Cruise(Controller):
    def init(self, robot, params):
        self.speed = float(params.get("speed", 0.1))

    def step(self, robot):
        robot.set_drive(self.speed, 0.0)
