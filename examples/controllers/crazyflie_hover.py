"""Take off, hover, visit two waypoints and land: the Crazyflie's position-mode host functions.

Each drone rises to ``height_m``, holds for ``hover_s``, flies ``step_m`` forward and back
(``move_by``, relative to where it is), lands after ``land_s`` and stops its motors. Its LED
ring shows the phase: green taking off and hovering, blue moving, red landing.
"""

from swarmstack import Controller
from swarmstack.controllers.crazyflie import Crazyflie


class Hover(Controller):
    def init(self, robot: Crazyflie, params):
        self.height = float(params.get("height_m", 1.0))
        self.hover_ticks = int(round(float(params.get("hover_s", 5.0)) / robot.dt))
        self.move_ticks = int(round(float(params.get("move_s", 4.0)) / robot.dt))
        self.land_ticks = int(round(float(params.get("land_s", 20.0)) / robot.dt))
        self.step_m = float(params.get("step_m", 0.5))

    def step(self, robot: Crazyflie):
        t = robot.tick
        if t == 0:
            robot.takeoff(self.height)
            robot.set_leds(0, 255, 0)
        elif t == self.hover_ticks:
            robot.move_by(self.step_m, 0.0, 0.0)
            robot.set_leds(0, 0, 255)
        elif t == self.hover_ticks + self.move_ticks:
            robot.move_by(-self.step_m, 0.0, 0.0)
        elif t == self.land_ticks:
            robot.land()
            robot.set_leds(255, 0, 0)
