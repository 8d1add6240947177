"""The E-Puck2's ROS 2 interface (the ``epuck_ros2`` driver's topics) as readings and commands
of swarmstack's ``epuck2`` type.

What the driver publishes and takes, and in which units, is read from its source
(``cyberbotics/epuck_ros2``, ``epuck_ros2_driver/src/driver.cpp``).

Sensors: ``ps0`` … ``ps7`` (sensor_msgs/Range, m) are the proximity sensors in the
simulator's index order; the driver's distance is turned into the 12-bit reading the
simulated sensor gives at that distance (Eq. 1), so controllers written for simulation read
the same counts. ``ls0`` … ``ls7`` (sensor_msgs/Illuminance) carry the same 8 devices'
ambient-light counts: the driver puts the raw 12-bit count in ``illuminance`` (it is not lux),
which is swarmstack's ``light`` reading as is (4095 dark – 0). ``gs0`` … ``gs2``
(sensor_msgs/Range, m) are the ground sensors: the driver maps the raw count linearly to a
"distance" (1000 → 0 m, 300 → 0.016 m), inverted here back to the count (0 black – 1023
white); its ``gs0`` is the left sensor, swarmstack's ground index 0 the right one, so the
order is reversed. ``tof`` (Range, m) is the ToF reading in mm (20–2000). ``pose``
(PoseStamped, a frame the swarm shares) is the positioning reading and places the robot for
the radio.

Commands: ``cmd_vel`` (geometry_msgs/Twist: linear.x m/s, angular.z rad/s) from the two wheel
speeds (m/s) over the 53 mm axle. The LED ring: ``led0``, ``led2``, ``led4``, ``led6``
(std_msgs/Bool) are the red ring LEDs 0, 2, 4, 6 (on when the red byte is not 0), ``led1``,
``led3``, ``led5``, ``led7`` (std_msgs/Int32, ``0xRRGGBB``) the RGB ring LEDs 1, 3, 5, 7. The
front and body LEDs (8, 9) have no topic and are not sent. Encoders: the driver publishes no
encoder counts (only odometry integrated from them), so the ``encoders`` reading has no topic;
the robot has no IMU reading in swarmstack.
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.bridge import ros_types as R
from swarmstack.bridge.messages import message_class as M
from swarmstack.bridge.ros_types import finite
from swarmstack.bridge.topics import CommandTopic, RobotTopics, SensorTopic
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


def _read_ls(k: int):
    def read(msg, rows, devices) -> None:
        count = finite(msg.illuminance, "an ambient-light count")
        rows["light"][0, k] = int(min(model.FULL_SCALE_12BIT, max(0, round(count))))
    return read


def _write_ls(k: int):
    def write(rows, t):
        return M("sensor_msgs/msg/Illuminance")(header=R.header(t, f"ls{k}"),
                                                illuminance=float(rows["light"][0, k]),
                                                variance=0.0)
    return write


# the driver's ground table: raw count 1000 at 0 m, 300 at 0.016 m, linear (and extrapolated)
GROUND_TABLE_COUNTS = (1000.0, 300.0)
GROUND_TABLE_M = (0.0, 0.016)
_GROUND_COUNTS_PER_M = (GROUND_TABLE_COUNTS[1] - GROUND_TABLE_COUNTS[0]) / \
    (GROUND_TABLE_M[1] - GROUND_TABLE_M[0])
N_GROUND = len(model.GROUND_POSITIONS_M)


def _ground_index(k: int) -> int:
    """swarmstack's ground index of the driver's ``gs<k>`` (its gs0 is on the left, y > 0;
    swarmstack's index 0 on the right)."""
    return N_GROUND - 1 - k


def _read_gs(k: int):
    def read(msg, rows, devices) -> None:
        d = _distance(msg)
        if math.isinf(d):
            raise ValueError(f"gs{k} is {d}: the driver never sends an infinite ground range")
        count = GROUND_TABLE_COUNTS[0] + _GROUND_COUNTS_PER_M * (d - GROUND_TABLE_M[0])
        rows["ground"][0, _ground_index(k)] = int(min(model.GROUND_FULL_SCALE,
                                                      max(0, round(count))))
    return read


def _write_gs(k: int):
    def write(rows, t):
        count = float(rows["ground"][0, _ground_index(k)])
        d = GROUND_TABLE_M[0] + (count - GROUND_TABLE_COUNTS[0]) / _GROUND_COUNTS_PER_M
        return R.range_msg(t, f"gs{k}", d, GROUND_TABLE_M[0], GROUND_TABLE_M[1],
                           math.radians(15.0))
    return write


def _red_led_msg(rgb):
    return M("std_msgs/msg/Bool")(data=bool(np.asarray(rgb)[0] > 0))


def _red_led_from(msg):
    return np.array([255.0 if msg.data else 0.0, 0.0, 0.0])


def _rgb_led_msg(rgb):
    r, g, b = (int(min(255, max(0, round(float(v))))) for v in np.asarray(rgb)[:3])
    return M("std_msgs/msg/Int32")(data=(r << 16) | (g << 8) | b)


def _rgb_led_from(msg):
    v = int(msg.data)
    return np.array([(v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF], dtype=np.float64)


def _led_topic(k: int) -> CommandTopic:
    ros_type, to_msg, from_msg = ("std_msgs/msg/Bool", _red_led_msg, _red_led_from) \
        if k in model.RED_ONLY_LEDS else ("std_msgs/msg/Int32", _rgb_led_msg, _rgb_led_from)
    return CommandTopic(f"led{k}", ros_type, "leds", "rgb bytes", to_msg, from_msg,
                        every_tick=False, part=k)


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


EPUCK2_TOPICS = RobotTopics(
    robot_type="epuck2",
    driver_node="epuck_driver",
    sensors=tuple(SensorTopic(f"ps{k}", "sensor_msgs/msg/Range", ("proximity",), _read_ps(k),
                              _write_ps(k)) for k in range(8)) + (
        SensorTopic("tof", "sensor_msgs/msg/Range", ("tof_mm",), _read_tof, _write_tof),
    ) + tuple(SensorTopic(f"ls{k}", "sensor_msgs/msg/Illuminance", ("light",), _read_ls(k),
                          _write_ls(k)) for k in range(8)) + tuple(
        SensorTopic(f"gs{k}", "sensor_msgs/msg/Range", ("ground",), _read_gs(k), _write_gs(k))
        for k in range(N_GROUND)) + (
        SensorTopic("pose", "geometry_msgs/msg/PoseStamped", ("pose",), R.read_pose,
                    R.write_pose),
    ),
    commands=(CommandTopic("cmd_vel", "geometry_msgs/msg/Twist", "wheels", "m/s", _twist,
                           _wheels_from_twist),) + tuple(_led_topic(k) for k in range(8)),
    stop={"wheels": 0.0},
)
