"""A follower of the mixed-swarm example: it reads the Buzz beacons' broadcasts from its
inbox, drives to the nearest beacon it hears and stops next to it; it announces itself to the
beacons in Buzz's message format. Hearing no beacon, it explores."""

import math

from swarmstack import Controller
from swarmstack.controllers.epuck2 import EPuck2
from swarmstack.controllers.radio import buzz_broadcasts, buzz_frame

ARRIVED_M = 0.2
FRONT = [0, 1, 6, 7]


class Follower(Controller):
    def init(self, robot: EPuck2, params):
        self.speed = float(params.get("speed", 0.1))

    def step(self, robot: EPuck2):
        robot.send(buzz_frame(follower=robot.id))
        inbox = robot.inbox
        nearest = None
        for k in range(len(inbox)):
            if "beacon" in buzz_broadcasts(inbox.payloads[k]):
                if nearest is None or inbox.distance_m[k] < inbox.distance_m[nearest]:
                    nearest = k
        if nearest is not None and inbox.distance_m[nearest] < ARRIVED_M:
            robot.set_wheels(0.0, 0.0)
        elif robot.proximity[FRONT].max() > 600:
            robot.set_wheels(-self.speed, self.speed)
        elif nearest is not None:
            a = inbox.azimuth_rad[nearest]
            robot.goto(self.speed * math.cos(a), self.speed * math.sin(a))
        else:
            robot.set_wheels(self.speed, self.speed * 0.8)
