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

from typing import Protocol

import numpy as np

from swarmstack.controllers.protocols import AnyGroup, AnyRobot


class RVR(AnyRobot, Protocol):
    """One RVR (per-robot controllers)."""

    ground_color: np.ndarray   # int32[3]: R, G, B 0–255 of the floor 5 cm ahead (noise N(0, 5))
    fixed_color: np.ndarray    # int32[4]: R, G, B of the nearest palette label, label index
    velocity: np.ndarray       # float64[2]: m/s along the boot-time x, y axes
    accelerometer: np.ndarray  # float64[3]: g along the boot-time axes (z reads 0)
    gyroscope: np.ndarray      # float64[3]: rad/s about x, y, z
    imu: np.ndarray            # float64[3]: roll, pitch, yaw (rad), world frame
    light: np.ndarray          # 0-d float64: lux 0–16000 at the front sensor
    locator: np.ndarray        # float64[2]: m from the boot position, world axes
    quaternion: np.ndarray     # float64[4]: w, x, y, z relative to the boot orientation
    proximity: np.ndarray      # float64[8]: m in [0.05, 2]; −inf too close, +inf nothing
    lidar: np.ndarray          # float64[719]: m in [0.10, 12]; 0 too close, 12 no return
    reference: np.ndarray      # 0-d record: prox[8], prox_angle[8], light, ground[3],
    #                            neighbours, neighbour_distance[M], neighbour_angle[M],
    #                            camera_count/_distance/_angle, lidar_count/_distance/_angle
    pose: np.ndarray           # float64[6]: x, y, z, roll, pitch, yaw (positioning)

    def set_wheels(self, left_m_s: float, right_m_s: float) -> None: ...

    def set_treads(self, left_cm_s: float, right_cm_s: float) -> None: ...  # |v| ≤ 155

    def set_led(self, index: int, *rgb) -> None: ...   # 0 front-left, 1 front-right, 2 left,
    #                                                    3 right, 4 back

    def set_leds(self, *rgb) -> None: ...


class RVRGroup(AnyGroup, Protocol):
    """Every RVR of a group, across all runs of a batch (batched controllers)."""

    wheels: np.ndarray         # float64[n, 2] commands (m/s)
    leds: np.ndarray           # uint8[n, 5, 3] commands
    ground_color: np.ndarray   # int32[n, 3]
    fixed_color: np.ndarray    # int32[n, 4]
    velocity: np.ndarray       # float64[n, 2]
    accelerometer: np.ndarray  # float64[n, 3]
    gyroscope: np.ndarray      # float64[n, 3]
    imu: np.ndarray            # float64[n, 3]
    light: np.ndarray          # float64[n]
    locator: np.ndarray        # float64[n, 2]
    quaternion: np.ndarray     # float64[n, 4]
    proximity: np.ndarray      # float64[n, 8]
    lidar: np.ndarray          # float64[n, 719]
    reference: np.ndarray      # record[n] (fields as above, robots on axis 0)
    pose: np.ndarray           # float64[n, 6]
