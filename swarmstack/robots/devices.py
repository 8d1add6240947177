"""Devices several robot types carry as they are, declared once: a type lists them in its
``devices`` next to its own."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from swarmstack.robots.base import DeviceSpec, ScriptGlobal
from swarmstack.robots.options import PositioningOptions


def positioning_device(options: PositioningOptions, base_dir: Optional[Path] = None):
    from swarmstack.sensors.positioning import Positioning

    return Positioning(options.position_noise, options.yaw_noise)


def pose_table(reading) -> dict:
    """One robot's ``pose`` reading as script languages see it (ARGoS's positioning sensor)."""
    x, y, z, roll, pitch, yaw = (float(v) for v in reading)
    return {"position": {"x": x, "y": y, "z": z},
            "orientation": {"yaw": yaw, "pitch": pitch, "roll": roll}}


POSITIONING = DeviceSpec(
    "positioning", PositioningOptions, positioning_device,
    "the robot's pose from a tracking system, float64[6] x, y, z, roll, pitch, yaw",
    script=ScriptGlobal("pose", pose_table,
                        "{position = {x, y, z} m, orientation = {yaw, pitch, roll} rad}"))
