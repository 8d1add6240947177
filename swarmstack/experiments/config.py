"""The experiment file (TOML): schema, loading and precise error messages.

Every problem is reported as ``FILE: key.path[index]: what was expected (found …)``, one line
per problem, so a user can fix a file without reading a traceback.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, ValidationError,
                      model_validator)

from swarmstack.experiments.quantities import Angle, Duration, Length
from swarmstack.robots import base as robot_types
from swarmstack.robots.options import BatteryOptions, CameraOptions, NoiseOptions, WheelsOptions
from swarmstack.world.colors import to_rgb

Color = Annotated[tuple[int, int, int], BeforeValidator(to_rgb)]
Point2 = tuple[Length, Length]
Point3 = tuple[Length, Length, Length]


class ConfigError(Exception):
    """A user error in an experiment file: ``problems`` is a list of one-line messages."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SimulationCfg(Strict):
    ticks_per_second: float = Field(10.0, gt=0, le=10000)
    duration: Optional[Duration] = Field(60.0, gt=0)
    ticks: Optional[int] = Field(None, ge=1)
    seed: int = 0

    @property
    def dt(self) -> float:
        return 1.0 / self.ticks_per_second

    @property
    def total_ticks(self) -> int:
        if self.ticks is not None:
            return self.ticks
        return max(1, round(self.duration * self.ticks_per_second))


class WallsCfg(Strict):
    thickness: Length = Field(0.02, gt=0)
    height: Length = Field(0.1, gt=0)


class ArenaCfg(Strict):
    size: tuple[Length, Length]
    center: Point2 = (0.0, 0.0)
    walls: Union[bool, WallsCfg] = False

    @model_validator(mode="after")
    def _positive(self):
        if self.size[0] <= 0 or self.size[1] <= 0:
            raise ValueError(f"arena size must be positive, found {list(self.size)}")
        return self

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        cx, cy = self.center
        sx, sy = self.size
        return (cx - sx / 2, cy - sy / 2, cx + sx / 2, cy + sy / 2)


class BoxCfg(Strict):
    center: Point2
    size: Point3
    yaw: Angle = 0.0

    @model_validator(mode="after")
    def _positive(self):
        if min(self.size) <= 0:
            raise ValueError(f"box size must be positive, found {list(self.size)}")
        return self


class CylinderCfg(Strict):
    center: Point2
    radius: Length = Field(gt=0)
    height: Length = Field(0.1, gt=0)


class LightCfg(Strict):
    position: Point3
    intensity: float = Field(1.0, ge=0)
    color: Color = (255, 255, 0)


class RegionCfg(Strict):
    color: Color
    rect: Optional[tuple[Length, Length, Length, Length]] = None
    circle: Optional[tuple[Length, Length, Length]] = None
    ring: Optional[tuple[Length, Length, Length, Length]] = None

    @model_validator(mode="after")
    def _one_shape(self):
        shapes = [k for k in ("rect", "circle", "ring") if getattr(self, k) is not None]
        if len(shapes) != 1:
            raise ValueError("a region needs exactly one of rect = [x0, y0, x1, y1], "
                             "circle = [cx, cy, r] or ring = [cx, cy, r_in, r_out]"
                             + (f"; found {', '.join(shapes)}" if shapes else ""))
        return self


class FloorCfg(Strict):
    grey: Optional[float] = Field(None, ge=0, le=1)
    image: Optional[str] = None
    background: Color = (255, 255, 255)
    regions: list[RegionCfg] = []
    resolution: Length = Field(0.002, gt=0)

    @model_validator(mode="after")
    def _one_kind(self):
        kinds = [k for k, v in (("grey", self.grey), ("image", self.image),
                                ("regions", self.regions or None)) if v is not None]
        if len(kinds) > 1:
            raise ValueError(f"give one of grey, image or regions, found {', '.join(kinds)}")
        return self


# Device and actuator options are declared by the robot types that carry them
# (``swarmstack.robots.options``); the names below stay for existing imports.
NoiseCfg, CameraCfg, BatteryCfg, WheelsCfg = NoiseOptions, CameraOptions, BatteryOptions, \
    WheelsOptions


def _switch(value):
    """``sensor = true`` / ``false`` or a table of options."""
    return {"enabled": value} if isinstance(value, bool) else value


class PlacementCfg(Strict):
    kind: Literal["uniform", "gaussian", "explicit"] = "uniform"
    min: Optional[Point2] = None          # uniform: area corner (default: free arena area)
    max: Optional[Point2] = None
    mean: Optional[Point2] = None         # gaussian
    std: Optional[Length] = Field(None, gt=0)
    yaw: Union[Literal["uniform"], Angle] = "uniform"
    yaw_std: Optional[Angle] = Field(None, ge=0)   # gaussian yaw around `yaw`
    poses: list[tuple[Length, Length, Angle]] = []  # explicit: [x, y, yaw]
    clearance: Length = Field(0.002, ge=0)         # minimum gap between placed bodies

    @model_validator(mode="after")
    def _consistent(self):
        if self.kind == "explicit" and not self.poses:
            raise ValueError("explicit placement needs poses = [[x, y, yaw], …]")
        if self.kind != "explicit" and self.poses:
            raise ValueError(f"poses are only used with kind = \"explicit\" (kind is "
                             f"{self.kind!r})")
        if self.kind == "gaussian" and (self.mean is None or self.std is None):
            raise ValueError("gaussian placement needs mean = [x, y] and std")
        if (self.min is None) != (self.max is None):
            raise ValueError("give both min and max (or neither)")
        return self


