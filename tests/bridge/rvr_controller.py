from swarmstack.controllers.api import Controller


class FollowRed(Controller):
    """Tread speeds from the readings, so the test sees readings in and units out: left =
    red / 10 cm/s, right = locator x × 100 cm/s; LEDs follow the ground colour."""

    def step(self, robot):
        robot.set_treads(robot.ground_color[0] / 10.0, robot.locator[0] * 100.0)
        robot.set_leds(int(robot.ground_color[0]), 0, 0)
