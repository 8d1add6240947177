"""Diffusion (obstacle avoidance): drive straight, turn away from whatever the proximity
sensors see. Two forms of the same behaviour: per robot, and batched over the whole group."""

import numpy as np

from swarmstack import BatchedController, Controller
from swarmstack.controllers.epuck2 import EPuck2, EPuck2Group

# proximity sensors 0,1,2 look to the right-front, 5,6,7 to the left-front (CCW −15…+15°)
RIGHT = [0, 1, 2]
LEFT = [5, 6, 7]


class Diffusion(Controller):
    def init(self, robot: EPuck2, params):
        self.speed = float(params.get("speed", 0.1))
        self.threshold = int(params.get("threshold", 200))

    def step(self, robot: EPuck2):
        prox = robot.proximity
        left, right = prox[LEFT].max(), prox[RIGHT].max()
        if max(left, right) < self.threshold:
            robot.set_wheels(self.speed, self.speed)
        elif left > right:       # obstacle on the left: turn right on the spot
            robot.set_wheels(self.speed, -self.speed)
        else:
            robot.set_wheels(-self.speed, self.speed)


class DiffusionBatched(BatchedController):
    def init(self, group: EPuck2Group, params):
        self.speed = float(params.get("speed", 0.1))
        self.threshold = int(params.get("threshold", 200))

    def step(self, group: EPuck2Group):
        prox = group.proximity
        left = prox[:, LEFT].max(axis=1)
        right = prox[:, RIGHT].max(axis=1)
        free = np.maximum(left, right) < self.threshold
        turn_right = left > right
        group.wheels[:, 0] = np.where(free | turn_right, self.speed, -self.speed)
        group.wheels[:, 1] = np.where(free | ~turn_right, self.speed, -self.speed)
