"""Phototaxis: steer towards the brightest light sensor; stop close to the light.

E-Puck2 light readings fall as light grows (4095 = dark, 0 = saturated), so the brightest
direction is the sensor with the *smallest* reading. Sensors 0–3 look right (CCW −15…−150°),
4–7 left.
"""

import numpy as np

from swarmstack import BatchedController
from swarmstack.controllers.epuck2 import EPuck2Group

ANGLES = np.radians([-15, -50, -90, -150, 150, 90, 50, 15])


class Phototaxis(BatchedController):
    def init(self, group: EPuck2Group, params):
        self.speed = float(params.get("speed", 0.1))
        self.arrived = int(params.get("arrived_below", 1500))  # reading that means "close"
        self.wander = np.zeros(group.n)  # turn of the random walk used while no light is seen

    def step(self, group: EPuck2Group):
        light = group.light.astype(np.float64)
        brightness = 4095.0 - light                      # 0 = dark
        # direction of the light: brightness-weighted mean of the sensor directions
        bx = (brightness * np.cos(ANGLES)).sum(axis=1)
        by = (brightness * np.sin(ANGLES)).sum(axis=1)
        bearing = np.arctan2(by, bx)
        seen = brightness.sum(axis=1) > 1.0
        # out of the sensors' 50 cm range: random walk, changing course now and then
        draw = group.uniform(2)
        change = draw[:, 0] < 0.05
        self.wander = np.where(change, 2.0 * draw[:, 1] - 1.0, self.wander)
        turn = np.where(seen, np.clip(bearing / (np.pi / 2), -1.0, 1.0), 0.5 * self.wander)
        left = self.speed * (1.0 - turn)
        right = self.speed * (1.0 + turn)
        near = light.min(axis=1) < self.arrived
        group.wheels[:, 0] = np.where(near, 0.0, np.clip(left, -self.speed, self.speed))
        group.wheels[:, 1] = np.where(near, 0.0, np.clip(right, -self.speed, self.speed))
