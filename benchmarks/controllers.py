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


class SpinStudy(BatchedController):
    """The §4.3 study in one batch: run r spins at wheel speed ``speeds[r // runs_per_speed]``."""

    def init(self, group, params):
        speeds = [float(v) for v in params["speeds"]]
        per = int(params["runs_per_speed"])
        self.speed = [speeds[min(r // per, len(speeds) - 1)] for r in range(max(group.run) + 1)]
        self.sensor = params.get("sensor")
        import numpy as np

        self.v = np.asarray(self.speed)[group.run]

    def step(self, group):
        if self.sensor:
            getattr(group, self.sensor)
        group.wheels[:, 0] = self.v
        group.wheels[:, 1] = -self.v


class WanderBatched(BatchedController):
    """Not the paper's workload: every robot drives at random wheel speeds (forward-biased,
    redrawn each tick from its own stream), so that robots keep running into each other and
    into the walls — the contact pass's worst case."""

    def init(self, group, params):
        self.speed = float(params.get("speed", 0.05))
        self.sensor = params.get("sensor")

    def step(self, group):
        if self.sensor:
            getattr(group, self.sensor)
        group.wheels[:] = (group.uniform(2) * 2.0 - 0.5) * 2.0 * self.speed
