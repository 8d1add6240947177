"""Crazyflie 2.x: body, flight, decks, battery and radio — wiring, not algorithms.

Sources: Stolfi & Danoy, *An ARGoS plug-in for the Crazyflie drone* (arXiv 2401.16948, 2024):
§3 (27 g, 92 × 92 × 29 mm), §3.2 (velocity and position controllers), §4.2–4.3 (Tables 1–2:
the behaviour the flight controller is tuned to), §3.2.1 (range-and-bearing: the plug-in's
3 m range and 10-byte payload). The flight model and its tuned constants are in
``physics/quadrotor.py``; the decks (AI-deck camera, LED ring) in ``robots/crazyflie_decks.py``;
the battery in ``power/crazyflie.py``.

A drone starts on the floor with its motors off. ``takeoff(h)`` rises to ``h`` metres above
the floor; then ``goto``/``move_by`` (position mode) or ``set_velocity``/``set_yaw_rate``
(velocity mode) fly it, and ``land()`` brings it down. The commands of one control step are
applied in order: ``takeoff(1.0)`` then ``goto(x, y, z)`` takes off and flies to (x, y, z). A
command the drone cannot obey (a position or velocity command on the floor or while landing, a
velocity command in the step of a take-off) is an error naming the robot and the tick. Batched
controllers write the commands ``mode`` (int8[n, 1]: one per drone), ``target`` and
``velocity`` directly (``actuators/flight.py``).

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
from swarmstack.robots.base import (ActuatorSpec, Body, Command, DeviceSpec, RadioSpec,
                                    RobotType, register)
from swarmstack.robots.crazyflie_decks import (AIDeckOptions, DownCameraOptions, aideck_device,
                                               camera_script, down_camera_device,
                                               down_camera_script, led_ring_layout)
from swarmstack.robots.devices import BATTERY_SCRIPT, POSITIONING, host, set_leds
from swarmstack.robots.options import CrazyflieBatteryOptions, Options

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


# --- devices: the decks in their own module, the battery in power/crazyflie.py (imported when
# enabled) ----------------------------------------------------------------------------------------
class _FlightBattery:
    """The battery device, also handing its charge to the flight model (drive ``battery``)
    so that an empty drone lands or falls."""

    def __init__(self, device):
        self._device = device

    def __getattr__(self, name):
        return getattr(self._device, name)

    def plan(self, world, group, keys, out, state):
        discharge, battery = (self._device.plan(world, group, keys, out, state),
                              world.drive[group.index]["battery"])

        def update() -> None:
            discharge()
            battery[:] = out
        return update


def battery_device(options, base_dir: Optional[Path] = None):
    from swarmstack.power.crazyflie import battery_device as make

    return _FlightBattery(make(options, base_dir))


DEVICES = {
    "camera": DeviceSpec("camera", AIDeckOptions, aideck_device,
                         "AI-deck 320 × 320 camera (50°), float64[B, 5] blobs",
                         script=camera_script),
    "battery": DeviceSpec("battery", CrazyflieBatteryOptions, battery_device,
                          "LiPo, charge 0–1 (the paper's cubic discharge)",
                          script=BATTERY_SCRIPT),
    "positioning": POSITIONING,
    "down_camera": DeviceSpec("down_camera", DownCameraOptions, down_camera_device,
                              "downward camera: the ground targets below, float64[T, 3] "
                              "(id, x, y)", script=down_camera_script()),
}


# --- host API: Python views, Buzz and Lua alike ---------------------------------------------------
# The commands a controller gives in one control step are applied in order, as one set-point
# (the command arrays hold one per drone): a take-off followed by goto, move_by or set_yaw
# takes off and flies to that set-point; move_by after this step's goto or take-off moves from
# the point they set; goto after move_by replaces it. A command the drone cannot obey raises a
# ValueError naming the robot and the tick: a position or velocity command on the floor or while
# landing (land() then goto() included), and a velocity command in the step of a take-off from
# the floor (it would replace the take-off before the drone leaves the floor). Whether the drone
# flies is the flight model's own state, so a reset or a landing never leaves a controller
# sending commands the model ignores. A drone whose battery is empty obeys nothing any more
# (``actuators/flight.py``): commands to it are taken and have no effect.
_POSITION_FAMILY = (fl.CMD_POSITION, fl.MOVE_BY, fl.TAKEOFF)


def _model(robot) -> tuple:
    """(the drone's group's drive state, its row there, its body's index in the world)."""
    m = robot.host_state.get("model")
    if m is None:
        world = robot._clock
        g = world.group(robot._group)
        m = robot.host_state["model"] = (world.drive[g.index], robot._index,
                                         g.start + robot._index)
    return m


def _this_step(robot) -> int:
    """The command mode this step's host calls wrote so far (``HOLD``: none yet)."""
    return fl.HOLD if robot.host_state.get("tick") != robot.tick else int(robot.commands["mode"][0])


def _write(robot, mode: int) -> None:
    robot.commands["mode"][0] = mode
    robot.host_state["tick"] = robot.tick


def _refused(robot, what: str, why: str) -> ValueError:
    return ValueError(f"robot {robot.id} of group {robot._group!r}: {what} at tick {robot.tick} "
                      f"{why}")


def _rising(robot, what: str, position: bool) -> bool:
    """Raises unless the drone can obey ``what`` after this step's earlier commands; True when
    this step took off from the floor (a position set-point then goes with the take-off)."""
    drive, row, _ = _model(robot)
    if drive["dead"][row]:
        return False  # the battery is empty: nothing is obeyed any more
    step = _this_step(robot)
    if step == fl.CMD_LAND:
        raise _refused(robot, what, "after land() in the same step: the drone is landing "
                       "(call takeoff() first)")
    mode = int(drive["mode"][row])
    airborne = mode == qr.POSITION or mode == qr.VELOCITY
    if step == fl.TAKEOFF and not airborne:
        if position:
            return True
        raise _refused(robot, what, "in the same step as takeoff(): a velocity set-point would "
                       "replace the take-off before the drone leaves the floor (give it from "
                       "the next step, or fly there with goto/move_by)")
    if mode == qr.LAND:
        raise _refused(robot, what, "while the drone is landing (call takeoff() first)")
    if not airborne:
        raise _refused(robot, what, "before takeoff(): the drone is on the floor")
    return False


def _setpoint(robot, step: int) -> tuple:
    """(x, y, z, yaw) of the position set-point this step's commands so far give (``step``
    one of ``_POSITION_FAMILY``), as the flight actuator will work it out."""
    drive, row, i = _model(robot)
    pose = robot._clock.bodies.pose[:, i]
    here = (pose[0], pose[1], pose[2], pose[5])
    base = tuple(drive["target"][row]) if drive["mode"][row] == qr.POSITION else here
    t = robot.commands["target"]
    by = step == fl.MOVE_BY   # move_by: relative to where the drone is
    xyz = tuple((here[k] + t[k] if by else t[k]) if t[k] == t[k] else base[k] for k in range(3))
    return (*xyz, t[3] if t[3] == t[3] else base[3])


def takeoff(robot, height_m: float) -> None:
    """Take off (motors on) and rise to ``height_m`` metres above the floor, where it holds;
    after a goto or move_by of the same step, to that point at this height."""
    c = robot.commands
    step = _this_step(robot)
    if step == fl.TAKEOFF:
        c["target"][2] = float(height_m)
    elif step in _POSITION_FAMILY:
        x, y, _, yaw = _setpoint(robot, step)
        c["target"][:] = (x, y, float(height_m), yaw)
    else:
        c["target"][:] = (math.nan, math.nan, float(height_m), math.nan)
    _write(robot, fl.TAKEOFF)


def land(robot) -> None:
    """Descend where it is and stop the motors on the floor."""
    _write(robot, fl.CMD_LAND)


def goto(robot, x_m: float, y_m: float, z_m: float) -> None:
    """Fly to the absolute position (x, y, z) in metres (position mode); right after
    ``takeoff()`` in the same step, take off and fly there."""
    rising = _rising(robot, "goto", True)
    t = robot.commands["target"]
    if _this_step(robot) not in _POSITION_FAMILY:
        t[3] = math.nan  # the heading: this step's set_yaw, else the current one
    t[0], t[1], t[2] = float(x_m), float(y_m), float(z_m)
    _write(robot, fl.TAKEOFF if rising else fl.CMD_POSITION)


def move_by(robot, dx_m: float, dy_m: float, dz_m: float) -> None:
    """Fly by (dx, dy, dz) metres from where the drone is (position mode), or from the point
    this step's earlier goto, move_by or take-off set."""
    rising = _rising(robot, "move_by", True)
    step = _this_step(robot)
    t = robot.commands["target"]
    if step in _POSITION_FAMILY:
        x, y, z, yaw = _setpoint(robot, step)
        t[:] = (x + float(dx_m), y + float(dy_m), z + float(dz_m), yaw)
        _write(robot, fl.TAKEOFF if rising else fl.CMD_POSITION)
        return
    t[:] = (float(dx_m), float(dy_m), float(dz_m), math.nan)
    _write(robot, fl.MOVE_BY)


def set_velocity(robot, vx_m_s: float, vy_m_s: float, vz_m_s: float) -> None:
    """Fly at (vx, vy, vz) m/s in the world frame (velocity mode; the yaw rate is kept)."""
    _rising(robot, "set_velocity", False)
    v = robot.commands["velocity"]
    v[0], v[1], v[2] = float(vx_m_s), float(vy_m_s), float(vz_m_s)
    _write(robot, fl.CMD_VELOCITY)


def set_yaw(robot, yaw_rad: float) -> None:
    """Turn to the heading ``yaw_rad`` (CCW from +x) holding the position (position mode), or
    the set-point this step's earlier goto, move_by or take-off gave."""
    _rising(robot, "set_yaw", True)
    step = _this_step(robot)
    c = robot.commands
    if step not in _POSITION_FAMILY:
        c["target"][:3] = math.nan  # hold where it is
        step = fl.CMD_POSITION
    c["target"][3] = float(yaw_rad)
    _write(robot, step)


def set_yaw_rate(robot, rate_rad_s: float) -> None:
    """Turn at ``rate_rad_s`` (velocity mode; the linear velocity command is kept)."""
    _rising(robot, "set_yaw_rate", False)
    c = robot.commands
    if int(c["mode"][0]) != fl.CMD_VELOCITY:
        c["velocity"][:3] = 0.0
    c["velocity"][3] = float(rate_rad_s)
    _write(robot, fl.CMD_VELOCITY)


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
        ActuatorSpec("leds", lambda o: Leds(led_ring_layout().owner, led_ring_layout().channels),
                     needs_emitters=True),
    ),
    devices=DEVICES,
    emitters=led_ring_layout(),
    radio=RadioSpec(RAB_RANGE_M, RAB_PAYLOAD_BYTES, RAB_ELEVATION_M),
    host_api=(host(takeoff, lengths=(0,)), host(land), host(goto, lengths=(0, 1, 2)),
              host(move_by, lengths=(0, 1, 2)), host(set_velocity, lengths=(0, 1, 2)),
              host(set_yaw), host(set_yaw_rate),
              host(set_leds, "The LED ring's colour: ``(r, g, b)`` bytes, one tuple or three "
                   "numbers.")),
    doc="Bitcraze Crazyflie 2.x (Stolfi & Danoy, arXiv 2401.16948, 2024)",
))
