"""The §4.3 workload's controller: every robot rotates on the spot (left +5 cm/s, right −5 cm/s)
and reads its enabled sensor every tick — once batched, once per robot."""

from swarmstack import BatchedController, Controller


class SpinBatched(BatchedController):
    def init(self, group, params):
        self.speed = float(params.get("speed", 0.05))
        self.sensor = params.get("sensor")

    def step(self, group):
        if self.sensor:
            getattr(group, self.sensor)  # a real controller would read it
        group.wheels[:, 0] = self.speed
        group.wheels[:, 1] = -self.speed


class Spin(Controller):
    def init(self, robot, params):
        self.speed = float(params.get("speed", 0.05))
        self.sensor = params.get("sensor")

    def step(self, robot):
        if self.sensor:
            getattr(robot, self.sensor)
        robot.set_wheels(self.speed, -self.speed)