class ControllerCfg(Strict):
    """A Python controller (``python = "file.py:Class"``) or a Buzz script (``buzz =
    "file.bzz"``), with parameters (Buzz: globals set before the script's top level runs)."""

    python: Optional[str] = Field(None, description="'file.py:Class' (relative to the experiment "
                                                    "file) or 'package.module:Class'")
    buzz: Optional[str] = Field(None, description="Buzz script, relative to the experiment file")
    params: dict[str, Any] = {}
    distance_unit: Literal["m", "cm", "mm"] = "cm"   # Buzz: unit of neighbour distances, goto…
    profile: Literal["buzz", "bittybuzz"] = "buzz"   # Buzz: the VM's limits and number formats

    @model_validator(mode="after")
    def _one_language(self):
        given = [k for k in ("python", "buzz") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a controller needs exactly one of python = \"file.py:Class\" or "
                             "buzz = \"file.bzz\"" + (f"; found {' and '.join(given)}" if given
                                                        else ""))
        if self.python is not None and ("distance_unit" in self.model_fields_set
                                        or "profile" in self.model_fields_set):
            raise ValueError("distance_unit and profile apply to Buzz controllers only")
        return self


class RadioCfg(Strict):
    """A group's range-and-bearing radio. Range and payload default to the robot type's board;
    drop, noise and capacity are the receiving side's."""

    enabled: bool = True
    range: Optional[Length] = Field(None, gt=0)             # m; default: the type's
    payload_bytes: Optional[int] = Field(None, ge=0, le=65535)  # per robot per tick
    drop: float = Field(0.0, ge=0, le=1)                    # Bernoulli loss per message heard
    range_noise: Length = Field(0.0, ge=0)                  # Gaussian std on distances (m)
    bearing_noise: Angle = Field(0.0, ge=0)                 # Gaussian std on bearings (rad)
    capacity: int = Field(0, ge=0)                          # messages heard per tick, 0 = all


class MediumCfg(Strict):
    """What blocks the range-and-bearing signal between two antennas."""

    occlusion: bool = True         # walls, boxes and cylinders
    robots_occlude: bool = False   # other robots' bodies too


