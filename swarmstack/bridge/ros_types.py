"""Building the common ROS 2 messages from plain numbers (rosbags message classes), and the
small number helpers the robot types' topics share."""

from __future__ import annotations

import math

import numpy as np

from swarmstack.bridge.messages import message_class as M


def rpy_from_quaternion(w: float, x: float, y: float, z: float) -> tuple[float, float, float]:
    """Roll, pitch, yaw (rad, ZYX) of a unit quaternion."""
    roll = math.atan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    s = max(-1.0, min(1.0, 2 * (w * y - z * x)))
    pitch = math.asin(s)
    yaw = math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    return roll, pitch, yaw


def quaternion_from_rpy(roll: float, pitch: float, yaw: float) -> tuple[float, ...]:
    """(w, x, y, z) of roll, pitch, yaw (rad, ZYX)."""
    cr, sr = math.cos(roll / 2), math.sin(roll / 2)
    cp, sp = math.cos(pitch / 2), math.sin(pitch / 2)
    cy, sy = math.cos(yaw / 2), math.sin(yaw / 2)
    return (cr * cp * cy + sr * sp * sy, sr * cp * cy - cr * sp * sy,
            cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy)


def finite(v: float, what: str) -> float:
    v = float(v)
    if not math.isfinite(v):
        raise ValueError(f"{what} is {v}")
    return v


def header(stamp_s: float, frame: str = ""):
    sec = math.floor(stamp_s)
    return M("std_msgs/msg/Header")(
        stamp=M("builtin_interfaces/msg/Time")(sec=int(sec),
                                               nanosec=int((stamp_s - sec) * 1e9)),
        frame_id=frame)


def vector3(x: float, y: float, z: float):
    return M("geometry_msgs/msg/Vector3")(x=float(x), y=float(y), z=float(z))


def quaternion(w: float, x: float, y: float, z: float):
    return M("geometry_msgs/msg/Quaternion")(x=float(x), y=float(y), z=float(z), w=float(w))


def colour(r: float, g: float, b: float, a: float = 255.0):
    return M("std_msgs/msg/ColorRGBA")(r=float(r), g=float(g), b=float(b), a=float(a))


def float32_array(values) -> object:
    layout = M("std_msgs/msg/MultiArrayLayout")(dim=[], data_offset=0)
    return M("std_msgs/msg/Float32MultiArray")(layout=layout,
                                               data=np.asarray(values, dtype=np.float32))


def zeros(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.float64)


def range_msg(stamp_s: float, frame: str, value: float, lo: float, hi: float, fov: float,
              infrared: bool = True):
    return M("sensor_msgs/msg/Range")(header=header(stamp_s, frame),
                                      radiation_type=1 if infrared else 0,
                                      field_of_view=float(fov), min_range=float(lo),
                                      max_range=float(hi), range=float(value), variance=0.0)


def read_pose(msg, rows, devices) -> None:
    """geometry_msgs/PoseStamped → the positioning reading x, y, z, roll, pitch, yaw."""
    p, q = msg.pose.position, msg.pose.orientation
    xyz = tuple(finite(v, "a position") for v in (p.x, p.y, p.z))
    rows["pose"][0] = (*xyz, *rpy_from_quaternion(*(finite(v, "an orientation")
                                                    for v in (q.w, q.x, q.y, q.z))))


def write_pose(rows, stamp_s: float):
    x, y, z, roll, pitch, yaw = (float(v) for v in rows["pose"][0])
    return M("geometry_msgs/msg/PoseStamped")(
        header=header(stamp_s, "world"),
        pose=M("geometry_msgs/msg/Pose")(
            position=M("geometry_msgs/msg/Point")(x=x, y=y, z=z),
            orientation=quaternion(*quaternion_from_rpy(roll, pitch, yaw))))
