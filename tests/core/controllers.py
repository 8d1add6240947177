"""Controllers used by the core tests (importable as tests.core.controllers:Name)."""


from swarmstack import BatchedController, Controller


class RandomWheels(BatchedController):
    """Random wheel speeds redrawn every tick from each robot's own stream."""

    def step(self, group):
        group.wheels[:] = (group.uniform(2) * 2.0 - 1.0) * 0.2


class Forward(BatchedController):
    def step(self, group):
        group.wheels[:] = 0.15


class Spin(Controller):
    def step(self, robot):
        robot.set_wheels(0.05, -0.05)


class CrashAt(Controller):
    """Robot ``robot_id`` raises at tick ``tick``; everyone else drives forward."""

    def init(self, robot, params):
        self.tick = int(params["tick"])
        self.robot_id = int(params["robot_id"])

    def step(self, robot):
        if robot.id == self.robot_id and robot.tick >= self.tick:
            raise ZeroDivisionError("deliberate failure in a test controller")
        robot.set_wheels(0.05, 0.05)


class LightUp(Controller):
    """Robot 0 lights its LEDs in the colour given by params; others keep theirs off."""

    def init(self, robot, params):
        self.rgb = tuple(params.get("rgb", (0, 0, 255)))

    def step(self, robot):
        if robot.id == 0:
            robot.set_leds(self.rgb)


class Wanderer(Controller):
    """Random wheel speeds from the robot's own generator; counts its steps (reset clears)."""

    def init(self, robot, params):
        self.steps = 0

    def step(self, robot):
        self.steps += 1
        robot.set_wheels(*robot.rng.uniform(-0.1, 0.15, size=2))

    def reset(self, robot):
        self.steps = 0


class CrashInInit(Controller):
    def init(self, robot, params):
        if robot.id == 1:
            raise ValueError("bad parameter in init")

    def step(self, robot):
        pass


class RandomWheelsLeds(BatchedController):
    """Random wheels and a colour per robot that changes with the tick (lit LEDs for cameras)."""

    def step(self, group):
        group.wheels[:] = (group.uniform(2) * 2.0 - 1.0) * 0.12
        colour = (group.uniform(3) * 255).astype("uint8")
        group.leds[:] = colour[:, None, :]


class Drive(Controller):
    """Per-robot: hold the body-frame velocity given by params (hoverbox host API)."""

    def init(self, robot, params):
        self.v = [float(c) for c in params.get("velocity", (0.1, 0.0, 0.0, 0.0))]

    def step(self, robot):
        robot.set_velocity(*self.v)


class ParamSpeed(Controller):
    """Per-robot E-Puck2: drive straight at params['speed'] (differs by run in a batch)."""

    def init(self, robot, params):
        self.speed = float(params["speed"])

    def step(self, robot):
        robot.set_wheels(self.speed, self.speed)


class ParamSpeedBatched(BatchedController):
    def step(self, group):
        group.wheels[:] = group.param("speed")[:, None]
