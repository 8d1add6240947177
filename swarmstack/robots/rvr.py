"""Sphero RVR as the Mercator robot: geometry, devices and their parameters — wiring only.

Sources: Kegeleirs et al., *Mercator: hardware and software architecture for experiments in
swarm SLAM*, TR/IRIDIA/2022-012 (the report: §2, §4.1–4.4, Table 1); mounting positions and
plug-in constants of the public ARGoS plug-in ``argos3-rvr`` where the report gives none.
Angles are CCW from the heading (x forward, y left).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

import numpy as np

from swarmstack.actuators.leds import Leds
from swarmstack.actuators.wheels import Wheels
from swarmstack.physics.diffdrive import DiffDrive
from swarmstack.robots.base import (ActuatorSpec, Body, Command, DeviceSpec, EmitterLayout,
                                    RadioSpec, RobotType, ScriptGlobal, register)
from swarmstack.robots.devices import (POSITIONING, differential_steering, host, set_led,
                                       set_leds, set_wheels)
from swarmstack.robots.options import (ColourGroundOptions, FixedColourOptions, LidarOptions,
                                       NoiseOptions, RangefinderOptions, ReferenceOptions,
                                       SwitchOptions, WheelsOptions)
from swarmstack.sensors.scan import register_mast

# --- body and drive (report §4.1, §4.3; plug-in entity and physics model) ---------------------
# The report collides with "a cubed colliding box around the robot shape": the plug-in's
# 0.286 m square, which also encloses the cardboard hat (the bare RVR is 0.2159 × 0.1839 m).
BOX_LENGTH_M = 0.286
BOX_WIDTH_M = 0.286
HEIGHT_M = 0.114
MASS_KG = 2.0
TREAD_SPACING_M = 0.147
MAX_TREAD_SPEED_M_S = 1.555      # the RVR firmware limit, ±155.5 cm/s
# Table 1's wheel variables are tread speeds in cm/s, v ∈ [0, 155]: m/s = value / 100
REFERENCE_WHEELS_MAX = 155.0
REFERENCE_WHEELS_M_S_PER_UNIT = 0.01

# --- LEDs (report §4.3: 2 front, one per side, one back; plug-in offsets) ----------------------
# (The plug-in names the front pair and the sides with left and right swapped relative to its
# y-left frame; the coordinates are kept, the names here follow the frame.)
LED_ELEVATION_M = 0.0342
LED_POSITIONS_M = ((0.1144, 0.02288, LED_ELEVATION_M),    # 0 front-left
                   (0.1144, -0.02288, LED_ELEVATION_M),   # 1 front-right
                   (0.0, 0.1144, LED_ELEVATION_M),        # 2 left side
                   (0.0, -0.1144, LED_ELEVATION_M),       # 3 right side
                   (-0.1144, 0.0, LED_ELEVATION_M))       # 4 back
N_LEDS = 5
# What a lit LED counts for in other robots' light sensors: not published; DERIVED (as the
# E-Puck2's), weak so that LEDs register only at close range.
LED_LIGHT_INTENSITY = 0.1

# --- the hat: lidar housing on top, beacon for other robots' omnidirectional cameras ----------
# The lidar is the only thing at its height (report §2); its housing is seen by other RVRs'
# lidars as a cylinder of radius 0.035 m from the body top to 0.154 m, the top carrying the
# beacon LED the simulated omnidirectional camera looks for (§4.4).
LIDAR_HOUSING_RADIUS_M = 0.035
LIDAR_HOUSING_TOP_M = 0.154
LIDAR_PLANE_M = 0.134            # the scan plane, mid-housing
BEACON_HEIGHT_M = LIDAR_HOUSING_TOP_M
CAMERA_HEIGHT_M = LIDAR_HOUSING_TOP_M
CAMERA_RANGE_M = 10.0            # Table 1: neighbours at d ∈ [0, 10] m

# --- range-and-bearing radio: the report's robot has none; the 2024 plug-in's defaults were not
# found. DERIVED: the top of the lidar housing, 3 m, 10-byte payloads (ARGoS's drone defaults)
# so that Buzz controllers (which need neighbours) run on RVRs.
RAB_RANGE_M = 3.0
RAB_PAYLOAD_BYTES = 10
RAB_ELEVATION_M = LIDAR_HOUSING_TOP_M

# --- sensors (report §4.2) ---------------------------------------------------------------------
GROUND_POSITION_M = (0.05, 0.0)  # the plug-in samples the floor 5 cm ahead of the centre
GROUND_NOISE_MEAN = 0.0          # §4.2.1: N(0, 5) per channel
GROUND_NOISE_STD = 5.0
ACCELEROMETER_G_M_S2 = 9.81      # §4.2.3, Eq. 9: readings in g with G = 9.81 m/s²
LIGHT_POSITION_M = (0.108, 0.0, HEIGHT_M)   # front of the body, on top
LIGHT_GAIN_LUX_M2 = 138.9171     # DERIVED: the plug-in's constant as an inverse-square gain
LIGHT_RANGE_M = 2.5              # the plug-in ignores lights farther than 2.5 m
LIGHT_MAX_LUX = 16000.0          # Table 1
PROX_ANGLES_DEG = (45.0, 0.0, -45.0, -90.0, -135.0, 180.0, 135.0, 90.0)
PROX_ANGLES_RAD = tuple(math.radians(a) for a in PROX_ANGLES_DEG)
PROX_RING_M = 0.143
PROX_ELEVATION_M = 0.032
PROX_MIN_M = 0.05                # §4.2.9: [0.05, 2] m
PROX_MAX_M = 2.0
LIDAR_RAYS = 719                 # §4.2.10
LIDAR_FIRST_ANGLE_RAD = math.pi / 16
LIDAR_RING_M = 0.035
LIDAR_MIN_M = 0.10               # §4.2.10: [0.10, 12] m
LIDAR_MAX_M = 12.0

register_mast("rvr", LIDAR_HOUSING_RADIUS_M, HEIGHT_M, LIDAR_HOUSING_TOP_M)


# --- devices ---------------------------------------------------------------------------------
def colour_ground_device(o: ColourGroundOptions, base_dir: Optional[Path] = None):
    from swarmstack.sensors.colour_ground import ColourGround

    return ColourGround((GROUND_POSITION_M,), *_ground_noise(o))


def fixed_colour_device(o: FixedColourOptions, base_dir: Optional[Path] = None):
    from swarmstack.sensors.colour_labeller import FixedColour

    return FixedColour((GROUND_POSITION_M,), tuple(o.palette), *_ground_noise(o))


def _ground_noise(o) -> tuple[float, float]:
    """(mean, σ) of the options, the report's defaults where unset."""
    return (GROUND_NOISE_MEAN if o.noise_mean is None else o.noise_mean,
            GROUND_NOISE_STD if o.noise_std is None else o.noise_std)


