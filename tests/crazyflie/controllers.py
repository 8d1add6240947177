"""Controllers of the Crazyflie tests, named by the experiments the tests build."""

from swarmstack import Controller


class Fly(Controller):
    """Take off; at tick ``at`` fly at ``velocity`` (m/s) or to ``goal`` (m), drone i shifted by
    ``spread`` · i along y (0: every drone to the same point, they meet and push)."""

    def init(self, robot, params):
        self.at = int(params.get("at", 10))
        self.velocity = params.get("velocity")
        self.goal = params.get("goal", (2.5, 0.0, 1.0))
        self.spread = float(params.get("spread", 0.0))

    def step(self, robot):
        if robot.tick == 0:
            robot.takeoff(1.0)
        elif robot.tick == self.at:
            if self.velocity is not None:
                robot.set_velocity(*self.velocity)
            else:
                x, y, z = self.goal
                robot.goto(x, y + self.spread * robot.id, z)


class Sequence(Controller):
    """At tick ``at`` (default 0), calls the host functions listed in ``ops`` in order, in one
    step: ``[["takeoff", 1.0], ["goto", 1.0, 0.5, 1.2]]``."""

    def init(self, robot, params):
        self.at = int(params.get("at", 0))
        self.ops = [(op[0], [float(a) for a in op[1:]]) for op in params["ops"]]

    def step(self, robot):
        if robot.tick == self.at:
            for name, args in self.ops:
                getattr(robot, name)(*args)
