"""The Mercator RVR's ROS interface (report §3; the public ``rvr_ros`` driver): its topics as
readings and commands of swarmstack's ``rvr`` type.

Sensors (driver → controller): ``rvr/ground_color`` and ``rvr/fixed_color`` (ColorRGBA,
channels 0–255), ``rvr/ambient_light`` (Illuminance, lux), ``rvr/imu`` (Imu: orientation,
gyroscope rad/s, acceleration m/s² — our accelerometer reads g), ``rvr/odom`` (Odometry: locator
position, quaternion relative to boot, velocity), ``ranges`` (the TeraRanger node's
RangeArray, 8 ranges in m) and ``scan`` (the YDLIDAR node's LaserScan, 719 ranges in m).
Commands (controller → driver): ``rvr/wheels_speed`` (Float32MultiArray ``[left, right]`` in
**m/s**: the driver calls the SDK's SI tank drive; the ARGoS controllers write cm/s, Table 1's
unit, which ``set_treads`` converts before the command array) and ``rvr/rgb_leds``
(``rvr_ros/Leds``: five ColorRGBA, channels 0–255). ``pose`` (PoseStamped, in a frame the
swarm shares, e.g. from motion capture) is the positioning reading and places the robot for
the radio.
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.bridge import ros_types as R
from swarmstack.bridge.messages import message_class as M
from swarmstack.bridge.ros_types import finite, quaternion_from_rpy, rpy_from_quaternion
from swarmstack.bridge.topics import CommandTopic, RobotTopics, SensorTopic
from swarmstack.robots import rvr as model

G_M_S2 = model.ACCELEROMETER_G_M_S2
LIDAR_INCREMENT_RAD = 2 * math.pi / model.LIDAR_RAYS
LIDAR_ANGLES = model.LIDAR_FIRST_ANGLE_RAD + LIDAR_INCREMENT_RAD * np.arange(model.LIDAR_RAYS)


def _rgb(colour) -> tuple[int, int, int]:
    """A ColorRGBA's channels as bytes 0–255."""
    return tuple(int(min(255, max(0, round(finite(v, "a colour channel")))))
                 for v in (colour.r, colour.g, colour.b))


# --- sensors: message -> readings ----------------------------------------------------------
def _read_ground(msg, rows, devices) -> None:
    rows["ground_color"][0] = _rgb(msg)


def _nearest(palette, rgb) -> int:
    pal = np.asarray(palette, dtype=np.int64).reshape(-1, 3)
    return int(np.argmin(((pal - np.asarray(rgb, dtype=np.int64)) ** 2).sum(axis=1)))


def _read_fixed(msg, rows, devices) -> None:
    # the labeller node already publishes a label's colour: its index is the nearest label
    rgb = _rgb(msg)
    out = rows["fixed_color"]
    out[0, :3] = rgb
    out[0, 3] = _nearest(devices["fixed_color"].palette, rgb)


def _read_light(msg, rows, devices) -> None:
    rows["light"][0] = min(model.LIGHT_MAX_LUX, max(0.0, finite(msg.illuminance, "lux")))


def _finite(what: str, *values) -> tuple:
    return tuple(finite(v, what) for v in values)


def _read_imu(msg, rows, devices) -> None:
    q, w, a = msg.orientation, msg.angular_velocity, msg.linear_acceleration
    vals = _finite("an IMU value", q.w, q.x, q.y, q.z)
    if "imu" in rows:
        rows["imu"][0] = rpy_from_quaternion(*vals)
    if "gyroscope" in rows:
        rows["gyroscope"][0] = _finite("a rate", w.x, w.y, w.z)
    if "accelerometer" in rows:
        rows["accelerometer"][0] = tuple(v / G_M_S2 for v in _finite("an acceleration",
                                                                     a.x, a.y, a.z))


def _read_odom(msg, rows, devices) -> None:
    p, q, v = msg.pose.pose.position, msg.pose.pose.orientation, msg.twist.twist.linear
    if "locator" in rows:
        rows["locator"][0] = _finite("a position", p.x, p.y)
    if "quaternion" in rows:
        rows["quaternion"][0] = _finite("a quaternion value", q.w, q.x, q.y, q.z)
    if "velocity" in rows:
        rows["velocity"][0] = _finite("a velocity", v.x, v.y)


