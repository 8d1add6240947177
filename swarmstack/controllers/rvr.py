"""What an RVR (Mercator) controller sees: typed interfaces for editors and type checkers.

Readings exist only when their sensor is enabled in the experiment file. ``reference`` is the
reference model of the report's Table 1 (a NumPy record; see ``docs/rvr.md``)::

    from swarmstack.controllers.rvr import RVR

    class Aggregate(Controller):
        def step(self, robot: RVR) -> None:
            rm = robot.reference
            if rm["neighbours"] > 0: ...
            robot.set_treads(10, 10)        # Table 1 wheels, cm/s
"""

from __future__ import annotations

from typing import Annotated, Protocol

import numpy as np

from swarmstack.controllers.protocols import AnyGroup, AnyRobot, Array


class RVR(AnyRobot, Protocol):
    """One RVR (per-robot controllers)."""

    # R, G, B 0–255 of the floor 5 cm ahead (noise N(0, 5))
    ground_color: Annotated[np.ndarray, Array("int32", (3,))]
    # R, G, B of the nearest palette label, label index
    fixed_color: Annotated[np.ndarray, Array("int32", (4,))]
    # m/s along the boot-time x, y axes
    velocity: Annotated[np.ndarray, Array("float64", (2,))]
    # g along the boot-time axes (z reads 0)
    accelerometer: Annotated[np.ndarray, Array("float64", (3,))]
    # rad/s about x, y, z
    gyroscope: Annotated[np.ndarray, Array("float64", (3,))]
    # roll, pitch, yaw (rad), world frame
    imu: Annotated[np.ndarray, Array("float64", (3,))]
    # lux 0–16000 at the front sensor
    light: Annotated[np.ndarray, Array("float64", ())]
    # m from the boot position, world axes
    locator: Annotated[np.ndarray, Array("float64", (2,))]
    # w, x, y, z relative to the boot orientation
    quaternion: Annotated[np.ndarray, Array("float64", (4,))]
    # m in [0.05, 2]; −inf too close, +inf nothing
    proximity: Annotated[np.ndarray, Array("float64", (8,))]
    # m in [0.10, 12]; 0 too close, 12 no return
    lidar: Annotated[np.ndarray, Array("float64", (719,))]
    # prox[8], prox_angle[8], light, ground[3], neighbours, neighbour_distance[M],
    # neighbour_angle[M], camera_count/_distance/_angle, lidar_count/_distance/_angle
    reference: Annotated[np.ndarray, Array("record", ())]
    # x, y, z, roll, pitch, yaw (positioning)
    pose: Annotated[np.ndarray, Array("float64", (6,))]
    # wheel speeds (cm/s), distances covered in the last tick (cm), axis length (cm)
    differential_steering: Annotated[np.ndarray, Array("float64", (5,))]

    def set_wheels(self, left_m_s: float, right_m_s: float) -> None: ...

    def set_treads(self, left_cm_s: float, right_cm_s: float) -> None: ...  # |v| ≤ 155

    def set_led(self, index: int, *rgb) -> None: ...   # 0 front-left, 1 front-right, 2 left,
    #                                                    3 right, 4 back

    def set_leds(self, *rgb) -> None: ...


class RVRGroup(AnyGroup, Protocol):
    """Every RVR of a group, across all runs of a batch (batched controllers)."""

    wheels: Annotated[np.ndarray, Array("float64", ("n", 2))]   # commands (m/s)
    leds: Annotated[np.ndarray, Array("uint8", ("n", 5, 3))]    # commands
    ground_color: Annotated[np.ndarray, Array("int32", ("n", 3))]
    fixed_color: Annotated[np.ndarray, Array("int32", ("n", 4))]
    velocity: Annotated[np.ndarray, Array("float64", ("n", 2))]
    accelerometer: Annotated[np.ndarray, Array("float64", ("n", 3))]
    gyroscope: Annotated[np.ndarray, Array("float64", ("n", 3))]
    imu: Annotated[np.ndarray, Array("float64", ("n", 3))]
    light: Annotated[np.ndarray, Array("float64", ("n",))]
    locator: Annotated[np.ndarray, Array("float64", ("n", 2))]
    quaternion: Annotated[np.ndarray, Array("float64", ("n", 4))]
    proximity: Annotated[np.ndarray, Array("float64", ("n", 8))]
    lidar: Annotated[np.ndarray, Array("float64", ("n", 719))]
    reference: Annotated[np.ndarray, Array("record", ("n",))]   # fields as above
    pose: Annotated[np.ndarray, Array("float64", ("n", 6))]
    differential_steering: Annotated[np.ndarray, Array("float64", ("n", 5))]
