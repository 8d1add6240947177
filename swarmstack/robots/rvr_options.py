"""Option schemas of the RVR's devices (what a robot group may write under ``sensors``)."""

from __future__ import annotations

from typing import Annotated, Literal, Optional

from pydantic import BeforeValidator, Field

from swarmstack.robots.options import Options, SwitchOptions  # noqa: F401  (imported from here)
from swarmstack.world.colors import to_rgb

Color = Annotated[tuple[int, int, int], BeforeValidator(to_rgb)]
# The labeller's colours when the experiment names none: the four benchmark colours of the
# report's ground-sensor study and its colour-detection transition (red, green, blue, yellow)
REPORT_PALETTE = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]


class ColourGroundOptions(Options):
    """Gaussian noise N(mean, std) per channel, in 0–255 units (unset: the report's N(0, 5))."""

    enabled: bool = True
    noise_mean: Optional[float] = None
    noise_std: Optional[float] = Field(None, ge=0)


class FixedColourOptions(ColourGroundOptions):
    """The labeller: ``palette`` = the labels (names or [r, g, b])."""

    palette: list[Color] = Field(default_factory=lambda: list(REPORT_PALETTE), min_length=1,
                                 max_length=256)


class LuxOptions(Options):
    """Noise in lux: ``uniform`` U(−level, level) or ``gaussian`` σ = level."""

    enabled: bool = True
    noise: Literal["none", "uniform", "gaussian"] = "none"
    level: float = Field(0.0, ge=0)


class RangefinderOptions(Options):
    """Gaussian noise N(noise_mean, noise_std) m on finite readings; ``max_range`` ≤ 2 m."""

    enabled: bool = True
    noise_mean: float = 0.0
    noise_std: float = Field(0.005, ge=0)
    max_range: float = Field(2.0, gt=0.05, le=2.0)


class LidarOptions(Options):
    """Uniform noise U(−noise_width, noise_width) m; ``no_hit`` reading when nothing is within
    range: ``"max"`` (12 m, the real device) or ``"zero"`` (the reference plug-in)."""

    enabled: bool = True
    noise_width: float = Field(0.0, ge=0, le=1.0)
    no_hit: Literal["max", "zero"] = "max"


class ReferenceOptions(Options):
    """The reference model (Table 1). ``neighbours`` picks which localisation the
    ``neighbours``/``neighbour_*`` fields copy (both are always computed); ``ground`` the
    labelled or the raw colour; ``prox_range`` (m) the distance beyond which prox reads 0;
    ``lidar_noise_width`` the noise of the scan the clustering runs on."""

    enabled: bool = True
    neighbours: Literal["camera", "lidar"] = "camera"
    ground: Literal["labelled", "raw"] = "labelled"
    palette: list[Color] = Field(default_factory=lambda: list(REPORT_PALETTE), min_length=1,
                                 max_length=256)
    ground_noise_std: Optional[float] = Field(None, ge=0)
    prox_range: float = Field(0.4, gt=0.05, le=2.0)
    camera_range: float = Field(10.0, gt=0, le=10.0)
    lidar_noise_width: float = Field(0.0, ge=0, le=1.0)
    max_neighbours: int = Field(16, ge=1, le=256)
