"""What a Crazyflie controller sees: typed interfaces for editors and type checkers.

The same contract as :mod:`swarmstack.controllers.epuck2`, for groups of ``type =
"crazyflie"``::

    from swarmstack.controllers.crazyflie import Crazyflie

    class Hover(Controller):
        def step(self, robot: Crazyflie) -> None:
            if robot.tick == 0:
                robot.takeoff(1.0)

A reading exists only when its device is enabled in the experiment file.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from swarmstack.controllers.protocols import AnyGroup, AnyRobot


class Crazyflie(AnyRobot, Protocol):
    """One Crazyflie (per-robot controllers)."""

    pose: np.ndarray           # float64[6]: x, y, z (m), roll, pitch, yaw (rad) (positioning)
    camera: np.ndarray         # float64[B, 5]: column px, row px (0–319), r, g, b; unused rows −1
    battery: np.ndarray        # 0-d float64: charge 0 … 1

    def takeoff(self, height_m: float) -> None: ...      # motors on, rise and hold

    def land(self) -> None: ...                          # descend, motors off on the floor

    def goto(self, x_m: float, y_m: float, z_m: float) -> None: ...         # absolute, world

    def move_by(self, dx_m: float, dy_m: float, dz_m: float) -> None: ...   # relative

    def set_velocity(self, vx_m_s: float, vy_m_s: float, vz_m_s: float) -> None: ...  # world

    def set_yaw(self, yaw_rad: float) -> None: ...

    def set_yaw_rate(self, rate_rad_s: float) -> None: ...

    def set_leds(self, *rgb) -> None: ...


class CrazyflieGroup(AnyGroup, Protocol):
    """Every Crazyflie of a group, across all runs of a batch (batched controllers)."""

    mode: np.ndarray           # int8[n, 1]: 0 hold, 1 position, 2 velocity, 3 land, 4 take-off, 5 move by
    target: np.ndarray         # float64[n, 4]: x, y, z (m), yaw (rad); NaN keeps the current value
    velocity: np.ndarray       # float64[n, 4]: vx, vy, vz (m/s, world frame), yaw rate (rad/s)
    leds: np.ndarray           # uint8[n, 1, 3]: the LED ring's colour
    pose: np.ndarray           # float64[n, 6] (positioning)
    camera: np.ndarray         # float64[n, B, 5]
    battery: np.ndarray        # float64[n]
