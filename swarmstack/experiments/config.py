"""The experiment file (TOML): schema, loading and precise error messages.

Every problem is reported as ``FILE: key.path[index]: what was expected (found …)``, one line
per problem, so a user can fix a file without reading a traceback.
"""

# No `from __future__ import annotations`: pydantic reads the models' annotations as they are
# built, at every start, and strings would each be compiled and evaluated (2 ms in all).

import math
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import (AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator,
                      Field, StrictBool, StrictInt, Tag, ValidationError, ValidationInfo,
                      field_validator, model_validator)

from swarmstack.controllers.loader import check_path, parse_spec
from swarmstack.experiments.checks import key_line, keys_at, one_line, suggest
from swarmstack.experiments.files import read_limited
from swarmstack.experiments.quantities import (Angle, Duration, Length, _parser, _short,
                                               with_units_resolved)
from swarmstack.robots import base as robot_types
from swarmstack.robots.options import Color

Point2 = tuple[Length, Length]
Point3 = tuple[Length, Length, Length]

# Limits on what a file may ask for: far beyond any sensible experiment, small enough that
# validating or building one never exhausts memory or time before saying what is wrong.
MAX_ROBOTS = 200_000        # robots of one batch (per run × runs); placing them takes ~10 s
MAX_TICKS = 10 ** 12        # ticks of a run (also bounds `every` and `chunk_ticks`)
MAX_DEPTH = 64              # nesting of arrays and tables anywhere in the file
MAX_PARAMS_DEPTH = 32       # nesting inside a controller's params
MAX_FILE_BYTES = 16 << 20   # size of an experiment file
MAX_NAME_CHARS = 100        # group names (they name output folders)
MAX_SHAPES = 10_000         # boxes, cylinders, floor regions (each list)
MAX_LIGHTS = 1_000          # every light sensor looks at every light, every tick


def _not_bool(value):
    """A number where a number is expected: ``true`` is not 1."""
    if isinstance(value, bool):
        raise ValueError(f"expected a number, found {value!r}")
    return value


def _path_string(value: str) -> str:
    check_path(value)   # its ControllerLoadError is a ValueError: pydantic says its message
    return value


Real = Annotated[float, BeforeValidator(_not_bool)]   # finite: see Strict.allow_inf_nan
FilePath = Annotated[str, AfterValidator(_path_string)]