def _read_ranges(msg, rows, devices) -> None:
    if len(msg.ranges) != 8:
        raise ValueError(f"a RangeArray of the RVR has 8 ranges, not {len(msg.ranges)}")
    d = np.array([r.range for r in msg.ranges], dtype=np.float64)
    if np.isnan(d).any():
        raise ValueError("a range is NaN")
    rows["proximity"][0] = d          # REP 117: −inf too close, +inf nothing — ours too


def _read_scan(msg, rows, devices) -> None:
    d = np.asarray(msg.ranges, dtype=np.float64)
    if d.size != model.LIDAR_RAYS:
        raise ValueError(f"a scan of the RVR has {model.LIDAR_RAYS} ranges, not {d.size}")
    # no return (NaN, +inf) reads 12 m, too close (−inf) 0, as the simulated lidar
    d = np.where(np.isnan(d) | np.isposinf(d), model.LIDAR_MAX_M, d)
    rows["lidar"][0] = np.clip(np.where(np.isneginf(d), 0.0, d), 0.0, model.LIDAR_MAX_M)


# --- sensors: readings -> message (simulated robots serving the topics) --------------------
def _write_light(rows, t):
    return M("sensor_msgs/msg/Illuminance")(header=R.header(t, "light"),
                                            illuminance=float(rows["light"][0]), variance=0.0)


def _write_imu(rows, t):
    rpy = rows["imu"][0] if "imu" in rows else (0.0, 0.0, 0.0)
    gyro = rows["gyroscope"][0] if "gyroscope" in rows else (0.0, 0.0, 0.0)
    acc = rows["accelerometer"][0] * G_M_S2 if "accelerometer" in rows else (0.0, 0.0, 0.0)
    return M("sensor_msgs/msg/Imu")(
        header=R.header(t, "imu"), orientation=R.quaternion(*quaternion_from_rpy(*rpy)),
        orientation_covariance=R.zeros(9), angular_velocity=R.vector3(*gyro),
        angular_velocity_covariance=R.zeros(9), linear_acceleration=R.vector3(*acc),
        linear_acceleration_covariance=R.zeros(9))


def _write_odom(rows, t):
    xy = rows["locator"][0] if "locator" in rows else (0.0, 0.0)
    q = rows["quaternion"][0] if "quaternion" in rows else (1.0, 0.0, 0.0, 0.0)
    v = rows["velocity"][0] if "velocity" in rows else (0.0, 0.0)
    w = rows["gyroscope"][0] if "gyroscope" in rows else (0.0, 0.0, 0.0)   # as the driver's
    pose = M("geometry_msgs/msg/PoseWithCovariance")(
        pose=M("geometry_msgs/msg/Pose")(
            position=M("geometry_msgs/msg/Point")(x=float(xy[0]), y=float(xy[1]), z=0.0),
            orientation=R.quaternion(*q)),
        covariance=R.zeros(36))
    twist = M("geometry_msgs/msg/TwistWithCovariance")(
        twist=M("geometry_msgs/msg/Twist")(linear=R.vector3(v[0], v[1], 0.0),
                                           angular=R.vector3(*w)),
        covariance=R.zeros(36))
    return M("nav_msgs/msg/Odometry")(header=R.header(t, "odom"), child_frame_id="base_link",
                                      pose=pose, twist=twist)


def _write_ranges(rows, t):
    rs = [R.range_msg(t, f"range_{k}", v, model.PROX_MIN_M, model.PROX_MAX_M, 0.05)
          for k, v in enumerate(rows["proximity"][0])]
    return M("teraranger_array/msg/RangeArray")(header=R.header(t, "ranges"), ranges=rs)


def _write_scan(rows, t):
    return M("sensor_msgs/msg/LaserScan")(
        header=R.header(t, "laser"), angle_min=model.LIDAR_FIRST_ANGLE_RAD,
        angle_max=model.LIDAR_FIRST_ANGLE_RAD + LIDAR_INCREMENT_RAD * (model.LIDAR_RAYS - 1),
        angle_increment=LIDAR_INCREMENT_RAD, time_increment=0.0, scan_time=0.0,
        range_min=model.LIDAR_MIN_M, range_max=model.LIDAR_MAX_M,
        ranges=np.asarray(rows["lidar"][0], dtype=np.float32),
        intensities=np.zeros(0, dtype=np.float32))


