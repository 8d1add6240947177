"""Line following with the three ground sensors: keep the black line under the middle sensor.

Ground readings run from 0 (black) to 1023 (white); sensor 0 is on the right, 2 on the left.
"""

from swarmstack import Controller
from swarmstack.controllers.epuck2 import EPuck2


class LineFollower(Controller):
    def init(self, robot: EPuck2, params):
        self.speed = float(params.get("speed", 0.06))
        self.gain = float(params.get("gain", 0.8))

    def step(self, robot: EPuck2):
        right, middle, left = (float(v) / 1023.0 for v in robot.ground)
        # darker on the left → turn left; the difference steers, the middle keeps the speed
        turn = self.gain * (right - left)
        base = self.speed * (0.5 + 0.5 * (1.0 - middle))
        robot.set_wheels(base - turn * self.speed, base + turn * self.speed)
