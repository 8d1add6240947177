"""Crazyflie 2.x: body, flight, decks, battery and radio — wiring, not algorithms.

Sources: Stolfi & Danoy, *An ARGoS plug-in for the Crazyflie drone* (arXiv 2401.16948, 2024):
§3 (27 g, 92 × 92 × 29 mm), §3.2 (velocity and position controllers), §4.2–4.3 (Tables 1–2:
the behaviour the flight controller is tuned to), §3.2.1 (range-and-bearing: the plug-in's
3 m range and 10-byte payload). The flight model and its tuned constants are in
``physics/quadrotor.py``; the decks (AI-deck camera, LED ring) in ``robots/crazyflie_decks.py``;
the battery in ``power/crazyflie.py``.

A drone starts on the floor with its motors off. ``takeoff(h)`` rises to ``h`` metres above
the floor; then ``goto``/``move_by`` (position mode) or ``set_velocity``/``set_yaw_rate``
(velocity mode) fly it, and ``land()`` brings it down. A position or velocity command before
take-off is an error naming the robot and the tick. Batched controllers write the commands
``mode`` (int8[n, 1]: one per drone), ``target`` and ``velocity`` directly
(``actuators/flight.py``).

Group options (``flight = { … }``): ``position_controller = "pd"`` (default, tuned to the
paper's Table 2) or ``"pid"`` (an integral term and explicit damping: the final errors of
Table 2 vanish); ``ceiling`` (m, default 2.5: the highest the drone's top may go; higher
set-points are clamped and counted in the drive state's ``clamped``); ``on_empty = "land"`` or
``"fall"`` (what a drone does when its battery is empty).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal, Optional

import numpy as np
from pydantic import Field

from swarmstack.actuators import flight as fl
from swarmstack.actuators.leds import Leds
from swarmstack.physics import quadrotor as qr
from swarmstack.robots.base import (ActuatorSpec, Body, Command, DeviceSpec, HostFn, RadioSpec,
                                    RobotType, ScriptGlobal, register)
from swarmstack.robots.devices import POSITIONING
from swarmstack.robots.options import Options

# --- body (§3; robot-models.md §2.1) -----------------------------------------------------------
RADIUS_M = 0.046            # the 92 mm frame inside a disc
HEIGHT_M = 0.029
MASS_KG = 0.027

# --- flight limits (Table 2, Fig. 8) ------------------------------------------------------------
MAX_SPEED_M_S = qr.MAX_SPEED_M_S                 # 10 m/s
POSITION_MAX_YAW_RATE_RAD_S = qr.MAX_YAW_RATE_RAD_S   # 90 °/s in position mode
VELOCITY_MAX_YAW_RATE_RAD_S = math.radians(360.0)     # velocity mode (Table 1 commands 180 °/s)
DEFAULT_CEILING_M = qr.DEFAULT_CEILING_M

# --- range-and-bearing (plug-in defaults, robot-models.md §2.6) ---------------------------------
RAB_RANGE_M = 3.0
RAB_PAYLOAD_BYTES = 10
RAB_ELEVATION_M = 0.018

GAINS = {"pd": (qr.POSITION_KP, qr.POSITION_KI, qr.POSITION_KD),
         "pid": (qr.PID_KP, qr.PID_KI, qr.PID_KD)}


class FlightOptions(Options):
    """``flight = { position_controller, ceiling, on_empty }`` of a Crazyflie group."""

    position_controller: Literal["pd", "pid"] = "pd"
    ceiling: float = Field(DEFAULT_CEILING_M, gt=HEIGHT_M, le=1000.0)
    on_empty: Literal["land", "fall"] = "land"


def flight_actuator(options: Optional[FlightOptions]):
    o = options if options is not None else FlightOptions()
    kp, ki, kd = GAINS[o.position_controller]
    return fl.Flight(kp, ki, kd, o.ceiling, HEIGHT_M, MAX_SPEED_M_S,
                     VELOCITY_MAX_YAW_RATE_RAD_S, o.on_empty)


# --- devices: the decks and the battery live in their own modules (imported when enabled) -------
def _camera_options():
    from swarmstack.robots.crazyflie_decks import AIDeckOptions

    return AIDeckOptions


def camera_device(options, base_dir: Optional[Path] = None):
    from swarmstack.robots.crazyflie_decks import aideck_device

    return aideck_device(options, base_dir)


class _FlightBattery:
    """The battery device, also handing its charge to the flight model (drive ``battery``)
    so that an empty drone lands or falls."""

    def __init__(self, device):
        self._device = device

    def __getattr__(self, name):
        return getattr(self._device, name)

    def update(self, world, group, keys, out, state) -> None:
        self._device.update(world, group, keys, out, state)
        world.drive[group.index]["battery"][:] = out


def battery_device(options, base_dir: Optional[Path] = None):
    from swarmstack.power.crazyflie import battery_device as make

    return _FlightBattery(make(options, base_dir))


def _devices() -> dict:
    from swarmstack.robots.options import CrazyflieBatteryOptions
    from swarmstack.robots.crazyflie_decks import (DownCameraOptions, camera_script,
                                                   down_camera_device, down_camera_script)

    return {
        "camera": DeviceSpec("camera", _camera_options(), camera_device,
                             "AI-deck 320 × 320 camera (50°), float64[B, 5] blobs",
                             script=camera_script),
        "battery": DeviceSpec("battery", CrazyflieBatteryOptions, battery_device,
                              "LiPo, charge 0–1 (the paper's cubic discharge)",
                              script=ScriptGlobal("battery", lambda r: {"charge": float(r)},
                                                  "{charge = 0–1}")),
        "positioning": POSITIONING,
        "down_camera": DeviceSpec("down_camera", DownCameraOptions, down_camera_device,
                                  "downward camera: the ground targets below, float64[T, 3] "
                                  "(id, x, y)", script=down_camera_script()),
    }


def _emitter_layout():
    from swarmstack.robots.crazyflie_decks import led_ring_layout

    return led_ring_layout()


# --- host API: Python views, Buzz and Lua alike ---------------------------------------------------
def _not_flying(robot, what: str):
    return ValueError(f"robot {robot.id} of group {robot._group!r}: {what} at tick {robot.tick} "
                      "before takeoff()")


def takeoff(robot, height_m: float) -> None:
    """Take off (motors on) and rise to ``height_m`` metres above the floor, where it holds."""
    c = robot.commands
    c["mode"][0] = fl.TAKEOFF
    c["target"][:] = (math.nan, math.nan, float(height_m), math.nan)
    robot.host_state["flying"] = True


def land(robot) -> None:
    """Descend where it is and stop the motors on the floor."""
    robot.commands["mode"][0] = fl.CMD_LAND
    robot.host_state["flying"] = False


def _position(robot, what: str, x: float, y: float, z: float, relative: bool) -> None:
    if not robot.host_state.get("flying"):
        raise _not_flying(robot, what)
    c = robot.commands
    c["mode"][0] = fl.MOVE_BY if relative else fl.CMD_POSITION
    t = c["target"]
    t[0], t[1], t[2] = float(x), float(y), float(z)


def goto(robot, x_m: float, y_m: float, z_m: float) -> None:
    """Fly to the absolute position (x, y, z) in metres (position mode)."""
    _position(robot, "goto", x_m, y_m, z_m, False)


def move_by(robot, dx_m: float, dy_m: float, dz_m: float) -> None:
    """Fly by (dx, dy, dz) metres from where the drone is (position mode)."""
    _position(robot, "move_by", dx_m, dy_m, dz_m, True)


def set_velocity(robot, vx_m_s: float, vy_m_s: float, vz_m_s: float) -> None:
    """Fly at (vx, vy, vz) m/s in the world frame (velocity mode; the yaw rate is kept)."""
    if not robot.host_state.get("flying"):
        raise _not_flying(robot, "set_velocity")
    c = robot.commands
    c["mode"][0] = fl.CMD_VELOCITY
    v = c["velocity"]
    v[0], v[1], v[2] = float(vx_m_s), float(vy_m_s), float(vz_m_s)


def set_yaw(robot, yaw_rad: float) -> None:
    """Turn to the heading ``yaw_rad`` (CCW from +x) holding the position (position mode)."""
    if not robot.host_state.get("flying"):
        raise _not_flying(robot, "set_yaw")
    c = robot.commands
    if int(c["mode"][0]) not in (fl.CMD_POSITION, fl.TAKEOFF):
        c["target"][:3] = math.nan  # hold where it is
    c["mode"][0] = fl.CMD_POSITION
    c["target"][3] = float(yaw_rad)


def set_yaw_rate(robot, rate_rad_s: float) -> None:
    """Turn at ``rate_rad_s`` (velocity mode; the linear velocity command is kept)."""
    if not robot.host_state.get("flying"):
        raise _not_flying(robot, "set_yaw_rate")
    c = robot.commands
    if int(c["mode"][0]) != fl.CMD_VELOCITY:
        c["velocity"][:3] = 0.0
    c["mode"][0] = fl.CMD_VELOCITY
    c["velocity"][3] = float(rate_rad_s)


def set_leds(robot, *rgb) -> None:
    """The LED ring's colour: ``(r, g, b)`` bytes, one tuple or three numbers."""
    robot.commands["leds"][:] = rgb[0] if len(rgb) == 1 else rgb