class RobotGroupCfg(Strict):
    """A group of robots of one type. ``sensors`` maps device names of that type to their
    options; actuator options (``wheels = { noise = … }``) go under the actuator's name and are
    gathered in ``actuators``. Both are checked against the type by :func:`parse_experiment`."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$")
    type: str = "epuck2"
    count: Optional[int] = Field(None, ge=1, le=1_000_000)
    placement: PlacementCfg = PlacementCfg()
    controller: Optional[ControllerCfg] = None
    sensors: dict[str, Any] = {}
    actuators: dict[str, Any] = {}
    radio: Optional[RadioCfg] = None   # `radio = true` or a table; on by default for Buzz

    @model_validator(mode="before")
    @classmethod
    def _radio_switch(cls, data):
        if isinstance(data, dict) and isinstance(data.get("radio"), bool):
            data = {**data, "radio": {"enabled": data["radio"]}}
        return data

    @model_validator(mode="before")
    @classmethod
    def _gather_actuator_options(cls, data):
        # `wheels = {…}` reads naturally in a file; keys naming an actuator of the group's type
        # move into `actuators` (other unknown keys stay, to be refused as unknown)
        if not isinstance(data, dict):
            return data
        try:
            rt = robot_types.get(data.get("type", "epuck2"))
        except (KeyError, TypeError):
            return data
        out = dict(data)
        moved = {k: out.pop(k) for k in list(out)
                 if k not in cls.model_fields and rt.actuator(k) is not None}
        if moved:
            acts = out.get("actuators")
            out["actuators"] = {**(acts if isinstance(acts, dict) else {}), **moved}
        return out

    @model_validator(mode="after")
    def _count(self):
        if self.placement.kind == "explicit":
            if self.count is not None and self.count != len(self.placement.poses):
                raise ValueError(f"count = {self.count} but {len(self.placement.poses)} "
                                 "explicit poses are given")
        elif self.count is None:
            raise ValueError("count is required unless placement gives explicit poses")
        return self

    @property
    def n(self) -> int:
        return self.count if self.count is not None else len(self.placement.poses)

    @property
    def radio_on(self) -> bool:
        """Whether the group's robots use the radio: ``radio`` set and enabled, or a Buzz
        controller (which always talks through it) unless ``radio = false``."""
        if self.radio is not None:
            return self.radio.enabled
        return self.controller is not None and self.controller.buzz is not None


class OutputCfg(Strict):
    trajectories: bool = True
    velocities: bool = False                    # log vx, vy, vz (m/s) with the trajectories
    every: int = Field(1, ge=1)                 # log every k-th tick
    sensors: list[str] = []                     # device names whose readings are logged
    chunk_ticks: int = Field(1000, ge=1)        # rows are flushed to disk every chunk


class ExperimentCfg(Strict):
    simulation: SimulationCfg = SimulationCfg()
    arena: ArenaCfg
    boxes: list[BoxCfg] = []
    cylinders: list[CylinderCfg] = []
    lights: list[LightCfg] = []
    floor: FloorCfg = FloorCfg()
    robots: list[RobotGroupCfg] = Field(min_length=1)
    radio: MediumCfg = MediumCfg()
    output: OutputCfg = OutputCfg()

    @model_validator(mode="after")
    def _unique_names(self):
        names = [g.name for g in self.robots]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"robot group names must be unique; repeated: {', '.join(dup)}")
        return self


# ----------------------------------------------------------------------------------------------
def _path(loc) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part in ("function-after", "function-before", "tagged-union") or "[" in str(part):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "(top level)"


def _message(err: dict) -> str:
    msg = err.get("msg", "")
    for prefix in ("Value error, ", "Assertion failed, "):
        if msg.startswith(prefix):
            msg = msg[len(prefix):]
    if msg.startswith("Input should be"):
        msg = "expected" + msg[len("Input should be"):]
    if err.get("type") == "extra_forbidden":
        return "unknown key"
    if err.get("type") == "missing":
        return "required key is missing"
    if "found" not in msg and "input" in err:
        found = err["input"]
        if not isinstance(found, dict):
            msg += f" (found {found!r})"
    return msg


def format_validation_error(source: str, exc: ValidationError, sep: str = ": ") -> list[str]:
    """One ``SOURCE: key.path: message`` line per problem (``sep`` joins source and path: a
    source that is itself a key path, e.g. ``FILE: robots[0].sensors.camera``, takes ".")."""
    problems = []
    seen = set()
    for err in exc.errors():
        # unions report one error per alternative: keep the first per key path
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and
                                                  (p in ("bool", "WallsCfg", "float")
                                                   or p.startswith("function-")
                                                   or p.startswith("literal["))))
        path = _path(loc)
        if path in seen:
            continue
        seen.add(path)
        joined = f"{source}{sep}{path}" if path != "(top level)" or sep == ": " else source
        problems.append(f"{joined}: {_message(err)}")
    return problems


def _check_group(source: str, i: int, g: RobotGroupCfg, problems: list[str]):
    """The group's sensors and actuator options, validated against its robot type."""
    where = f"{source}: robots[{i}]"
    try:
        rt = robot_types.get(g.type)
    except KeyError as exc:
        problems.append(f"{where}.type: {exc.args[0]}")
        return g
    sensors = {}
    for name, value in g.sensors.items():
        spec = rt.devices.get(name)
        if spec is None:
            problems.append(f"{where}.sensors.{name}: {rt.name} has no {name}; it has "
                            f"{', '.join(rt.devices) or 'no sensors'}")
            continue
        try:
            sensors[name] = spec.options.model_validate(_switch(value))
        except ValidationError as exc:
            problems.extend(format_validation_error(f"{where}.sensors.{name}", exc, sep="."))
    if g.radio_on and rt.radio is None:
        problems.append(f"{where}.radio: {rt.name} has no range-and-bearing radio")
    actuators = {}
    for name, value in g.actuators.items():
        spec = rt.actuator(name)
        if spec is None or spec.options is None:
            has = [a.name for a in rt.actuators if a.options is not None]
            problems.append(f"{where}.{name}: {rt.name} has no actuator options {name!r}"
                            + (f"; it has {', '.join(has)}" if has else ""))
            continue
        try:
            actuators[name] = spec.options.model_validate(value)
        except ValidationError as exc:
            problems.extend(format_validation_error(f"{where}.{name}", exc, sep="."))
    return g.model_copy(update={"sensors": sensors, "actuators": actuators})


def parse_experiment(data: dict, source: str = "<experiment>") -> ExperimentCfg:
    """Validate an experiment (a dict as read from TOML); raises :class:`ConfigError`."""
    try:
        cfg = ExperimentCfg.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(format_validation_error(source, exc)) from None
    problems: list[str] = []
    groups = [_check_group(source, i, g, problems) for i, g in enumerate(cfg.robots)]
    known = {d for g in groups if g.type in robot_types.ROBOT_TYPES
             for d in robot_types.ROBOT_TYPES[g.type].devices}
    for k, name in enumerate(cfg.output.sensors):
        if known and name not in known:
            problems.append(f"{source}: output.sensors[{k}]: no robot type of this experiment "
                            f"has a sensor {name!r} (they have: {', '.join(sorted(known))})")
    if problems:
        raise ConfigError(problems)
    return cfg.model_copy(update={"robots": groups})


def load_experiment(path: Path) -> ExperimentCfg:
    """Read and validate an experiment file; raises :class:`ConfigError` on any user error."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError([f"{path}: file not found"]) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"{path}: cannot read file ({exc})"]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML: {exc}"]) from None
    return parse_experiment(data, str(path))
