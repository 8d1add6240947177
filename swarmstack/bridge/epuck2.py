"""The E-Puck2's ROS 2 interface (the ``epuck_ros2`` driver's topics) as readings and commands
of swarmstack's ``epuck2`` type.

Sensors: ``ps0`` … ``ps7`` (sensor_msgs/Range, m) are the proximity sensors in the
simulator's index order; the driver's distance is turned into the 12-bit reading the
simulated sensor gives at that distance (Eq. 1), so controllers written for simulation read
the same counts. ``tof`` (Range, m) is the ToF reading in mm (20–2000). ``pose``
(PoseStamped, a frame the swarm shares) is the positioning reading and places the robot for
the radio. Command: ``cmd_vel`` (geometry_msgs/Twist: linear.x m/s, angular.z rad/s) from the
two wheel speeds (m/s) over the 53 mm axle. The LEDs are not bridged: their commands are never
sent.
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.bridge import ros_types as R
from swarmstack.bridge.messages import message_class as M
from swarmstack.bridge.topics import CommandTopic, RobotTopics, SensorTopic, finite, register
from swarmstack.robots import epuck2 as model


def _distance(msg) -> float:
    d = float(msg.range)
    if math.isnan(d):
        raise ValueError("a range is NaN")
    return d


def _read_ps(k: int):
    def read(msg, rows, devices) -> None:
        from swarmstack.sensors.proximity import reading

        d = _distance(msg)
        a, b, c = model.PROXIMITY_EQ1
        # REP 117: −inf closer than the minimum (the sensor saturates), +inf nothing in range
        d = 0.0 if d == -math.inf else d
        if not d < model.PROXIMITY_RANGE_M:     # beyond the sensor's range (+inf): nothing
            rows["proximity"][0, k] = 0
            return
        rows["proximity"][0, k] = reading(np.array([d]), a, b, c, model.PROXIMITY_RANGE_M,
                                          model.FULL_SCALE_12BIT)[0]
    return read


def _write_ps(k: int):
    def write(rows, t):
        # the inverse of Eq. 1 on its falling branch: the distance that gives this reading
        a, b, c = model.PROXIMITY_EQ1
        v = float(rows["proximity"][0, k]) / model.FULL_SCALE_12BIT
        if v <= 0.0:
            d = math.inf
        else:
            disc = b * b - 4 * a * (c - min(v, 1.0))
            d = max(0.0, (-b - math.sqrt(max(disc, 0.0))) / (2 * a))
        return R.range_msg(t, f"ps{k}", d, 0.0, model.PROXIMITY_RANGE_M, 0.26)
    return write


def _read_tof(msg, rows, devices) -> None:
    d = _distance(msg)
    mm = model.TOF_MAX_MM if d == math.inf else model.TOF_MIN_MM if d == -math.inf else \
        int(round(1000.0 * d))
    rows["tof_mm"][0] = min(model.TOF_MAX_MM, max(model.TOF_MIN_MM, mm))


def _write_tof(rows, t):
    return R.range_msg(t, "tof", float(rows["tof_mm"][0]) / 1000.0, model.TOF_MIN_MM / 1000.0,
                       model.TOF_MAX_MM / 1000.0, 0.44)


def _twist(v):
    lim = model.MAX_WHEEL_SPEED_M_S
    left, right = np.clip(np.asarray(v, dtype=np.float64), -lim, lim)
    return M("geometry_msgs/msg/Twist")(linear=R.vector3((left + right) / 2, 0.0, 0.0),
                                        angular=R.vector3(0.0, 0.0,
                                                          (right - left) / model.AXLE_M))


def _wheels_from_twist(msg):
    v = finite(msg.linear.x, "linear.x")
    w = finite(msg.angular.z, "angular.z")
    half = w * model.AXLE_M / 2
    return np.array([v - half, v + half])


EPUCK2_TOPICS = register(RobotTopics(
    robot_type="epuck2",
    driver_node="epuck_driver",
    sensors=tuple(SensorTopic(f"ps{k}", "sensor_msgs/msg/Range", ("proximity",), _read_ps(k),
                              _write_ps(k)) for k in range(8)) + (
        SensorTopic("tof", "sensor_msgs/msg/Range", ("tof_mm",), _read_tof, _write_tof),
        SensorTopic("pose", "geometry_msgs/msg/PoseStamped", ("pose",), R.read_pose,
                    R.write_pose),
    ),
    commands=(CommandTopic("cmd_vel", "geometry_msgs/msg/Twist", "wheels", "m/s", _twist,
                           _wheels_from_twist),),
    stop={"wheels": 0.0},
))
