"""Option schemas of devices and actuators, shared by every robot type that carries them.

A robot group in an experiment file enables a device with ``name = true`` or a table of these
options; each type lists which devices it has (``RobotType.devices``), so a sensor the type does
not carry is refused by name.
"""

# No `from __future__ import annotations`: pydantic reads the models' annotations as they are
# built, at every start, and strings would each be compiled and evaluated (2 ms in all).

from typing import Annotated, Literal, Optional

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from swarmstack.world.colors import to_rgb


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SwitchOptions(Options):
    """A device without options: ``name = true`` (the others add theirs to ``enabled``)."""

    enabled: bool = True


class NoiseOptions(SwitchOptions):
    """A device with ARGoS-style noise (``uniform`` U(−level, level) or ``gaussian`` σ = level,
    added to the normalised reading; the RVR's light sensor: in lux)."""

    noise: Literal["none", "uniform", "gaussian"] = "none"
    level: float = Field(0.0, ge=0)


class CameraOptions(NoiseOptions):
    max_blobs: int = Field(64, ge=1, le=4096)


class BatteryOptions(SwitchOptions):
    model: Literal["simple", "linear", "cubic", "approximated"] = "simple"
    start_charge: float = Field(1.0, ge=0, le=1)
    interpolation: Literal["published", "plain"] = "published"
    data_file: Optional[str] = None


class WheelsOptions(Options):
    """Relative wheel-speed error: ``uniform`` U(−level, level) or ``gaussian`` σ = level."""

    noise: Literal["none", "uniform", "gaussian"] = "none"
    level: float = Field(0.0, ge=0, le=1)


class PositioningOptions(SwitchOptions):
    """A positioning system (motion capture, ARGoS's positioning sensor): Gaussian errors of
    standard deviation ``position_noise`` (m, on x, y, z) and ``yaw_noise`` (rad)."""

    position_noise: float = Field(0.0, ge=0)
    yaw_noise: float = Field(0.0, ge=0)


class CrazyflieBatteryOptions(SwitchOptions):
    """``battery = true`` or ``battery = {start_charge = 0.5, data_file = "my_cubic.csv"}``.

    ``data_file`` replaces the shipped coefficients (same columns as ``crazyflie_cubic.csv``, one
    row); a relative path is taken from the experiment's folder.
    """

    start_charge: float = Field(1.0, ge=0, le=1)
    data_file: Optional[str] = None


# --- the RVR's devices -----------------------------------------------------------------------
Color = Annotated[tuple[int, int, int], BeforeValidator(to_rgb)]
# The labeller's colours when the experiment names none: the four benchmark colours of the
# report's ground-sensor study and its colour-detection transition (red, green, blue, yellow)
REPORT_PALETTE = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]


class ColourGroundOptions(SwitchOptions):
    """Gaussian noise N(mean, std) per channel, in 0–255 units (unset: the report's N(0, 5))."""

    noise_mean: Optional[float] = None
    noise_std: Optional[float] = Field(None, ge=0)


class FixedColourOptions(ColourGroundOptions):
    """The labeller: ``palette`` = the labels (names or [r, g, b])."""

    palette: list[Color] = Field(default_factory=lambda: list(REPORT_PALETTE), min_length=1,
                                 max_length=256)


class RangefinderOptions(SwitchOptions):
    """Gaussian noise N(noise_mean, noise_std) m on finite readings; ``max_range`` ≤ 2 m."""

    noise_mean: float = 0.0
    noise_std: float = Field(0.005, ge=0)
    max_range: float = Field(2.0, gt=0.05, le=2.0)


class LidarOptions(SwitchOptions):
    """Uniform noise U(−noise_width, noise_width) m; ``no_hit`` reading when nothing is within
    range: ``"max"`` (12 m, the real device) or ``"zero"`` (the reference plug-in)."""

    noise_width: float = Field(0.0, ge=0, le=1.0)
    no_hit: Literal["max", "zero"] = "max"


class ReferenceOptions(SwitchOptions):
    """The reference model (Table 1). ``neighbours`` picks which localisation the
    ``neighbours``/``neighbour_*`` fields copy (both are always computed); ``ground`` the
    labelled or the raw colour; ``prox_range`` (m) the distance beyond which prox reads 0;
    ``lidar_noise_width`` the noise of the scan the clustering runs on."""

    neighbours: Literal["camera", "lidar"] = "camera"
    ground: Literal["labelled", "raw"] = "labelled"
    palette: list[Color] = Field(default_factory=lambda: list(REPORT_PALETTE), min_length=1,
                                 max_length=256)
    ground_noise_std: Optional[float] = Field(None, ge=0)
    prox_range: float = Field(0.4, gt=0.05, le=2.0)
    camera_range: float = Field(10.0, gt=0, le=10.0)
    lidar_noise_width: float = Field(0.0, ge=0, le=1.0)
    max_neighbours: int = Field(16, ge=1, le=256)