def _lazy(module: str, name: str):
    """A factory for a device without options, importing its module on first use (unused
    kernels cost no start-up time)."""
    def make(o: SwitchOptions, base_dir: Optional[Path] = None):
        import importlib

        return getattr(importlib.import_module(f"swarmstack.sensors.{module}"), name)()
    return make


def accelerometer_device(o: SwitchOptions, base_dir: Optional[Path] = None):
    from swarmstack.sensors.accelerometer import Accelerometer

    return Accelerometer(ACCELEROMETER_G_M_S2)


def light_device(o: NoiseOptions, base_dir: Optional[Path] = None):
    from swarmstack.sensors.lux import Lux

    return Lux(LIGHT_POSITION_M, LIGHT_GAIN_LUX_M2, LIGHT_RANGE_M, LIGHT_MAX_LUX, o.noise,
               o.level)


def proximity_device(o: RangefinderOptions, base_dir: Optional[Path] = None):
    from swarmstack.sensors.rangefinder import Rangefinders

    return Rangefinders(PROX_ANGLES_RAD, PROX_RING_M, PROX_ELEVATION_M, PROX_MIN_M, o.max_range,
                        o.noise_mean, o.noise_std)


def lidar_device(o: LidarOptions, base_dir: Optional[Path] = None):
    from swarmstack.sensors.lidar import Lidar

    return Lidar(LIDAR_RAYS, LIDAR_FIRST_ANGLE_RAD, LIDAR_RING_M, LIDAR_PLANE_M, LIDAR_MIN_M,
                 LIDAR_MAX_M, LIDAR_MAX_M if o.no_hit == "max" else 0.0, o.noise_width)


