"""ROS 2 message types: CDR (de)serialisation and RIHS01 type hashes through rosbags' typestore.

The store holds the Jazzy standard messages plus the two the Mercator robot adds (its LED
message ``rvr_ros/msg/Leds``, the TeraRanger driver's ``RangeArray``) and swarmstack's radio
frame (``swarmstack_msgs/msg/RadioFrame``).
"""

from __future__ import annotations

import functools
from typing import Any

# the RVR driver's LED message and the TeraRanger Multiflex driver's range array, as their
# packages define them
_EXTRA_MSGS = {
    "rvr_ros/msg/Leds": "std_msgs/ColorRGBA[5] led_colors\n",
    "teraranger_array/msg/RangeArray": "std_msgs/Header header\nsensor_msgs/Range[] ranges\n",
    # one robot's range-and-bearing frame of one tick on the swarm's radio topic: who sent it,
    # from where (a frame shared by the swarm, m and rad), and the bytes
    "swarmstack_msgs/msg/RadioFrame": ("std_msgs/Header header\nstring robot\nfloat64 x\n"
                                       "float64 y\nfloat64 z\nfloat64 yaw\nuint8[] payload\n"),
}


@functools.cache
def typestore():
    """The shared typestore (built once: parsing the message definitions takes ~50 ms)."""
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    store = get_typestore(Stores.ROS2_JAZZY)
    for name, text in _EXTRA_MSGS.items():
        store.register(get_types_from_msg(text, name))
    return store


def dds_name(ros_type: str) -> str:
    """``std_msgs/msg/ColorRGBA`` → ``std_msgs::msg::dds_::ColorRGBA_`` (the type name rmw
    implementations put on the wire)."""
    parts = ros_type.split("/")
    if len(parts) != 3 or not all(parts):
        raise ValueError(f"a ROS 2 type is 'package/msg/Name', not {ros_type!r}")
    return f"{parts[0]}::{parts[1]}::dds_::{parts[2]}_"


@functools.cache
def type_hash(ros_type: str) -> str:
    """The type's RIHS01 hash string (REP 2011), e.g. ``RIHS01_df66…``."""
    return typestore().hash_rihs01(_known(ros_type))


def _known(ros_type: str) -> str:
    if ros_type not in typestore().types:
        raise ValueError(f"unknown ROS 2 message type {ros_type!r}")
    return ros_type


def message_class(ros_type: str):
    return typestore().types[_known(ros_type)]


def encode(msg: Any, ros_type: str) -> bytes:
    """CDR, little-endian, with its 4-byte encapsulation header."""
    return bytes(typestore().serialize_cdr(msg, ros_type))


def decode(data: bytes, ros_type: str) -> Any:
    """The message, or ValueError when ``data`` is not a well-formed ``ros_type``."""
    try:
        return typestore().deserialize_cdr(data, ros_type)
    except Exception as exc:   # rosbags raises struct, index, unicode … errors on bad bytes
        raise ValueError(f"malformed {ros_type}: {exc}") from None
