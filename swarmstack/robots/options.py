"""Option schemas of devices and actuators, shared by every robot type that carries them.

A robot group in an experiment file enables a device with ``name = true`` or a table of these
options; each type lists which devices it has (``RobotType.devices``), so a sensor the type does
not carry is refused by name.
"""

# No `from __future__ import annotations`: pydantic reads the models' annotations as they are
# built, at every start, and strings would each be compiled and evaluated (2 ms in all).

from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, Field


class Options(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SwitchOptions(Options):
    """A device without options: ``name = true``."""

    enabled: bool = True


class NoiseOptions(Options):
    """A device with ARGoS-style noise (``uniform`` U(−level, level) or ``gaussian`` σ = level,
    added to the normalised reading)."""

    enabled: bool = True
    noise: Literal["none", "uniform", "gaussian"] = "none"
    level: float = Field(0.0, ge=0)


class CameraOptions(NoiseOptions):
    max_blobs: int = Field(64, ge=1, le=4096)


class BatteryOptions(Options):
    enabled: bool = True
    model: Literal["simple", "linear", "cubic", "approximated"] = "simple"
    start_charge: float = Field(1.0, ge=0, le=1)
    interpolation: Literal["published", "plain"] = "published"
    data_file: Optional[str] = None


class WheelsOptions(Options):
    """Relative wheel-speed error: ``uniform`` U(−level, level) or ``gaussian`` σ = level."""

    noise: Literal["none", "uniform", "gaussian"] = "none"
    level: float = Field(0.0, ge=0, le=1)


class PositioningOptions(Options):
    """A positioning system (motion capture, ARGoS's positioning sensor): Gaussian errors of
    standard deviation ``position_noise`` (m, on x, y, z) and ``yaw_noise`` (rad)."""

    enabled: bool = True
    position_noise: float = Field(0.0, ge=0)
    yaw_noise: float = Field(0.0, ge=0)


class CrazyflieBatteryOptions(Options):
    """``battery = true`` or ``battery = {start_charge = 0.5, data_file = "my_cubic.csv"}``.

    ``data_file`` replaces the shipped coefficients (same columns as ``crazyflie_cubic.csv``, one
    row); a relative path is taken from the experiment's folder.
    """

    enabled: bool = True
    start_charge: float = Field(1.0, ge=0, le=1)
    data_file: Optional[str] = None