def _leds_actuator(options):
    layout = _emitter_layout()
    return Leds(layout.owner, layout.channels)


CRAZYFLIE = register(RobotType(
    name="crazyflie",
    body=Body.disc(RADIUS_M, HEIGHT_M, MASS_KG),
    dynamics=qr.Quadrotor(HEIGHT_M),
    commands=(
        Command("mode", np.int8, (1,), fl.HOLD, "", "0 hold, 1 position, 2 velocity, 3 land, "
                                                  "4 takeoff, 5 move by"),
        Command("target", np.float64, (4,), math.nan, "m, rad", "x, y, z, yaw (NaN: keep)"),
        Command("velocity", np.float64, (4,), 0.0, "m/s, rad/s", "vx, vy, vz, yaw rate"),
        Command("leds", np.uint8, (1, 3), 0, "rgb bytes", "LED ring colour"),
    ),
    actuators=(
        ActuatorSpec("flight", flight_actuator, FlightOptions),
        ActuatorSpec("leds", _leds_actuator, needs_emitters=True),
    ),
    devices=_devices(),
    emitters=_emitter_layout(),
    radio=RadioSpec(RAB_RANGE_M, RAB_PAYLOAD_BYTES, RAB_ELEVATION_M),
    host_api=(HostFn("takeoff", takeoff, takeoff.__doc__, lengths=(0,)),
              HostFn("land", land, land.__doc__),
              HostFn("goto", goto, goto.__doc__, lengths=(0, 1, 2)),
              HostFn("move_by", move_by, move_by.__doc__, lengths=(0, 1, 2)),
              HostFn("set_velocity", set_velocity, set_velocity.__doc__, lengths=(0, 1, 2)),
              HostFn("set_yaw", set_yaw, set_yaw.__doc__),
              HostFn("set_yaw_rate", set_yaw_rate, set_yaw_rate.__doc__),
              HostFn("set_leds", set_leds, set_leds.__doc__)),
    doc="Bitcraze Crazyflie 2.x (Stolfi & Danoy, arXiv 2401.16948, 2024)",
))
