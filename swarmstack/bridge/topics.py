"""What a robot type's ROS 2 driver publishes and subscribes, in swarmstack's terms.

A :class:`RobotTopics` value lists, for one robot type, the sensor topics (a message → rows of
readings, and back for simulated robots) and the command topics (a command array → a message
in the unit the driver expects). Topic names are relative: a robot called ``rvr_1`` has them
under its namespace ``/rvr_1``.

Units: every command of a robot type declares its unit (``Command.unit``) and every command
topic the unit its driver takes; :func:`convert` knows the pairs it may convert between and
refuses the others, so no command leaves in a unit nobody checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Optional

import numpy as np

# (from, to) -> factor
_FACTORS = {
    ("m/s", "m/s"): 1.0, ("cm/s", "cm/s"): 1.0, ("cm/s", "m/s"): 0.01, ("m/s", "cm/s"): 100.0,
    ("rad/s", "rad/s"): 1.0, ("rgb bytes", "rgb bytes"): 1.0,
}


class UnitError(ValueError):
    pass


def convert(values, from_unit: str, to_unit: str) -> np.ndarray:
    """``values`` (in ``from_unit``) in ``to_unit``; UnitError for a pair it does not know."""
    try:
        factor = _FACTORS[(from_unit, to_unit)]
    except KeyError:
        raise UnitError(f"no conversion from {from_unit!r} to {to_unit!r}") from None
    return np.asarray(values, dtype=np.float64) * factor


@dataclass(frozen=True)
class SensorTopic:
    """``read(msg, rows, devices)`` writes a message into ``rows`` (reading name → a one-robot
    array ``[1, …]``; every reading the type's topics carry) or raises ValueError for a
    well-formed message that still cannot be read (a scan of the wrong length, a NaN);
    ``write(rows, stamp_s)`` builds the message back from readings (simulated robots serving
    the topic). ``readings`` are the readings it carries."""

    topic: str
    ros_type: str
    readings: tuple[str, ...]
    read: Callable[[Any, Mapping[str, np.ndarray], Mapping[str, Any]], None]
    write: Callable[[Mapping[str, np.ndarray], float], Any]


@dataclass(frozen=True)
class CommandTopic:
    """The command array ``command`` (one robot's row, in the type's unit) → ``to_msg(values in
    unit)``; ``from_msg(msg)`` → values in ``unit`` (simulated robots taking the topic).

    ``part``: the topic carries only ``row[part]`` of the command (one LED of a ring whose
    driver has a topic per LED); ``to_msg`` gets and ``from_msg`` returns that part alone."""

    topic: str
    ros_type: str
    command: str
    unit: str
    to_msg: Callable[[np.ndarray], Any]
    from_msg: Callable[[Any], np.ndarray]
    every_tick: bool = True        # False: sent only when it changes (LEDs)
    part: Optional[int] = None


@dataclass(frozen=True)
class RobotTopics:
    robot_type: str
    driver_node: str               # the driver's node name, for the docs and fake robots
    sensors: tuple[SensorTopic, ...]
    commands: tuple[CommandTopic, ...]
    # readings computed from the others once they are in (the reference model):
    # derive(devices, rows, out) with out the one-robot slice of the derived reading
    derive: Optional[Callable[[Mapping[str, Any], Mapping[str, np.ndarray], np.ndarray],
                              None]] = None
    derived: tuple[str, ...] = ()
    derived_from: tuple[str, ...] = ()   # the readings ``derive`` reads
    stop: Mapping[str, float] = field(default_factory=dict)   # command -> value meaning "stop"
