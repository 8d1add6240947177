"""Encoder odometry: drive a square and dead-reckon the pose from the wheel encoders.

The encoders count 1000 steps per wheel revolution (7763.66 steps per metre of travel) in a
signed 16-bit register that wraps; differences between ticks are unwrapped before use.
"""

import math

from swarmstack import Controller
from swarmstack.controllers.epuck2 import EPuck2

STEPS_PER_M = 1000 / (2 * math.pi * 0.0205)
AXLE_M = 0.053


def unwrap16(delta: int) -> int:
    """Step difference of a wrapping int16 counter."""
    return (delta + 32768) % 65536 - 32768


class SquareOdometry(Controller):
    def init(self, robot: EPuck2, params):
        self.speed = float(params.get("speed", 0.08))
        self.side = float(params.get("side_m", 0.4))
        self.x, self.y, self.yaw = 0.0, 0.0, 0.0   # estimate, relative to the start pose
        self.last = [int(v) for v in robot.encoders]
        self.leg_start = (0.0, 0.0, 0.0)
        self.turning = False

    def step(self, robot: EPuck2):
        now = [int(v) for v in robot.encoders]
        dl = unwrap16(now[0] - self.last[0]) / STEPS_PER_M
        dr = unwrap16(now[1] - self.last[1]) / STEPS_PER_M
        self.last = now
        d = 0.5 * (dl + dr)
        dth = (dr - dl) / AXLE_M
        self.x += d * math.cos(self.yaw + 0.5 * dth)
        self.y += d * math.sin(self.yaw + 0.5 * dth)
        self.yaw += dth
        x0, y0, yaw0 = self.leg_start
        if self.turning:
            if self.yaw - yaw0 >= math.pi / 2:
                self.turning = False
                self.leg_start = (self.x, self.y, self.yaw)
        elif math.hypot(self.x - x0, self.y - y0) >= self.side:
            self.turning = True
            self.leg_start = (self.x, self.y, self.yaw)
        if self.turning:
            robot.set_wheels(-0.3 * self.speed, 0.3 * self.speed)
        else:
            robot.set_wheels(self.speed, self.speed)