# --- the reference model from real readings -------------------------------------------------
def _derive_reference(devices, rows, out) -> None:
    """Table 1's record from the readings the topics brought: prox from the 8 ranges, light,
    ground (labelled or raw), neighbours from lidar clusters — the real robot's path (there is
    no omnidirectional camera on the robot)."""
    from swarmstack.robots.rvr_reference import clusters, prox_from_ranges

    device = devices["reference"]
    ref = out
    ref["prox"][0] = prox_from_ranges(rows["proximity"][0], device.prox_range_m)
    ref["light"][0] = rows["light"][0]
    rgb = rows["ground_color"][0]
    if device.labelled:
        pal = np.asarray(device.palette, dtype=np.int64).reshape(-1, 3)
        rgb = pal[_nearest(pal, rgb)]
    ref["ground"][0] = rgb
    count, dist, ang = clusters(rows["lidar"], LIDAR_ANGLES, device.max_neighbours)
    m = device.max_neighbours
    c = int(count[0])
    ref["lidar_count"][0] = c
    ref["lidar_distance"][0] = np.where(np.arange(m) < c, dist[0, :m], np.inf)
    ref["lidar_angle"][0] = np.where(np.arange(m) < c, ang[0, :m], 0.0)
    ref["camera_count"][0] = 0
    ref["neighbours"][0] = c
    ref["neighbour_distance"][0] = ref["lidar_distance"][0]
    ref["neighbour_angle"][0] = ref["lidar_angle"][0]


# --- commands --------------------------------------------------------------------------------
def _wheels_msg(v):
    # the driver rounds to 0.01 m/s itself; the firmware's limit is enforced here, as the
    # simulated actuator does (commands are not passed through the simulated actuators)
    lim = model.MAX_TREAD_SPEED_M_S
    return R.float32_array(np.clip(v, -lim, lim))


def _wheels_from(msg):
    d = np.asarray(msg.data, dtype=np.float64)
    if d.shape != (2,) or not np.isfinite(d).all():
        raise ValueError(f"wheels_speed needs [left, right], finite; got {d.tolist()}")
    return d


def _leds_from(msg):
    if len(msg.led_colors) != model.N_LEDS:
        raise ValueError(f"rgb_leds needs {model.N_LEDS} colours, not {len(msg.led_colors)}")
    return np.array([_rgb(c) for c in msg.led_colors], dtype=np.float64)


RVR_TOPICS = RobotTopics(
    robot_type="rvr",
    driver_node="rvr_driver",
    sensors=(
        SensorTopic("rvr/ground_color", "std_msgs/msg/ColorRGBA", ("ground_color",),
                    _read_ground, lambda rows, t: R.colour(*rows["ground_color"][0])),
        SensorTopic("rvr/fixed_color", "std_msgs/msg/ColorRGBA", ("fixed_color",),
                    _read_fixed, lambda rows, t: R.colour(*rows["fixed_color"][0, :3])),
        SensorTopic("rvr/ambient_light", "sensor_msgs/msg/Illuminance", ("light",),
                    _read_light, _write_light),
        SensorTopic("rvr/imu", "sensor_msgs/msg/Imu", ("imu", "gyroscope", "accelerometer"),
                    _read_imu, _write_imu),
        SensorTopic("rvr/odom", "nav_msgs/msg/Odometry", ("locator", "quaternion", "velocity"),
                    _read_odom, _write_odom),
        SensorTopic("ranges", "teraranger_array/msg/RangeArray", ("proximity",),
                    _read_ranges, _write_ranges),
        SensorTopic("scan", "sensor_msgs/msg/LaserScan", ("lidar",), _read_scan, _write_scan),
        # the pose in a frame the swarm shares (motion capture …): positioning, and the radio
        SensorTopic("pose", "geometry_msgs/msg/PoseStamped", ("pose",), R.read_pose,
                    R.write_pose),
    ),
    commands=(
        CommandTopic("rvr/wheels_speed", "std_msgs/msg/Float32MultiArray", "wheels", "m/s",
                     _wheels_msg, _wheels_from),
        CommandTopic("rvr/rgb_leds", "rvr_ros/msg/Leds", "leds", "rgb bytes",
                     lambda rgb: M("rvr_ros/msg/Leds")(led_colors=[R.colour(*c)
                                                                   for c in np.asarray(rgb)]),
                     _leds_from, every_tick=False),
    ),
    derive=_derive_reference,
    derived=("reference",),
    derived_from=("proximity", "light", "ground_color", "lidar"),
    stop={"wheels": 0.0},
)
