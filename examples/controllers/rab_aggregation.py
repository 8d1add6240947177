"""Aggregation with the range-and-bearing radio: each robot broadcasts its neighbour count
(one byte) and steers towards the sum of its neighbours' positions, each weighted by one plus
the count it announced, so robots join the busier clusters. Alone, it explores; close to
something ahead (proximity), it turns away."""

import math

from swarmstack import Controller
from swarmstack.controllers.epuck2 import EPuck2

NEAR_M = 0.12       # close enough to a neighbour: stop
FRONT = [0, 1, 6, 7]


class RabAggregation(Controller):
    def init(self, robot: EPuck2, params):
        self.speed = float(params.get("speed", 0.1))
        self.turn_ticks = 0

    def step(self, robot: EPuck2):
        inbox = robot.inbox
        robot.send(bytes([min(len(inbox), 255)]))
        if robot.proximity[FRONT].max() > 600:           # about to touch something
            robot.set_wheels(-self.speed, self.speed)
            return
        if len(inbox) == 0:                               # alone: explore
            if self.turn_ticks > 0:
                self.turn_ticks -= 1
                robot.set_wheels(self.speed, -self.speed)
            elif robot.rng.random() < 0.05:
                self.turn_ticks = int(robot.rng.integers(3, 15))
            else:
                robot.set_wheels(self.speed, self.speed)
            return
        if inbox.distance_m.min() < NEAR_M:               # in a cluster: stay
            robot.set_wheels(0.0, 0.0)
            return
        x = y = 0.0
        for k in range(len(inbox)):
            weight = 1 + (inbox.payloads[k][0] if inbox.payloads[k] else 0)
            x += weight * inbox.distance_m[k] * math.cos(inbox.azimuth_rad[k])
            y += weight * inbox.distance_m[k] * math.sin(inbox.azimuth_rad[k])
        norm = math.hypot(x, y)
        robot.goto(self.speed * x / norm, self.speed * y / norm)
