"""The robot types that have a ROS 2 bridge, and their topics by type name."""

from __future__ import annotations

from swarmstack.bridge.epuck2 import EPUCK2_TOPICS
from swarmstack.bridge.rvr import RVR_TOPICS
from swarmstack.bridge.topics import RobotTopics

TOPICS: dict[str, RobotTopics] = {t.robot_type: t for t in (EPUCK2_TOPICS, RVR_TOPICS)}


def topics_for(robot_type: str) -> RobotTopics:
    try:
        return TOPICS[robot_type]
    except KeyError:
        raise ValueError(f"no ROS 2 bridge for robot type {robot_type!r} (bridged: "
                         f"{', '.join(sorted(TOPICS))})") from None


def is_bridged(robot_type: str) -> bool:
    """Whether robots of this type have ROS 2 topics here."""
    return robot_type in TOPICS
