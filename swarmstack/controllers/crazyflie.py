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

from typing import Annotated, Protocol

import numpy as np

from swarmstack.controllers.protocols import AnyGroup, AnyRobot, Array


class Crazyflie(AnyRobot, Protocol):
    """One Crazyflie (per-robot controllers)."""

    # x, y, z (m), roll, pitch, yaw (rad) (positioning)
    pose: Annotated[np.ndarray, Array("float64", (6,))]
    # column px, row px (0–319), r, g, b; unused rows −1
    camera: Annotated[np.ndarray, Array("float64", ("B", 5))]
    # charge 0 … 1
    battery: Annotated[np.ndarray, Array("float64", ())]
    # the robots seen below: robot id, x, y (m, world), nearest first; unused rows id −1
    down_camera: Annotated[np.ndarray, Array("float64", ("T", 3))]

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

    # 0 hold, 1 position, 2 velocity, 3 land, 4 take-off, 5 move by
    mode: Annotated[np.ndarray, Array("int8", ("n", 1))]
    # x, y, z (m), yaw (rad); NaN keeps the current value
    target: Annotated[np.ndarray, Array("float64", ("n", 4))]
    # vx, vy, vz (m/s, world frame), yaw rate (rad/s)
    velocity: Annotated[np.ndarray, Array("float64", ("n", 4))]
    # the LED ring's colour
    leds: Annotated[np.ndarray, Array("uint8", ("n", 1, 3))]
    pose: Annotated[np.ndarray, Array("float64", ("n", 6))]
    camera: Annotated[np.ndarray, Array("float64", ("n", "B", 5))]
    battery: Annotated[np.ndarray, Array("float64", ("n",))]
    down_camera: Annotated[np.ndarray, Array("float64", ("n", "T", 3))]
