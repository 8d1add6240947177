"""Devices several robot types carry as they are, declared once: a type lists them in its
``devices`` next to its own."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from swarmstack.robots.base import DeviceSpec, ScriptGlobal
from swarmstack.robots.options import PositioningOptions, SwitchOptions


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


def steering_table(reading) -> dict:
    """ARGoS's differential-steering sensor as scripts see it (cm, cm/s)."""
    vl, vr, dl, dr, axis = (float(v) for v in reading)
    return {"velocity_left": vl, "velocity_right": vr, "distance_left": dl,
            "distance_right": dr, "axis_length": axis}


def differential_steering(axis_length_m: float) -> DeviceSpec:
    """ARGoS's differential-steering sensor for a type whose wheels are ``axis_length_m``
    apart (its drive state must hold ``wheel_speed``)."""

    def make(options: SwitchOptions, base_dir: Optional[Path] = None):
        from swarmstack.sensors.differential_steering import DifferentialSteering

        return DifferentialSteering(axis_length_m)

    return DeviceSpec(
        "differential_steering", SwitchOptions, make,
        "ARGoS's differential-steering sensor: float64[5] wheel speeds (cm/s), distances "
        "covered in the last tick (cm), axis length (cm)",
        script=ScriptGlobal("wheels", steering_table,
                            "{velocity_left, velocity_right (cm/s), distance_left, "
                            "distance_right (cm), axis_length (cm)}"))
