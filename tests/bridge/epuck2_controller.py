from swarmstack.controllers.api import Controller


class GroundAndLight(Controller):
    """Commands from the readings, so the test sees readings in and units out: the left wheel
    at ground[0] / 10 000 m/s, the right at light[3] / 100 000 m/s; ring LED 1 coloured
    (ground[2] / 4, light[0] / 16, 7); red LED 0 on when the ToF sees closer than 1 m."""

    def step(self, robot):
        robot.set_wheels(robot.ground[0] / 10_000.0, robot.light[3] / 100_000.0)
        robot.set_led(1, int(robot.ground[2]) // 4, int(robot.light[0]) // 16, 7)
        robot.set_led(0, 255 if robot.tof_mm < 1000 else 0, 0, 0)