class ConfigError(Exception):
    """A user error in an experiment file: ``problems`` is a list of one-line messages."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class SimulationCfg(Strict):
    ticks_per_second: Real = Field(10.0, ge=0.001, le=10000)
    duration: Optional[Duration] = Field(60.0, gt=0)
    ticks: Optional[StrictInt] = Field(None, ge=1, le=MAX_TICKS)
    seed: StrictInt = Field(0, ge=0, lt=2 ** 63)
    timeout: Optional[Duration] = Field(None, gt=0)   # wall-clock budget of a run

    @model_validator(mode="after")
    def _bounded(self):
        if self.ticks is None and self.duration * self.ticks_per_second > MAX_TICKS:
            raise ValueError(f"duration = {self.duration:g} s at {self.ticks_per_second:g} "
                             f"ticks per second is {self.duration * self.ticks_per_second:.3g} "
                             f"ticks; at most {MAX_TICKS:.0e}")
        return self

    @property
    def dt(self) -> float:
        return 1.0 / self.ticks_per_second

    @property
    def total_ticks(self) -> int:
        return self.ticks if self.ticks is not None else \
            max(1, round(self.duration * self.ticks_per_second))


class WallsCfg(Strict):
    thickness: Length = Field(0.02, gt=0)
    height: Length = Field(0.1, gt=0)


def _walls_kind(value) -> str:
    return "walls[table]" if isinstance(value, (dict, WallsCfg)) else "walls[switch]"


def _walls_switch(value):
    if not isinstance(value, bool):
        raise ValueError(f"expected true, false or a table {{ thickness = …, height = … }}; "
                         f"found {_short(value)}")
    return value


class ArenaCfg(Strict):
    size: tuple[Length, Length]
    center: Point2 = (0.0, 0.0)
    # `true`/`false` or a table: only the table's own problems are reported for a table
    walls: Annotated[Union[Annotated[bool, BeforeValidator(_walls_switch),
                                     Tag("walls[switch]")],
                           Annotated[WallsCfg, Tag("walls[table]")]],
                     Discriminator(_walls_kind)] = False
    # the spatial grid's cell (m): larger in a big, sparsely populated arena makes contacts
    # cheaper (their cost grows with the cells); the physics is the same
    grid_cell: Optional[Length] = None

    @model_validator(mode="after")
    def _positive(self):
        if self.size[0] <= 0 or self.size[1] <= 0:
            raise ValueError(f"arena size must be positive, found {list(self.size)}")
        if self.grid_cell is not None and not self.grid_cell > 0:
            raise ValueError(f"grid_cell must be positive, found {self.grid_cell}")
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
    intensity: Real = Field(1.0, ge=0)
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
    grey: Optional[Real] = Field(None, ge=0, le=1)
    image: Optional[FilePath] = None
    background: Color = (255, 255, 255)
    regions: list[RegionCfg] = Field([], max_length=MAX_SHAPES)
    resolution: Length = Field(0.002, gt=0)

    @model_validator(mode="after")
    def _one_kind(self):
        kinds = [k for k, v in (("grey", self.grey), ("image", self.image),
                                ("regions", self.regions or None)) if v is not None]
        if len(kinds) > 1:
            raise ValueError(f"give one of grey, image or regions, found {', '.join(kinds)}")
        return self


def _switch(value):
    """``sensor = true`` / ``false`` or a table of options."""
    return {"enabled": value} if isinstance(value, bool) else value


_angle = _parser("angle")


def _yaw(value):
    """``"uniform"`` or an angle (one message for both, not one per alternative)."""
    if value == "uniform":
        return value
    try:
        return _angle(value)
    except ValueError as exc:
        raise ValueError(f'expected "uniform" or {str(exc)[len("expected "):]}') from None


def _pose_items(value):
    if isinstance(value, (list, tuple)) and len(value) not in (3, 4):
        raise ValueError(f"expected [x, y, yaw] or [x, y, z, yaw]; found {len(value)} items")
    return value


def _pose_kind(value) -> str:
    # the tags look internal to error paths (_INTERNAL_PATTERN): a path ends at poses[k][i]
    return "pose[x,y,z,yaw]" if isinstance(value, (list, tuple)) and len(value) == 4 \
        else "pose[x,y,yaw]"


# an explicit pose: [x, y, yaw] on the floor, or [x, y, z, yaw] (z: the base above the floor)
Pose = Annotated[Union[Annotated[tuple[Length, Length, Angle], Tag("pose[x,y,yaw]")],
                       Annotated[tuple[Length, Length, Length, Angle], Tag("pose[x,y,z,yaw]")]],
                 Discriminator(_pose_kind), BeforeValidator(_pose_items)]


class PlacementCfg(Strict):
    kind: Literal["uniform", "gaussian", "explicit"] = "uniform"
    min: Optional[Point2] = None          # uniform: area corner (default: free arena area)
    max: Optional[Point2] = None
    mean: Optional[Point2] = None         # gaussian
    std: Optional[Length] = Field(None, gt=0)
    yaw: Annotated[Union[Literal["uniform"], float], BeforeValidator(_yaw)] = "uniform"
    yaw_std: Optional[Angle] = Field(None, ge=0)   # gaussian yaw around `yaw`
    # explicit: [x, y, yaw], or [x, y, z, yaw] with z (m) the base's height (flying robots)
    poses: list[Pose] = Field([], max_length=MAX_ROBOTS)
    clearance: Length = Field(0.002, ge=0)         # minimum gap between placed bodies

    @model_validator(mode="after")
    def _consistent(self):
        if self.kind == "explicit" and not self.poses:
            raise ValueError("explicit placement needs poses = [[x, y, yaw], …] (or [x, y, z, "
                             "yaw] for flying robots)")
        if self.kind != "explicit" and self.poses:
            raise ValueError(f"poses are only used with kind = \"explicit\" (kind is "
                             f"{self.kind!r})")
        if self.kind == "gaussian" and (self.mean is None or self.std is None):
            raise ValueError("gaussian placement needs mean = [x, y] and std")
        if (self.min is None) != (self.max is None):
            raise ValueError("give both min and max (or neither)")
        if self.min is not None and not (self.min[0] < self.max[0] and
                                         self.min[1] < self.max[1]):
            raise ValueError(f"min must be below max in x and in y; found min = "
                             f"[{self.min[0]:g}, {self.min[1]:g}], max = "
                             f"[{self.max[0]:g}, {self.max[1]:g}]")
        return self


DISTANCE_METRES = {"m": 1.0, "cm": 0.01, "mm": 0.001}   # a Buzz distance unit, in metres


class ControllerCfg(Strict):
    """A Python controller (``python = "file.py:Class"``) or a Buzz script (``buzz =
    "file.bzz"``), with parameters (Buzz: globals set before the script's top level runs), or
    an AutoMoDe PFSM (``pfsm = "--nstates …"`` or ``pfsm_file = "best.txt"``)."""

    python: Optional[str] = Field(None, description="'file.py:Class' (relative to the experiment "
                                                    "file) or 'package.module:Class'")
    buzz: Optional[FilePath] = Field(None, description="Buzz script, relative to the experiment "
                                                       "file")
    # a Lua script with ARGoS's robot API (docs/lua.md): lengths in cm, speeds in cm/s
    lua: Optional[FilePath] = Field(None, description="Lua script, relative to the experiment "
                                                      "file")
    # an AutoMoDe PFSM (swarmstack.design): its command-line string, or a file holding one
    pfsm: Optional[str] = Field(None, description="AutoMoDe PFSM, e.g. '--nstates 1 --s0 1'")
    pfsm_file: Optional[FilePath] = Field(None, description="file with an AutoMoDe PFSM string, "
                                                            "relative to the experiment file")
    # a learnt policy (swarmstack.learn.policy, docs/learning.md)
    policy: Optional[str] = Field(None, description="'file.npz' (an MLP) or 'file.py:NAME' (a "
                                                    "callable), relative to the experiment file")
    params: dict[str, Any] = {}
    distance_unit: Literal["m", "cm", "mm"] = "cm"   # Buzz: unit of neighbour distances, goto…
    profile: Literal["buzz", "bittybuzz"] = "buzz"   # Buzz: the VM's limits and number formats
    runtime: Literal["lua5.3", "luajit"] = "lua5.3"  # Lua: ARGoS's Lua 5.3, or LuaJIT 2.1
    # Lua: a call running more than 100 M instructions fails (an endless loop); under LuaJIT
    # the guard runs the scripts without the JIT compiler, whose loops never call the hook
    loop_guard: bool = True
    # Lua: the full standard libraries (files, os, debug …) instead of the sandbox
    trusted: bool = False

    @field_validator("python")
    @classmethod
    def _spec(cls, value):
        parse_spec(value)
        return value

    @field_validator("params")
    @classmethod
    def _plain_values(cls, value):
        where = _deep_or_not_finite(value, MAX_PARAMS_DEPTH)
        if where is not None:
            path, what = where
            if what.startswith("nested too deeply"):
                raise ValueError(f"nested too deeply at params{path} (at most "
                                 f"{MAX_PARAMS_DEPTH} levels of arrays and tables)")
            raise ValueError(f"{what} at params{path}")
        return value

    @model_validator(mode="after")
    def _one_language(self):
        given = [k for k in ("python", "buzz", "lua", "pfsm", "pfsm_file", "policy")
                 if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("a controller needs exactly one of python = \"file.py:Class\", "
                             "buzz = \"file.bzz\", lua = \"file.lua\", pfsm = \"--nstates …\", "
                             "pfsm_file = \"file.txt\" or policy = "
                             "\"file.npz\"" + (f"; found {' and '.join(given)}" if given
                                                else ""))
        if self.buzz is None and ("distance_unit" in self.model_fields_set
                                        or "profile" in self.model_fields_set):
            raise ValueError("distance_unit and profile apply to Buzz controllers only")
        for lua_only in ("runtime", "loop_guard", "trusted"):
            if self.lua is None and lua_only in self.model_fields_set:
                raise ValueError(f"{lua_only} applies to Lua controllers only")
        if self.lua is not None:   # Lua's integers are 64-bit
            where = _wide_integer(self.params)
            if where is not None:
                raise ValueError(f"params{where[0]}: {where[1]} is beyond Lua's 64-bit "
                                 "integers (-2^63 to 2^63 - 1); write it as a float")
        # "10 cm/s" as everywhere in the file: Python sees SI numbers, Buzz its distance unit,
        # Lua centimetres (ARGoS's unit)
        per_unit = DISTANCE_METRES[self.distance_unit] if self.buzz is not None else \
            DISTANCE_METRES["cm"] if self.lua is not None else 1.0
        object.__setattr__(self, "params", with_units_resolved(self.params, per_unit))
        return self


class RadioCfg(Strict):
    """A group's range-and-bearing radio. Range and payload default to the robot type's board;
    drop, noise and capacity are the receiving side's."""

    enabled: StrictBool = True
    range: Optional[Length] = Field(None, gt=0)             # m; default: the type's
    payload_bytes: Optional[StrictInt] = Field(None, ge=0, le=65535)  # per robot per tick
    drop: Real = Field(0.0, ge=0, le=1)                     # Bernoulli loss per message heard
    range_noise: Length = Field(0.0, ge=0)                  # Gaussian std on distances (m)
    bearing_noise: Angle = Field(0.0, ge=0)                 # Gaussian std on bearings (rad)
    capacity: StrictInt = Field(0, ge=0, le=MAX_ROBOTS)     # messages heard per tick, 0 = all


class MediumCfg(Strict):
    """The range-and-bearing medium's link rules; the defaults are ARGoS's: equal payload sizes
    only, the line between the antennas blocked by walls, boxes, cylinders and robots."""

    occlusion: StrictBool = True         # walls, boxes and cylinders
    robots_occlude: StrictBool = True    # other robots' bodies too
    mixed_sizes: StrictBool = False      # radios of different payload_bytes hear each other


def _base_dir(info: ValidationInfo) -> Optional[Path]:
    """The experiment file's folder, given as the validation's context by
    :func:`parse_experiment` (robot types may be files or packages found there)."""
    return (info.context or {}).get("base_dir") if info is not None else None


class RobotGroupCfg(Strict):
    """A group of robots of one type (``type``: a built-in type's name, an installed plug-in's,
    or ``"module.path:NAME"`` / ``"file.py:NAME"`` naming a ``RobotType`` object, looked up in
    the experiment's folder first: :func:`swarmstack.robots.base.resolve`). ``sensors`` maps
    device names of that type to their options; actuator options (``wheels = { noise = … }``)
    go under the actuator's name and are gathered in ``actuators``. Both are checked against
    the type by :func:`parse_experiment`."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$", max_length=MAX_NAME_CHARS)
    type: str = "epuck2"
    count: Optional[StrictInt] = Field(None, ge=1, le=MAX_ROBOTS)
    placement: PlacementCfg = PlacementCfg()
    controller: Optional[ControllerCfg] = None
    sensors: dict[str, Any] = {}
    actuators: dict[str, Any] = {}
    radio: Optional[RadioCfg] = None   # `radio = true` or a table; on by default for Buzz

    @model_validator(mode="before")
    @classmethod
    def _shorthands(cls, data, info: ValidationInfo):
        # `radio = true` switches the table; `wheels = {…}` reads naturally in a file: keys
        # naming an actuator of the group's type move into `actuators` (other unknown keys
        # stay, to be refused as unknown)
        if not isinstance(data, dict):
            return data
        out = dict(data)
        if isinstance(out.get("radio"), bool):
            out["radio"] = {"enabled": out["radio"]}
        try:
            rt = robot_types.get(data.get("type", "epuck2"), _base_dir(info))
        except KeyError:   # the type is reported (_check_group), not its options as unknown
            rt = None
        moved = {k: out.pop(k) for k in list(out)
                 if k not in cls.model_fields and (rt is None or rt.actuator(k) is not None)}
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
        return self.radio.enabled if self.radio is not None else \
            self.controller is not None and self.controller.buzz is not None


class OutputCfg(Strict):
    trajectories: StrictBool = True
    velocities: StrictBool = False              # log vx, vy, vz (m/s) with the trajectories
    every: StrictInt = Field(1, ge=1, le=MAX_TICKS)         # log every k-th tick
    sensors: list[str] = []                     # device names whose readings are logged
    # logged ticks per Parquet part (None: 1000, more for small swarms — see results.part_ticks)
    chunk_ticks: Optional[StrictInt] = Field(None, ge=1, le=MAX_TICKS)
    record: StrictBool = False                  # write the viewer's recording (recording/)
    record_every: StrictInt = Field(1, ge=1, le=MAX_TICKS)  # record every k-th tick


class SweepCfg(Strict):
    """``[sweep]``: what ``swarmstack sweep`` varies (``swarmstack run`` ignores it). ``params``
    maps key paths to a range ``"start:stop:count"``, an array of values or one value; each is
    checked against the schema by ``swarmstack.studies`` before a sweep starts."""

    seeds: StrictInt = Field(1, ge=1, le=1_000_000)     # runs per point: seeds s, s+1, …
    params: dict[str, Any] = {}


class ExperimentCfg(Strict):
    simulation: SimulationCfg = SimulationCfg()
    arena: ArenaCfg
    boxes: list[BoxCfg] = Field([], max_length=MAX_SHAPES)
    cylinders: list[CylinderCfg] = Field([], max_length=MAX_SHAPES)
    lights: list[LightCfg] = Field([], max_length=MAX_LIGHTS)
    floor: FloorCfg = FloorCfg()
    robots: list[RobotGroupCfg] = Field(min_length=1)
    radio: MediumCfg = MediumCfg()
    output: OutputCfg = OutputCfg()
    sweep: Optional[SweepCfg] = None

    @model_validator(mode="after")
    def _unique_names(self):
        names = [g.name for g in self.robots]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"robot group names must be unique; repeated: {', '.join(dup)}")
        return self


# ----------------------------------------------------------------------------------------------
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")
# parts pydantic adds to an error's location for unions and validators, not keys of the file
_INTERNAL = ("bool", "WallsCfg", "float")
_INTERNAL_PATTERN = re.compile(r"[a-z-]+\[.*\]")   # function-after[…], literal[…], walls[…]


def key(name) -> str:
    """A key of the file as written in a key path: quoted unless plain (one line always)."""
    name = str(name)
    return name if _PLAIN_KEY.fullmatch(name) else _short(name)


def _path(loc) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + key(part)
    return out or "(top level)"


def _internal(part) -> bool:
    return isinstance(part, str) and (part in _INTERNAL or _INTERNAL_PATTERN.fullmatch(part)
                                      is not None)


def _message(err: dict, root: Optional[type[BaseModel]] = None) -> str:
    # pydantic's words made the file's: "Value error, " dropped, "Input should be" → "expected"
    msg = re.sub(r"^(Value error, )?(Assertion failed, )?", "", err.get("msg", ""))
    msg = re.sub(r"^(Input should be|(String|List|Tuple|Dictionary) should have)", "expected",
                 msg)
    kind, ctx = err.get("type"), err.get("ctx") or {}
    if kind == "extra_forbidden":
        loc = tuple(err.get("loc") or ())
        near = suggest(loc[-1], keys_at(root, loc[:-1])) if root is not None and loc else None
        return f"unknown key; did you mean {near}?" if near else "unknown key"
    if kind == "missing":
        loc = err.get("loc") or ()
        return "missing item (the array is too short)" if loc and isinstance(loc[-1], int) \
            else "required key is missing"
    if kind in ("dict_type", "model_type"):   # not "a valid dictionary or instance of ArenaCfg"
        msg = "expected a table"
    elif kind in ("list_type", "tuple_type"):
        msg = "expected an array"
    elif kind in ("too_long", "too_short") and "actual_length" in ctx:
        bound = ctx.get("max_length") if kind == "too_long" else ctx.get("min_length")
        msg = f"expected at {'most' if kind == 'too_long' else 'least'} {bound} " \
              f"item{'' if bound == 1 else 's'}, found " \
              f"{ctx['actual_length']}"
    if "found" not in msg and "input" in err:
        found = err["input"]
        if not isinstance(found, dict):
            msg += f" (found {_short(found)})"
    return one_line(msg)


def format_validation_error(source: str, exc: ValidationError, sep: str = ": ",
                            root: Optional[type[BaseModel]] = None) -> list[str]:
    """One ``SOURCE: key.path: message`` line per problem (``sep`` joins source and path: a
    source that is itself a key path, e.g. ``FILE: robots[0].sensors.camera``, takes ".").
    ``root`` is the model validated, for "did you mean" on unknown keys."""
    problems = []
    seen = set()
    for err in exc.errors():
        # unions report one error per alternative: keep the first per key path (an unknown
        # key's own name is the last part, whatever it is)
        loc = tuple(err["loc"])
        last = loc[-1:] if err.get("type") == "extra_forbidden" else ()
        loc = tuple(p for p in loc[:len(loc) - len(last)] if not _internal(p)) + last
        path = _path(loc)
        if path in seen:
            continue
        seen.add(path)
        joined = f"{source}{sep}{path}" if path != "(top level)" or sep == ": " else source
        problems.append(f"{joined}: {_message(err, root)}")
    return problems


def _values(data):
    """``(key path, value, depth)`` of ``data`` and of everything in its arrays and tables,
    depth first, a table before what it holds. Iterative: any depth is safe."""
    stack = [(data, "", 0)]
    while stack:
        value, path, depth = stack.pop()
        yield path, value, depth
        if isinstance(value, (dict, list, tuple)):
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for k, v in reversed(list(items)):
                sub = f"{path}[{k}]" if isinstance(k, int) else f"{path}.{key(k)}"
                stack.append((v, sub, depth + 1))


def _wide_integer(data):
    """``(key path, value)`` of the first integer outside 64 bits, else None."""
    return next(((path, v) for path, v, _ in _values(data) if isinstance(v, int)
                 and not isinstance(v, bool) and not -2 ** 63 <= v < 2 ** 63), None)


def _deep_or_not_finite(data, max_depth: int, check_numbers: bool = True):
    """``(key path, what)`` of the first value nested deeper than ``max_depth`` arrays and
    tables (or a number that is NaN or infinite), else None."""
    for path, value, depth in _values(data):
        if isinstance(value, (dict, list, tuple)) and depth >= max_depth:
            return path, f"nested too deeply (at most {max_depth} levels of arrays and tables)"
        if check_numbers and isinstance(value, float) and not math.isfinite(value):
            return path, f"expected a finite number, found {value!r}"
    return None


def _options(where: str, model: type[BaseModel], value, problems: list[str]):
    """``value`` validated by a device's or an actuator's options ``model`` (strictly:
    ``max_blobs = true`` is not 1, ``level = "0.1"`` not a number; NaN and infinities
    refused), or None with its problems added to ``problems``."""
    try:
        options = model.model_validate(value, strict=True)
    except ValidationError as exc:
        problems.extend(format_validation_error(where, exc, sep=".", root=model))
        return None
    for name in model.model_fields:
        v = getattr(options, name)
        if isinstance(v, float) and not math.isfinite(v):
            problems.append(f"{where}.{name}: expected a finite number (found {v!r})")
    return options


def _check_group(source: str, i: int, g: RobotGroupCfg, problems: list[str],
                 base_dir: Optional[Path] = None):
    """The group's sensors and actuator options, validated against its robot type."""
    where = f"{source}: robots[{i}]"
    try:
        rt = robot_types.get(g.type, base_dir)
    except KeyError as exc:
        problems.append(f"{where}.type: {one_line(exc.args[0])}")
        return g
    sensors = {}
    for name, value in g.sensors.items():
        spec = rt.devices.get(name)
        if spec is None:
            near = suggest(name, rt.devices)
            problems.append(f"{where}.sensors.{key(name)}: {rt.name} has no {key(name)}"
                            + (f"; did you mean {near}?" if near else "")
                            + f"; it has {', '.join(rt.devices) or 'no sensors'}")
            continue
        sensors[name] = _options(f"{where}.sensors.{key(name)}", spec.options, _switch(value),
                                 problems)
    if g.radio_on and rt.radio is None:
        problems.append(f"{where}.radio: {rt.name} has no range-and-bearing radio")
    actuators = {}
    for name, value in g.actuators.items():
        spec = rt.actuator(name)
        if spec is None or spec.options is None:
            has = [a.name for a in rt.actuators if a.options is not None]
            problems.append(f"{where}.{key(name)}: {rt.name} has no actuator options {name!r}"
                            + (f"; it has {', '.join(has)}" if has else ""))
            continue
        actuators[name] = _options(f"{where}.{key(name)}", spec.options, value, problems)
    return g.model_copy(update={"sensors": sensors, "actuators": actuators})


def _check_pfsm(source: str, i: int, g: RobotGroupCfg, base_dir: Optional[Path],
                problems: list[str]) -> RobotGroupCfg:
    """A PFSM controller: its string (read from ``pfsm_file`` if given) parsed with the
    group's AutoMoDe flavour, then run by the batched PFSM controller with it as ``pfsm``."""
    c = g.controller
    if c is None or (c.pfsm is None and c.pfsm_file is None):
        return g
    from swarmstack.design import grammar
    from swarmstack.design.controller import CONTROLLER_SPEC, kit_for
    from swarmstack.design.pfsm import looks_like_pfsm, pfsm_problem

    where = f"{source}: robots[{i}].controller." + ("pfsm" if c.pfsm is not None else
                                                      "pfsm_file")
    text, prefix = c.pfsm, ""
    if c.pfsm_file is not None:
        path = (base_dir if base_dir is not None else Path(".")) / c.pfsm_file
        try:
            text = read_limited(path, MAX_FILE_BYTES, "the PFSM file").decode("utf-8")
        except (OSError, ValueError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            problems.append(f"{where}: cannot read {str(path)!r} ({one_line(reason)})")
            return g
        prefix = f"{c.pfsm_file}: "
        if not looks_like_pfsm(text):   # not a PFSM file: nothing of it is quoted
            problems.append(f"{where}: {str(path)!r} is not an AutoMoDe PFSM file (a PFSM "
                            "string starts with a flag such as --nstates)")
            return g
    try:
        kit = kit_for(g.type, c.params.get("flavour"))
        grammar.parse(text, kit.flavour)
    except ValueError as exc:
        problems.append(f"{where}: {prefix}{pfsm_problem(exc)}")
        return g
    # the modules read these devices, and hear neighbours on the radio
    off = [d for d in kit.needs if not getattr(g.sensors.get(d), "enabled", False)]
    reported = any(p.startswith(f"{source}: robots[{i}].sensors.") for p in problems)
    if off and not reported:   # (a sensor whose options were wrong is reported already)
        problems.append(f"{source}: robots[{i}].sensors: a PFSM controller reads "
                        f"{', '.join(off)}: add {', '.join(f'{d} = true' for d in off)}")
    if kit.radio and not g.radio_on:
        problems.append(f"{source}: robots[{i}].radio: a PFSM controller counts neighbours "
                        "on the range-and-bearing radio: add radio = true")
    text = " ".join(text.split())
    ctrl = c.model_copy(update={"python": CONTROLLER_SPEC, "pfsm": text,
                                "params": {**c.params, "pfsm": text,
                                           "flavour": kit.flavour.name}})
    return g.model_copy(update={"controller": ctrl})


def _check_sizes(source: str, cfg: ExperimentCfg, problems: list[str]) -> None:
    """What the experiment would allocate before its first tick, bounded: robots of a run and
    the floor's raster (the grid is bounded with the number of runs, by ``build``)."""
    from swarmstack.world.floor import MAX_FLOOR_TEXELS, texels

    robots = sum(g.n for g in cfg.robots)
    if robots > MAX_ROBOTS:
        problems.append(f"{source}: robots: {robots} robots in a run; at most {MAX_ROBOTS} "
                        "in a batch (robots of all groups × runs)")
    if cfg.floor.regions:
        (sx, sy), res = cfg.arena.size, cfg.floor.resolution
        n = texels(cfg.arena.bounds, res)
        if n > MAX_FLOOR_TEXELS:
            problems.append(
                f"{source}: floor.resolution: a {sx:g} m × {sy:g} m floor painted at {res:g} m "
                f"needs {n / 1e6:.3g} M texels; at most {MAX_FLOOR_TEXELS / 1e6:.3g} M (a "
                "coarser resolution or a smaller arena)")


def parse_experiment(data: dict, source: str = "<experiment>",
                     base_dir: Optional[Path] = None) -> ExperimentCfg:
    """Validate an experiment (a dict as read from TOML); raises :class:`ConfigError`.
    ``base_dir`` is where relative files the experiment reads at once (``pfsm_file``, robot
    types given as ``"file.py:NAME"`` or a package there) are found (default: the current
    folder)."""
    if not isinstance(data, dict):
        raise ConfigError([f"{source}: expected a table of keys, found "
                           f"{type(data).__name__}"])
    deep = _deep_or_not_finite(data, MAX_DEPTH, check_numbers=False)
    if deep is not None:  # before pydantic, which recurses (and fails) on deep values
        raise ConfigError([f"{source}: {deep[0].lstrip('.') or '(top level)'}: {deep[1]}"])
    base_dir = None if base_dir is None else Path(base_dir)
    try:
        cfg = ExperimentCfg.model_validate(data, context={"base_dir": base_dir})
    except ValidationError as exc:
        raise ConfigError(format_validation_error(source, exc, root=ExperimentCfg)) from None
    except RecursionError:
        raise ConfigError([f"{source}: nested too deeply"]) from None
    problems: list[str] = []
    groups = [_check_group(source, i, g, problems, base_dir) for i, g in enumerate(cfg.robots)]
    groups = [_check_pfsm(source, i, g, base_dir, problems) for i, g in enumerate(groups)]
    if any(g.controller is not None and g.controller.policy is not None for g in groups):
        from swarmstack.learn.policy import policy_controller

        groups = [policy_controller(f"{source}: robots[{i}].controller.policy", g,
                                    cfg.arena.bounds, base_dir, problems)
                  if g.controller is not None and g.controller.policy is not None else g
                  for i, g in enumerate(groups)]
    typed = [g for g in groups if g.type in robot_types.ROBOT_TYPES]
    known = {d for g in typed for d in robot_types.ROBOT_TYPES[g.type].devices}
    for k, name in enumerate(cfg.output.sensors):
        # (with a type that could not be found, what its devices would be is unknown)
        if known and name not in known and len(typed) == len(groups):
            problems.append(f"{source}: output.sensors[{k}]: no robot type of this experiment "
                            f"has a sensor {_short(name)} (they have: "
                            f"{', '.join(sorted(known))})")
    _check_sizes(source, cfg, problems)
    if problems:
        raise ConfigError(problems)
    return cfg.model_copy(update={"robots": groups})


def load_experiment(path: Path) -> ExperimentCfg:
    """Read and validate an experiment file; raises :class:`ConfigError` on any user error.
    An ``.argos`` file is translated first (``swarmstack.argos``)."""
    path = Path(path)
    if path.suffix == ".argos":
        return _load_argos(path)
    try:
        text = read_limited(path, MAX_FILE_BYTES, "the experiment file").decode("utf-8")
    except FileNotFoundError:
        raise ConfigError([f"{path}: file not found"]) from None
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ConfigError([f"{path}: cannot read file ({one_line(reason)})"]) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError([f"{path}: not valid TOML: {one_line(exc)}"]) from None
    except RecursionError:
        raise ConfigError([f"{path}: not valid TOML: arrays or tables nested too deeply"]) \
            from None
    try:
        return parse_experiment(data, str(path), path.parent)
    except ConfigError as exc:
        raise ConfigError([_with_line(p, str(path), text) for p in exc.problems]) from None


def _load_argos(path: Path) -> ExperimentCfg:
    """The validated experiment of an ``.argos`` file; every problem (of the XML or of the
    translated experiment) names the file, the line and the XML path."""
    from swarmstack.argos import ArgosError, import_argos

    try:
        imported = import_argos(path)
    except ArgosError as exc:
        raise ConfigError(exc.problems) from None
    try:
        return parse_experiment(imported.data(), str(path), path.parent)
    except ConfigError as exc:
        raise ConfigError([imported.locate(p) for p in exc.problems]) from None


_PATH_PART = re.compile(r"\[(\d+)\]|([^.\[\]]+)")


def _with_line(problem: str, source: str, text: str) -> str:
    """``problem`` (``SOURCE: key.path: message``) with `` (line N)`` where the key is
    written, so an editor can jump to it."""
    head = f"{source}: "
    if not problem.startswith(head):
        return problem
    path, sep, _ = problem[len(head):].partition(": ")
    if not sep or " " in path or path == "(top level)":
        return problem
    parts = tuple(int(i) if i else name for i, name in _PATH_PART.findall(path))
    line = key_line(text, parts)
    return f"{problem} (line {line})" if line else problem
