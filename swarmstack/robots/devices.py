"""What several robot types share, declared once: devices a type lists in its ``devices`` next
to its own, how scripts see common readings, and host functions."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from swarmstack.robots.base import DeviceSpec, HostFn, ScriptGlobal
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
    return dict(zip(("velocity_left", "velocity_right", "distance_left", "distance_right",
                     "axis_length"), (float(v) for v in reading)))


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


BATTERY_SCRIPT = ScriptGlobal("battery", lambda r: {"charge": float(r)}, "{charge = 0–1}")


def blobs_table(reading, grey=None) -> dict:
    """A blob camera's reading as scripts see it (ARGoS's Buzz integration's conventions);
    ``grey(r, g, b)``, when given, adds each blob's grey level."""
    blobs = {}
    for col, row, r, g, b in reading:
        if col < 0:
            break
        blobs[len(blobs)] = {"column": float(col), "row": float(row),
                             "color": {"red": int(r), "green": int(g), "blue": int(b)},
                             **({"grey": grey(r, g, b)} if grey is not None else {})}
    return blobs


# --- host functions: a type lists them in its ``host_api`` with its own words for them ------
def set_wheels(robot, left_m_s: float, right_m_s: float) -> None:
    """Wheel (or tread) speeds in m/s, clamped to the robot's maximum by the actuator."""
    w = robot.commands["wheels"]
    w[0] = left_m_s
    w[1] = right_m_s


def set_led(robot, index: int, *rgb) -> None:
    """LED ``index`` to ``(r, g, b)`` bytes (one tuple or three numbers)."""
    robot.commands["leds"][int(index)] = rgb[0] if len(rgb) == 1 else rgb


def set_leds(robot, *rgb) -> None:
    """Every LED to one colour: ``(r, g, b)`` bytes, one tuple or three numbers."""
    robot.commands["leds"][:] = rgb[0] if len(rgb) == 1 else rgb


def host(fn, doc: str = "", lengths: tuple[int, ...] = ()) -> HostFn:
    """``fn`` as the host function of its name; ``doc`` defaults to its docstring."""
    return HostFn(fn.__name__, fn, doc or fn.__doc__ or "", lengths)
