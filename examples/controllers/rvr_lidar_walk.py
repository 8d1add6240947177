"""Obstacle avoidance with the RVR's 719-ray lidar.

Straight on while the front sector (±40°) is clear beyond ``clearance`` metres; otherwise turn
on the spot towards the side (left or right half of the scan) with more free space, and keep
turning until the front is clear. Lidar readings are metres in [0.10, 12]; 0 means "too close"
(treated as blocked), 12 "no return" (free).
"""

import math

import numpy as np

from swarmstack import Controller
from swarmstack.controllers.rvr import RVR

FIRST_RAY_RAD = math.pi / 16     # the X4's first ray, CCW from the heading


class LidarWalk(Controller):
    def init(self, robot: RVR, params):
        self.speed = float(params.get("speed", 0.3))
        self.clearance = float(params.get("clearance", 0.45))
        k = robot.lidar.shape[0]
        a = (FIRST_RAY_RAD + 2 * math.pi / k * np.arange(k) + math.pi) % (2 * math.pi) - math.pi
        self.front = np.flatnonzero(np.abs(a) <= math.radians(40))
        self.left = np.flatnonzero((a > 0) & (a < math.radians(120)))
        self.right = np.flatnonzero((a < 0) & (a > -math.radians(120)))
        self.turn = 0.0

    def step(self, robot: RVR):
        scan = np.where(robot.lidar == 0.0, 0.1, robot.lidar)   # "too close" is blocked
        if scan[self.front].min() > self.clearance:
            self.turn = 0.0
            robot.set_wheels(self.speed, self.speed)
            return
        if self.turn == 0.0:   # choose a side once, then keep it until the front is clear
            self.turn = 1.0 if np.median(scan[self.left]) > np.median(scan[self.right]) else -1.0
        s = 0.5 * self.speed * self.turn
        robot.set_wheels(-s, s)
