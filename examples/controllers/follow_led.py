"""A drone following a ground robot's LED with its AI-deck camera (a mixed swarm).

``LedCarrier`` (E-Puck2): lights its LEDs and drives a wide circle. ``LedFollower``
(Crazyflie, with the AI-deck camera and a positioning system): takes off, then steers on the
blobs its camera reports — the mean column gives the bearing (turn towards it), the mean row
how far below the horizon the LED is, hence its distance from the drone's height — and flies to
keep the LED ``distance`` metres ahead. Seeing nothing, it hovers and turns to search.

The camera looks forward: its 50° aperture (25° below the axis) and the hover height bound how
close a ground light can be followed (0.25 m up, a light 4.8 cm high stays in view beyond
0.43 m).
"""

import math

import numpy as np

from swarmstack import Controller
from swarmstack.robots.crazyflie_decks import CAMERA_APERTURE_DEG, CAMERA_WIDTH_PX

# the AI-deck image is 320 × 320 (columns and rows 0–319) with a 50° aperture
CENTRE_PX = (CAMERA_WIDTH_PX - 1) / 2
FOCAL_PX = CENTRE_PX / math.tan(math.radians(CAMERA_APERTURE_DEG / 2))


class LedCarrier(Controller):
    """Lights every LED in ``color`` and drives a circle of ``radius`` m at ``speed`` m/s."""

    def init(self, robot, params):
        self.color = tuple(int(v) for v in params.get("color", (255, 0, 0)))
        speed = float(params.get("speed", 0.06))
        k = 0.053 / (2.0 * float(params.get("radius", 0.6)))   # half axle over radius
        self.wheels = (speed * (1.0 - k), speed * (1.0 + k))

    def step(self, robot):
        robot.set_leds(*self.color)
        robot.set_wheels(*self.wheels)


class LedFollower(Controller):
    """Follows the LED blobs it sees at ``distance`` m, hovering at ``height`` m."""

    def init(self, robot, params):
        self.height = float(params.get("height", 0.25))
        self.distance = float(params.get("distance", 0.6))
        self.led_height = float(params.get("led_height", 0.048))   # E-Puck2 LED ring
        self.max_speed = float(params.get("max_speed", 0.3))
        self.search_rate = float(params.get("search_rate", 0.6))   # rad/s
        self.seen = 0                                             # ticks with the LED in view
        robot.takeoff(self.height)

    def step(self, robot):
        x, y, z, _, _, yaw = robot.pose
        if z < 0.8 * self.height:          # still rising
            return
        climb = 1.5 * (self.height - z)
        cam = robot.camera
        cam = cam[cam[:, 0] >= 0]
        if len(cam) == 0:
            robot.set_velocity(0.0, 0.0, climb)
            robot.set_yaw_rate(self.search_rate)
            return
        self.seen += 1
        col = float(np.mean(cam[:, 0]))
        row = float(np.mean(cam[:, 1]))
        bearing = math.atan((CENTRE_PX - col) / FOCAL_PX)       # left of the axis: positive
        below = math.atan((row - CENTRE_PX) / FOCAL_PX)         # angle below the horizon
        drop = z - self.led_height
        ahead = drop / math.tan(below) if below > 0.02 else 2.0 * self.distance
        speed = float(np.clip(0.8 * (ahead - self.distance), -self.max_speed, self.max_speed))
        robot.set_velocity(speed * math.cos(yaw), speed * math.sin(yaw), climb)
        robot.set_yaw_rate(2.0 * bearing)