def reference_device(o: ReferenceOptions, base_dir: Optional[Path] = None):
    from swarmstack.robots.rvr_reference import Reference

    prox = proximity_device(RangefinderOptions())
    light = light_device(NoiseOptions())
    lidar = lidar_device(LidarOptions(noise_width=o.lidar_noise_width))
    std = GROUND_NOISE_STD if o.ground_noise_std is None else o.ground_noise_std
    return Reference(prox, light, lidar, GROUND_POSITION_M, std,
                     tuple(o.palette), o.ground == "labelled", o.prox_range, CAMERA_HEIGHT_M,
                     o.camera_range, o.neighbours == "lidar", o.max_neighbours)


# --- how scripts (Buzz, Lua) see the readings ---------------------------------------------------
def _rgb(reading) -> dict:
    return {"red": int(reading[0]), "green": int(reading[1]), "blue": int(reading[2])}


def _xyz(reading) -> dict:
    return {"x": float(reading[0]), "y": float(reading[1]), "z": float(reading[2])}


def _ranges(reading) -> dict:
    return {k: {"value": float(v), "angle": PROX_ANGLES_RAD[k]} for k, v in enumerate(reading)}


def _neighbours(count, dist, angle) -> dict:
    return {"count": int(count), "list": {k: {"distance": float(dist[k]),
                                               "angle": float(angle[k])}
                                           for k in range(int(count))}}


def reference_table(r) -> dict:
    """One robot's reference-model record as script languages see it."""
    return {
        "proximity": {k: {"value": float(r["prox"][k]), "angle": float(r["prox_angle"][k])}
                      for k in range(8)},
        "light": float(r["light"]),
        "ground": _rgb(r["ground"]),
        "neighbours": _neighbours(r["neighbours"], r["neighbour_distance"],
                                  r["neighbour_angle"]),
        **{way: _neighbours(r[f"{way}_count"], r[f"{way}_distance"], r[f"{way}_angle"])
           for way in ("camera", "lidar")},
    }


DEVICES = {
    "ground_color": DeviceSpec("ground_color", ColourGroundOptions, colour_ground_device,
                               "floor colour, int32[3] R, G, B 0–255, noise N(0, 5)",
                               ScriptGlobal("ground_color", _rgb, "{red, green, blue} 0–255")),
    "fixed_color": DeviceSpec("fixed_color", FixedColourOptions, fixed_colour_device,
                              "labelled floor colour, int32[4] R, G, B of the label, its index",
                              ScriptGlobal("fixed_color",
                                           lambda r: {**_rgb(r), "label": int(r[3])},
                                           "{red, green, blue, label (0-based index)}")),
    "velocity": DeviceSpec("velocity", SwitchOptions,
                           _lazy("velocity", "Velocity"),
                           "float64[2] m/s along the boot-time axes (Eqs. 3–5)",
                           ScriptGlobal("velocity", lambda r: {"x": float(r[0]), "y": float(r[1])},
                                        "{x, y} m/s")),
    "accelerometer": DeviceSpec("accelerometer", SwitchOptions, accelerometer_device,
                                "float64[3] g along the boot-time axes (Eqs. 6–9)",
                                ScriptGlobal("accelerometer", _xyz, "{x, y, z} g")),
    "gyroscope": DeviceSpec("gyroscope", SwitchOptions,
                            _lazy("gyroscope", "Gyroscope"),
                            "float64[3] rad/s about x, y, z (Eqs. 10–11)",
                            ScriptGlobal("gyroscope", _xyz, "{x, y, z} rad/s")),
    "imu": DeviceSpec("imu", SwitchOptions, _lazy("imu", "Imu"),
                      "float64[3] roll, pitch, yaw (rad), shared north",
                      ScriptGlobal("imu", lambda r: {"roll": float(r[0]), "pitch": float(r[1]),
                                                     "yaw": float(r[2])},
                                   "{roll, pitch, yaw} rad")),
    "light": DeviceSpec("light", NoiseOptions, light_device, "ambient light, lux 0–16000",
                        ScriptGlobal("light", float, "lux 0–16000")),
    "locator": DeviceSpec("locator", SwitchOptions, _lazy("locator", "Locator"),
                          "float64[2] m from the boot position, world axes (Eq. 12)",
                          ScriptGlobal("locator", lambda r: {"x": float(r[0]), "y": float(r[1])},
                                       "{x, y} m")),
    "quaternion": DeviceSpec("quaternion", SwitchOptions,
                             _lazy("quaternion", "QuaternionSensor"),
                             "float64[4] w, x, y, z relative to boot (Eq. 13)",
                             ScriptGlobal("quaternion",
                                          lambda r: dict(zip("wxyz", (float(v) for v in r))),
                                          "{w, x, y, z}")),
    "proximity": DeviceSpec("proximity", RangefinderOptions, proximity_device,
                            "8 rangefinders, float64[8] m in [0.05, 2], −inf too close, "
                            "+inf nothing", ScriptGlobal("proximity", _ranges,
                                                         "table 0–7 of {value = m, angle}")),
    "lidar": DeviceSpec("lidar", LidarOptions, lidar_device,
                        "719-ray lidar, float64[719] m in [0.10, 12]; 0 too close, 12 no return",
                        ScriptGlobal("lidar", lambda r: {k: float(v) for k, v in enumerate(r)},
                                     "table 0–718 of m")),
    "reference": DeviceSpec("reference", ReferenceOptions, reference_device,
                            "the reference model of Table 1 (a record, see docs/rvr.md)",
                            ScriptGlobal("reference", reference_table,
                                         "{proximity, light, ground, neighbours, camera, lidar}")),
    "positioning": POSITIONING,
    "differential_steering": differential_steering(TREAD_SPACING_M),
}


