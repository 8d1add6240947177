"""E-Puck2: geometry, devices and their published parameters — wiring, not algorithms.

Sources: Stolfi & Danoy, *Design and analysis of an E-Puck2 robot plug-in for the ARGoS
simulator*, RAS 164 (2023), Tables 1–4 and §3–4; the plug-in's public code for mounting
positions. Angles are CCW from the heading (x forward, y left); the paper lists sensor angles
clockwise, converted here.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.actuators.leds import Leds
from swarmstack.actuators.wheels import Wheels
from swarmstack.physics.diffdrive import DiffDrive
from swarmstack.robots.base import (ActuatorSpec, Body, Command, DeviceSpec, EmitterLayout,
                                    RadioSpec, RobotType, ScriptGlobal, register)
from swarmstack.robots.devices import (BATTERY_SCRIPT, POSITIONING, blobs_table,
                                       differential_steering, host, set_led, set_leds,
                                       set_wheels)
from swarmstack.robots.options import (BatteryOptions, CameraOptions, NoiseOptions,
                                       WheelsOptions)

# --- body and drive (§3, plug-in entity) ---------------------------------------------------
RADIUS_M = 0.035            # 7 cm diameter
HEIGHT_M = 0.045            # 4.5 cm high
MASS_KG = 0.130
WHEEL_RADIUS_M = 0.0205
AXLE_M = 0.053              # inter-wheel distance
MAX_WHEEL_SPEED_M_S = 0.154  # stepper motors, 15.4 cm/s

# --- LEDs (Table 2) -----------------------------------------------------------------------
# The real robot numbers its ring LEDs clockwise from the front: LED k (1..8) at −(k−1)·45°.
# (The ARGoS plug-in places them counter-clockwise; set LED_RING_CLOCKWISE = False to match it.)
LED_RING_CLOCKWISE = True
LED_RING_RADIUS_M = 0.037
LED_RING_ELEVATION_M = 0.048
FRONT_LED_POSITION_M = (0.0345, -0.010, 0.032)
BODY_LED_RADIUS_M = 0.037
BODY_LED_ELEVATION_M = 0.043
BODY_LED_EMITTERS = 8        # the body LED glows all around: 8 emitters switched together
N_LEDS = 10                  # logical LEDs seen by controllers: 8 ring, front, body
RED_ONLY_LEDS = (0, 2, 4, 6, 8)   # 0-based: ring LEDs 1, 3, 5, 7 and the front LED
GREEN_ONLY_LEDS = (9,)            # the body LED
# Intensity a lit LED has for other robots' light sensors. Not published: a weak default so
# that LEDs register only at close range. DERIVED — replace with a measured value.
LED_LIGHT_INTENSITY = 0.1

# --- proximity and ambient light: the same 8 TCRT1000 devices (Table 3, §3.2, §4.1.1–2) ---
IR_ANGLES_CW_DEG = (15.0, 50.0, 90.0, 150.0, 210.0, 270.0, 310.0, 345.0)
IR_ANGLES_RAD = tuple(-math.radians(a) if a <= 180 else math.radians(360.0 - a)
                      for a in IR_ANGLES_CW_DEG)
IR_RING_RADIUS_M = 0.036
IR_ELEVATION_M = 0.043
PROXIMITY_RANGE_M = 0.05
PROXIMITY_EQ1 = (197.8633, -30.47182, 1.011635)   # a, b, c (fitted to maximum readings)
LIGHT_RANGE_M = 0.50
LIGHT_GAMMA = 0.075
FULL_SCALE_12BIT = 4095

# --- ground sensor (§3.3, plug-in positions) -----------------------------------------------
GROUND_POSITIONS_M = ((0.030, -0.009), (0.030, 0.0), (0.030, 0.009))
GROUND_FULL_SCALE = 1023

# --- time-of-flight VL53L0X (§3.4, §4.1.4) ---------------------------------------------------
TOF_POSITION_M = (0.032, 0.0, 0.036)
TOF_RANGE_M = 2.0
TOF_MIN_MM = 20
TOF_MAX_MM = 2000

# --- simulated encoders (§3.5, §4.1.5) --------------------------------------------------------
ENCODER_STEPS_PER_REV = 1000
ENCODER_STEPS_PER_M = ENCODER_STEPS_PER_REV / (2.0 * math.pi * WHEEL_RADIUS_M)  # 7763.66

# --- camera (§3.6, §4.1.6, Table 4) ----------------------------------------------------------
CAMERA_WIDTH_PX = 160
CAMERA_HEIGHT_PX = 120
CAMERA_HFOV_DEG = 30.0       # Table 4: the full horizontal angle is 30° (half-angle 15°)
CAMERA_RANGE_M = 1.0
CAMERA_POSITION_M = (0.0, 0.0, 0.03)   # the plug-in sets no offset; height for occlusion only

# --- range-and-bearing extension board (ARGoS generic RAB defaults) ----------------------------
RAB_RANGE_M = 0.80
RAB_PAYLOAD_BYTES = 2
RAB_ELEVATION_M = 0.048


def led_emitters() -> tuple[np.ndarray, np.ndarray]:
    """Body-frame emitter positions float64[17, 3] and the logical LED of each emitter."""
    sign = -1.0 if LED_RING_CLOCKWISE else 1.0
    ring = [sign * k * math.pi / 4 for k in range(8)]
    body = [k * 2 * math.pi / BODY_LED_EMITTERS for k in range(BODY_LED_EMITTERS)]
    pos = [(LED_RING_RADIUS_M * math.cos(a), LED_RING_RADIUS_M * math.sin(a),
            LED_RING_ELEVATION_M) for a in ring] + [FRONT_LED_POSITION_M] + \
        [(BODY_LED_RADIUS_M * math.cos(a), BODY_LED_RADIUS_M * math.sin(a),
          BODY_LED_ELEVATION_M) for a in body]
    owner = [*range(8), 8] + [9] * BODY_LED_EMITTERS
    return np.array(pos, dtype=np.float64), np.array(owner, dtype=np.int64)


def led_channel_mask() -> np.ndarray:
    """uint8[10, 3]: which colour channels each logical LED can show (red-only, green-only)."""
    mask = np.ones((N_LEDS, 3), dtype=np.uint8)
    for k in RED_ONLY_LEDS:
        mask[k] = (1, 0, 0)
    for k in GREEN_ONLY_LEDS:
        mask[k] = (0, 1, 0)
    return mask


# --- devices ----------------------------------------------------------------------------
# Each factory returns the device with the E-Puck2's published parameters; keyword arguments
# override any of them (noise, a different range for a what-if study, …). Sensor modules are
# imported only when a device is enabled: unused kernels cost no start-up time.
def proximity_device(**kw):
    from swarmstack.sensors import ranging
    from swarmstack.sensors.proximity import Proximity

    a, b, c = PROXIMITY_EQ1
    layout = ranging.RayLayout.ring(IR_ANGLES_RAD, IR_RING_RADIUS_M, IR_ELEVATION_M,
                                    PROXIMITY_RANGE_M)
    return Proximity(**{**dict(layout=layout, a=a, b=b, c=c, full_scale=FULL_SCALE_12BIT), **kw})


def light_device(**kw):
    from swarmstack.sensors.light import Light

    return Light(**{**dict(angles_rad=IR_ANGLES_RAD, ring_m=IR_RING_RADIUS_M,
                           elevation_m=IR_ELEVATION_M, range_m=LIGHT_RANGE_M, gamma=LIGHT_GAMMA,
                           full_scale=FULL_SCALE_12BIT), **kw})


def ground_device(**kw):
    from swarmstack.sensors.ground import Ground

    return Ground(**{**dict(positions_m=GROUND_POSITIONS_M, full_scale=GROUND_FULL_SCALE), **kw})


def tof_device(**kw):
    from swarmstack.sensors.tof import ToF

    return ToF(**{**dict(position_m=TOF_POSITION_M, range_m=TOF_RANGE_M, min_mm=TOF_MIN_MM,
                         max_mm=TOF_MAX_MM), **kw})


def encoders_device(**kw):
    from swarmstack.sensors.encoders import Encoders

    return Encoders(**{**dict(steps_per_m=ENCODER_STEPS_PER_M), **kw})


def camera_device(**kw):
    from swarmstack.sensors.camera import Camera

    return Camera(**{**dict(width_px=CAMERA_WIDTH_PX, height_px=CAMERA_HEIGHT_PX,
                            hfov_deg=CAMERA_HFOV_DEG, range_m=CAMERA_RANGE_M,
                            position_m=CAMERA_POSITION_M), **kw})


def battery_device(options: BatteryOptions, base_dir: Path | None = None):
    """One of the four published discharge models; a relative ``data_file`` is taken from
    ``base_dir`` (the experiment's folder)."""
    from swarmstack.power.battery import epuck2_battery
    from swarmstack.sensors.battery import Battery

    path = options.data_file
    if path is not None and base_dir is not None:
        path = Path(base_dir) / path
    return Battery(epuck2_battery(options.model, path=path, start_charge=options.start_charge,
                                  interpolation=options.interpolation))


def _noisy(factory):
    return lambda o, base_dir=None: factory(noise=o.noise, noise_level=o.level)


# how scripts (Buzz, Lua) see the readings: ARGoS's Buzz integration's conventions
def _value_angle(reading) -> dict:
    return {k: {"value": int(v), "angle": IR_ANGLES_RAD[k]} for k, v in enumerate(reading)}


DEVICES = {
    "proximity": DeviceSpec("proximity", NoiseOptions, _noisy(proximity_device),
                            "8 IR proximity sensors, int32[8] 0–4095 (Eq. 1)",
                            ScriptGlobal("proximity", _value_angle,
                                         "table 0–7 of {value = 0–4095, angle = rad}")),
    "light": DeviceSpec("light", NoiseOptions, _noisy(light_device),
                        "the same 8 IR devices as ambient-light sensors, int32[8] 4095 dark – 0",
                        ScriptGlobal("light", _value_angle,
                                     "table 0–7 of {value = 4095 dark – 0, angle}")),
    "ground": DeviceSpec("ground", NoiseOptions, _noisy(ground_device),
                         "3 ground sensors, int32[3] 0 black – 1023 white",
                         ScriptGlobal("ground", lambda r: {k: int(v) for k, v in enumerate(r)},
                                      "table 0–2 of 0 black – 1023 white")),
    "tof": DeviceSpec("tof", NoiseOptions, _noisy(tof_device),
                      "VL53L0X time-of-flight, tof_mm 20–2000",
                      ScriptGlobal("tof", int, "millimetres, 20–2000")),
    "encoders": DeviceSpec("encoders", NoiseOptions, _noisy(encoders_device),
                           "wheel encoders, int32[2] steps (1000 per revolution), wrapping int16",
                           ScriptGlobal("encoders",
                                        lambda r: {"left": int(r[0]), "right": int(r[1])},
                                        "{left, right} steps, wrapping int16")),
    "camera": DeviceSpec("camera", CameraOptions,
                         lambda o, base_dir=None: camera_device(max_blobs=o.max_blobs,
                                                                noise=o.noise,
                                                                noise_level=o.level),
                         "160 × 120 colour-blob camera, float64[B, 5]",
                         ScriptGlobal("camera", blobs_table,
                                      "table 0… of {column, row (px), color = {red, green, "
                                      "blue}}")),
    "battery": DeviceSpec("battery", BatteryOptions, battery_device,
                          "LiPo 1800 mAh, charge 0–1 (four discharge models)", BATTERY_SCRIPT),
    "positioning": POSITIONING,
    "differential_steering": differential_steering(AXLE_M),
}


# --- host API: what a controller calls, in Python, Buzz and Lua alike ---------------------------
# goto's turning mechanism (ARGoS's Buzz foot-bot controller): thresholds on the angle between
# the heading and the target vector
GOTO_NO_TURN_RAD = math.radians(10.0)
GOTO_SOFT_TURN_RAD = math.radians(70.0)
GOTO_HARD_TURN_RAD = math.radians(90.0)
_NO_TURN, _SOFT_TURN, _HARD_TURN = 0, 1, 2


def goto(robot, x_m: float, y_m: float) -> None:
    """Drive along the vector (x forward, y left) in the robot's frame: its length is the speed
    in m/s (capped at 0.154), its angle steers — straight within 10°, a soft turn (both wheels
    forward) up to 90°, turning on the spot beyond (back to soft below 70°)."""
    angle = math.atan2(y_m, x_m)
    speed = min(math.hypot(x_m, y_m), MAX_WHEEL_SPEED_M_S)
    a = abs(angle)
    state = robot.host_state.get("turning", _NO_TURN)
    if state != _HARD_TURN or a <= GOTO_SOFT_TURN_RAD:   # a hard turn goes on down to 70°
        state = _HARD_TURN if a > GOTO_HARD_TURN_RAD else \
            _NO_TURN if a <= GOTO_NO_TURN_RAD else _SOFT_TURN
    robot.host_state["turning"] = state
    if state == _NO_TURN:
        inner = outer = speed
    elif state == _SOFT_TURN:
        factor = (GOTO_HARD_TURN_RAD - a) / GOTO_HARD_TURN_RAD
        inner = speed * factor
        outer = speed * (2.0 - factor)
    else:
        inner, outer = -MAX_WHEEL_SPEED_M_S, MAX_WHEEL_SPEED_M_S
    w = robot.commands["wheels"]   # target on the left: the left wheel is the inner one
    w[0], w[1] = (inner, outer) if angle > 0 else (outer, inner)


def _emitter_layout() -> EmitterLayout:
    positions, owner = led_emitters()
    return EmitterLayout(positions, owner, led_channel_mask(), LED_LIGHT_INTENSITY)


EPUCK2 = register(RobotType(
    name="epuck2",
    body=Body.disc(RADIUS_M, HEIGHT_M, MASS_KG),
    dynamics=DiffDrive(AXLE_M),
    commands=(
        Command("wheels", np.float64, (2,), 0.0, "m/s", "left, right wheel speed"),
        Command("leds", np.uint8, (N_LEDS, 3), 0, "rgb bytes", "colour of each logical LED"),
    ),
    actuators=(
        ActuatorSpec("wheels", lambda o: Wheels(MAX_WHEEL_SPEED_M_S, o.noise, o.level),
                     WheelsOptions),
        ActuatorSpec("leds", lambda o: Leds(_emitter_layout().owner, led_channel_mask()),
                     needs_emitters=True),
    ),
    devices=DEVICES,
    emitters=_emitter_layout(),
    radio=RadioSpec(RAB_RANGE_M, RAB_PAYLOAD_BYTES, RAB_ELEVATION_M),
    host_api=(host(set_wheels, "Wheel speeds in m/s (clamped to ±0.154 m/s by the actuator).",
                   (0, 1)),
              host(set_led, "LED ``index`` (0-based: 0–7 ring clockwise from the front, 8 "
                   "front, 9 body) to ``(r, g, b)`` bytes (one tuple or three numbers); "
                   "channels an LED lacks are ignored."),
              host(set_leds, "All LEDs to one colour: ``(r, g, b)`` bytes, one tuple or three "
                   "numbers."),
              host(goto, lengths=(0, 1))),
    doc="GCtronic E-Puck2 (Stolfi & Danoy, RAS 164, 2023)",
))
