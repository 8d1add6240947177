"""Crazyflie expansion decks: the AI-deck camera and the LED-ring deck — wiring, not algorithms.

Sources: Stolfi & Danoy, *An ARGoS plug-in for the Crazyflie drone* (arXiv 2401.16948, 2024),
§3.1 (body and LED), §3.1.1 (onboard camera) and §4.1 (camera calibration); the plug-in's public
code for mounting points and defaults. The Crazyflie type (``robots/crazyflie.py``) mounts them.

**AI-deck camera** (Himax HM01B0). A 320 × 320 image with a 50° full aperture, looking forward
(along the body's +x, as the deck's camera does and as §4.1's calibration places its lights:
2 m in front of the drone). It is the shared coloured-blob camera (``sensors/camera.py``): it
detects the arena's lights and the lit LEDs of other robots — other drones' LED rings, the
E-Puck2's LEDs — reporting each as a blob ``(column, row, r, g, b)`` with column and row in
[0, 319]; lights outside the 50° cone, beyond the range or hidden are not reported. With square
pixels the vertical angle is also 50°, so a light 25° left, up, right or down of the axis lands
on column 0, row 0, column 319 or row 319: §4.1's four lights, 2 m away and 1.8652 m apart
(2·atan(0.9326 / 2) = 50.0°), come out at (0, 159.5), (159.5, 0), (319, 159.5), (159.5, 319),
within a pixel of the paper's (0, 159), (160, 0), (319, 159), (160, 318). The plug-in's own
parameterisation (a 33.75° half-diagonal aperture, 50.6° across each side) would put them
2.2 px inside the border; the measured 50° is used.

Greyscale. The HM01B0 is monochrome, but the plug-in reports the colour of what it detects (the
paper names its calibration lights red, green, blue and white). The default ``color = "rgb"``
does the same; ``color = "grey"`` reports only what a monochrome sensor can tell, the light's
luma (BT.601) in all three colour fields. Scripts always get both: ``color`` and ``grey``.

Mounting: at the body origin, as the plug-in anchors it (its height only matters for which
lights are occluded). Range 3 m: the plug-in's default, not a measurement.

**LED-ring deck.** The real deck has 12 RGB LEDs, but the paper (§3.1) and the plug-in model
the deck as one RGB LED at the bottom of the body (the body origin), all of it switched as one
colour; so does this type: ``N_LEDS = 1`` logical LED, one emitter at the body origin. Other
robots' cameras and light sensors see it (the owner never sees its own). Emitters are points
that shine in every direction: "pointing down" is not modelled, an E-Puck2 camera level with a
hovering drone sees its LED as the plug-in's cameras do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional

import numpy as np
from pydantic import Field

from swarmstack.robots.base import EmitterLayout, ScriptGlobal
from swarmstack.robots.devices import blobs_table
from swarmstack.robots.options import CameraOptions, SwitchOptions

# --- AI-deck camera (§3.1.1, §4.1) --------------------------------------------------------------
CAMERA_WIDTH_PX = 320
CAMERA_HEIGHT_PX = 320
CAMERA_APERTURE_DEG = 50.0        # §4.1: full aperture, confirmed with lights 2 m away
CAMERA_RANGE_M = 3.0              # plug-in default (not measured)
CAMERA_POSITION_M = (0.0, 0.0, 0.0)   # plug-in: the body's origin anchor, looking along +x

# --- LED-ring deck (§3.1) -----------------------------------------------------------------------
N_LEDS = 1                        # the plug-in's single bottom RGB LED
LED_POSITION_M = (0.0, 0.0, 0.0)  # the body origin (plug-in LED elevation 0)
# Intensity a lit LED has for other robots' light sensors. Not published: the E-Puck2's weak
# default, so that the LED registers only at close range. DERIVED — replace with a measured value.
LED_LIGHT_INTENSITY = 0.1


class AIDeckOptions(CameraOptions):
    """``sensors.camera`` of a Crazyflie: the AI-deck camera (absent unless enabled)."""

    range: float = Field(CAMERA_RANGE_M, gt=0, le=100)     # m
    color: Literal["rgb", "grey"] = "rgb"


def aideck_device(options: Optional[AIDeckOptions] = None, base_dir: Optional[Path] = None,
                  **kw):
    """The AI-deck camera with its published parameters; readings float64[max_blobs, 5] named
    ``camera``. Keyword arguments override any parameter (for what-if studies)."""
    from swarmstack.sensors.camera import Camera

    o = options if options is not None else AIDeckOptions()
    return Camera(**{**dict(width_px=CAMERA_WIDTH_PX, height_px=CAMERA_HEIGHT_PX,
                            hfov_deg=CAMERA_APERTURE_DEG, range_m=o.range,
                            position_m=CAMERA_POSITION_M, max_blobs=o.max_blobs,
                            noise=o.noise, noise_level=o.level, grey=o.color == "grey",
                            name="camera"), **kw})


def led_ring_layout() -> EmitterLayout:
    """One logical RGB LED (all channels) with one emitter at the body origin."""
    return EmitterLayout(np.array([LED_POSITION_M], dtype=np.float64),
                         np.zeros(1, dtype=np.int64), np.ones((N_LEDS, 3), dtype=np.uint8),
                         LED_LIGHT_INTENSITY)


def grey_level(r: float, g: float, b: float) -> int:
    """BT.601 luma of an RGB colour (0–255): what the monochrome HM01B0 sees of it."""
    return int(round(0.299 * r + 0.587 * g + 0.114 * b))


camera_script = ScriptGlobal("camera", lambda reading: blobs_table(reading, grey_level),
                             "table 0… of {column, row (px, 0–319), color = {red, green, "
                             "blue}, grey = 0–255}")


# --- downward camera (search-and-rescue target detection) -----------------------------------------
# The thesis (§5.4.1) only says "a downward facing camera using blob detection"; the angle is
# chosen: the AI-deck's 50° aperture pointed down, so a drone 2 m up sees a 0.93 m radius.
DOWN_CAMERA_FOV_DEG = 50.0        # chosen (see above)


class DownCameraOptions(SwitchOptions):
    """``sensors.down_camera`` of a Crazyflie: a camera looking straight down that reports the
    robots under it (``targets``: the names of the target groups; empty: every other group)."""

    targets: list[str] = Field(default_factory=list)
    fov: float = Field(DOWN_CAMERA_FOV_DEG, gt=0, lt=180)        # degrees, full cone
    miss: float = Field(0.0, ge=0, le=1)                        # per target per tick
    max_targets: int = Field(4, ge=1, le=64)


def down_camera_device(options: DownCameraOptions, base_dir: Optional[Path] = None):
    import math

    from swarmstack.sensors.down_camera import DownCamera

    return DownCamera(math.radians(options.fov), tuple(options.targets), options.miss,
                      options.max_targets)


def down_camera_script():
    from swarmstack.sensors.down_camera import targets_table

    return ScriptGlobal("down_camera", targets_table,
                        "table 0… of {id, x, y} (m, world frame), nearest first")