# --- host API ------------------------------------------------------------------------------------
def set_treads(robot, left: float, right: float) -> None:
    """The reference model's wheels (Table 1): tread speeds in cm/s, magnitude ≤ 155 (the sign
    drives backwards); m/s = value / 100."""
    w = robot.commands["wheels"]
    lim = REFERENCE_WHEELS_MAX
    w[0] = min(lim, max(-lim, float(left))) * REFERENCE_WHEELS_M_S_PER_UNIT
    w[1] = min(lim, max(-lim, float(right))) * REFERENCE_WHEELS_M_S_PER_UNIT


def _emitter_layout() -> EmitterLayout:
    return EmitterLayout(np.array(LED_POSITIONS_M, dtype=np.float64),
                         np.arange(N_LEDS, dtype=np.int64), np.ones((N_LEDS, 3), np.uint8),
                         LED_LIGHT_INTENSITY)


RVR = register(RobotType(
    name="rvr",
    body=Body.box(BOX_LENGTH_M, BOX_WIDTH_M, HEIGHT_M, MASS_KG),
    dynamics=DiffDrive(TREAD_SPACING_M, turning_moves=True),   # a box: corners sweep
    commands=(
        Command("wheels", np.float64, (2,), 0.0, "m/s", "left, right tread speed"),
        Command("leds", np.uint8, (N_LEDS, 3), 0, "rgb bytes", "colour of each LED"),
    ),
    actuators=(
        ActuatorSpec("wheels", lambda o: Wheels(MAX_TREAD_SPEED_M_S, o.noise, o.level),
                     WheelsOptions),
        ActuatorSpec("leds", lambda o: Leds(_emitter_layout().owner,
                                            np.ones((N_LEDS, 3), np.uint8)),
                     needs_emitters=True),
    ),
    devices=DEVICES,
    emitters=_emitter_layout(),
    radio=RadioSpec(RAB_RANGE_M, RAB_PAYLOAD_BYTES, RAB_ELEVATION_M),
    host_api=(host(set_wheels, "Tread speeds in m/s (clamped to ±1.555 m/s by the actuator).",
                   (0, 1)),
              host(set_treads),
              host(set_led, "LED ``index`` (0 front-left, 1 front-right, 2 left, 3 right, 4 "
                   "back) to ``(r, g, b)``."),
              host(set_leds, "All five LEDs to one colour ``(r, g, b)`` bytes.")),
    doc="Sphero RVR as Mercator (Kegeleirs et al., TR/IRIDIA/2022-012)",
))
