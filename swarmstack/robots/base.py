"""The robot-type contract: what the core asks of every robot type, as plain frozen data.

A robot type is one :class:`RobotType` value — its body, its dynamics, the commands its
controllers write, the actuators that turn commands into dynamics targets and light, the
devices it can carry (each with its option schema), its LED layout, its radio and the host
functions (``set_wheels``, ``set_leds`` …) that Python views, Buzz and Lua all expose from this
one table. The tick never names a robot type: it asks each group's type for these pieces.

Adding a type is a module that builds a ``RobotType``. An experiment names it by
``type = "module.path:NAME"`` or ``type = "file.py:NAME"`` (looked up next to the experiment
file first), by the name of an installed plug-in's entry point in the group
``swarmstack.robot_types``, or, once the module called :func:`register`, by the type's name
(``docs/extending.md`` walks through one step by step).
"""

from __future__ import annotations

import contextlib
import importlib
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Optional, Protocol

import numpy as np
from pydantic import BaseModel

from swarmstack.experiments.files import failure, import_spec, import_user_file


@dataclass(frozen=True)
class Body:
    """Collision and rendering shape: a vertical cylinder (``disc``) or an oriented box.

    ``half_x``/``half_y`` are half extents in the body frame (x forward); a disc has both equal
    to its radius. The body spans z ∈ [base, base + height_m] above the floor.
    """

    shape: Literal["disc", "box"]
    half_x: float
    half_y: float
    height_m: float
    mass_kg: float

    @staticmethod
    def disc(radius_m: float, height_m: float, mass_kg: float) -> "Body":
        return Body("disc", radius_m, radius_m, height_m, mass_kg)

    @staticmethod
    def box(length_m: float, width_m: float, height_m: float, mass_kg: float) -> "Body":
        return Body("box", length_m / 2, width_m / 2, height_m, mass_kg)

    @property
    def radius_m(self) -> float:
        """Disc radius, or a box's bounding-circle radius (what neighbour queries use)."""
        return self.half_x if self.shape == "disc" else math.hypot(self.half_x, self.half_y)


@dataclass(frozen=True)
class Command:
    """One command array of a group: ``dtype[n, *shape]``, reset to ``safe`` (what a failed or
    absent controller leaves: wheels stopped, LEDs off)."""

    name: str
    dtype: Any
    shape: tuple[int, ...]
    safe: float = 0.0
    unit: str = ""
    doc: str = ""

    def allocate(self, n: int) -> np.ndarray:
        return np.full((n, *self.shape), self.safe, dtype=self.dtype)


class Dynamics(Protocol):
    """Integrates the bodies of one group over a tick (``swarmstack.physics``).

    ``make_state(n)`` returns the group's drive state (named arrays, robots on axis 0; e.g. the
    wheel speeds a differential drive applies), which actuators write and some sensors read.
    ``integrate(bodies, start, stop, state, dt)`` moves bodies ``start … stop − 1`` (the tick
    has already stored every pose in ``bodies.prev_pose``) and returns True when any of them
    moved (translated, or turned for a non-disc body): contacts are skipped in a tick where no
    body moved. ``dt`` may be a sub-step of the tick: when a body would move further than its
    safe step the tick integrates in k equal sub-steps with contacts after each
    (``physics.substeps``). Optionally, ``plan(bodies, start, stop, state, dt, k_run)`` gives
    the tick's calls: one counting the sub-steps before integrating, one integrating; without
    it the tick tries a whole step and undoes it when it went too far.
    Optionally, ``counters`` names int arrays of the drive state (one count per robot, e.g.
    set-points clamped to the flight envelope) that the run summary totals. Dynamics of flying
    robots set ``flies = True`` and give ``start_flying(state, rows, pose)``: the drive state
    of robots placed above the floor (``pose`` float64[k, 4]: x, y, z, yaw).
    """

    def make_state(self, n: int) -> dict[str, np.ndarray]: ...

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool: ...


class Actuator(Protocol):
    """Commands → dynamics targets or emitter colours, for one group, every tick.

    ``plan(world, group, keys, commands, drive)`` is called when the simulation plans its calls
    (and again when the thread settings change); it returns the tick's call, without arguments.
    ``group`` is the group's ``GroupSlice``, ``keys`` uint64[n] the robots' keys of the random
    stream named after the actuator (``world.rng``), ``commands`` the group's command arrays
    and ``drive`` its drive state. The call reads ``world.tick`` when it runs."""

    def plan(self, world, group, keys: np.ndarray, commands: dict,
             drive: dict) -> Callable[[], None]: ...


@dataclass(frozen=True)
class ActuatorSpec:
    """An actuator a type has: ``make(options)`` builds it from its validated ``options`` model
    (``None`` when the actuator takes no options; ``options`` then is ``None``). Types whose
    actuator takes options accept them under the actuator's name in a robot group."""

    name: str
    make: Callable[[Optional[BaseModel]], Actuator]
    options: Optional[type[BaseModel]] = None
    needs_emitters: bool = False   # writes LED colours (only worth running if someone looks)


@dataclass(frozen=True)
class ScriptGlobal:
    """How script languages (Buzz, Lua) see a device: the global ``name`` holding
    ``convert(reading)`` — one robot's reading turned into plain Python values (numbers,
    strings, dicts with int or str keys, lists), which each language maps to its own tables."""

    name: str
    convert: Callable[[np.ndarray], Any]
    doc: str = ""


@dataclass(frozen=True)
class DeviceSpec:
    """A device a type can carry: ``make(options, base_dir)`` builds the sensor from validated
    ``options`` (relative data files are taken from ``base_dir``)."""

    name: str
    options: type[BaseModel]
    make: Callable[[BaseModel, Optional[Path]], Any]
    doc: str = ""
    script: Optional[ScriptGlobal] = None


@dataclass(frozen=True)
class EmitterLayout:
    """Where a type's LEDs glow: ``positions_m`` float64[E, 3] body-frame emitter positions,
    ``owner`` int64[E] the logical LED of each emitter, ``channels`` uint8[L, 3] the colour
    channels each logical LED has, ``light_intensity`` what a lit LED counts for in other
    robots' light sensors."""

    positions_m: np.ndarray
    owner: np.ndarray
    channels: np.ndarray
    light_intensity: float = 0.0

    @property
    def n_leds(self) -> int:
        return int(self.channels.shape[0])


@dataclass(frozen=True)
class RadioSpec:
    """The type's range-and-bearing radio: default range, payload bytes per tick, antenna
    height above the body base."""

    range_m: float
    payload_bytes: int
    antenna_height_m: float


@dataclass(frozen=True)
class HostFn:
    """A function controllers call on one robot, ``fn(robot, *args)``; ``robot`` is that robot's
    view (``robot.commands`` holds its command rows, readings are attributes)."""

    name: str
    fn: Callable
    doc: str = ""
    # positions of arguments that are lengths (m) or speeds (m/s): a script language with a
    # distance unit (Buzz: cm by default, as in ARGoS) divides them by its units per metre
    lengths: tuple[int, ...] = ()


@dataclass(frozen=True)
class RobotType:
    name: str
    body: Body
    dynamics: Dynamics
    commands: tuple[Command, ...]
    actuators: tuple[ActuatorSpec, ...]
    devices: Mapping[str, DeviceSpec]
    emitters: Optional[EmitterLayout] = None
    radio: Optional[RadioSpec] = None
    host_api: tuple[HostFn, ...] = ()
    doc: str = ""

    def actuator(self, name: str) -> Optional[ActuatorSpec]:
        return next((a for a in self.actuators if a.name == name), None)


# the built-in robot types and the module that registers each when imported
BUILT_IN = {"epuck2": "swarmstack.robots.epuck2", "crazyflie": "swarmstack.robots.crazyflie",
            "rvr": "swarmstack.robots.rvr"}

# installed plug-ins name their robot types in this entry-point group: ``hover =
# "mypkg.robots:HOVER"`` makes ``type = "hover"`` the RobotType ``HOVER`` of ``mypkg.robots``
ENTRY_POINT_GROUP = "swarmstack.robot_types"


class RobotTypeError(KeyError):
    """A robot type that cannot be found or loaded; ``args[0]`` says which and why."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Registry(dict):
    """Robot types by name. A built-in type's module is imported the first time its name is
    looked up (``registry[name]``, ``in``, ``get``), and every built-in type's when the registry
    is listed (iteration, ``keys``, ``values``, ``items``, ``len``): a run imports the types it
    uses and none of the others' kernels and option schemas (15–20 ms), while everything that
    lists the types sees all of them, as when they were all imported up front.

    A name the registry does not hold yet is also looked up as a reference
    (``"module.path:NAME"``, ``"file.py:NAME"``) and among the installed plug-ins
    (:data:`ENTRY_POINT_GROUP`); listing loads every plug-in, and ``broken`` then holds, by
    name, why a plug-in failed to load."""

    broken: dict

    def __init__(self):
        super().__init__()
        self.broken = {}

    def _load(self, name) -> None:
        if not isinstance(name, str) or dict.__contains__(self, name):
            return
        module = BUILT_IN.get(name)
        if module is not None:
            if module not in sys.modules:
                importlib.import_module(module)   # registers itself
            return
        with contextlib.suppress(RobotTypeError):
            resolve(name)

    def _load_all(self) -> None:
        for name in BUILT_IN:
            self._load(name)
        for ep in _entry_points():
            if ep.name in BUILT_IN or dict.__contains__(self, ep.name):
                continue
            try:
                _load_plugin(ep)
            except RobotTypeError as exc:
                self.broken[ep.name] = str(exc)

    def __missing__(self, name):
        self._load(name)
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise KeyError(name)

    def __contains__(self, name) -> bool:
        self._load(name)
        return dict.__contains__(self, name)

    def get(self, name, default=None):
        return dict.__getitem__(self, name) if name in self else default

    def _listing(method):   # a dict method that sees every type
        def listed(self):
            self._load_all()
            return method(self)
        return listed

    __iter__, __len__, __repr__ = (_listing(dict.__iter__), _listing(dict.__len__),
                                   _listing(dict.__repr__))
    keys, values, items = _listing(dict.keys), _listing(dict.values), _listing(dict.items)
    del _listing


ROBOT_TYPES: Registry = Registry()


def register(robot_type: RobotType) -> RobotType:
    """Make ``robot_type`` available to experiment files as ``type = "<name>"``."""
    ROBOT_TYPES[robot_type.name] = robot_type
    return robot_type


def resolve(name: str, base_dir: Optional[Path] = None) -> RobotType:
    """The robot type ``name`` names: a registered or built-in type, an installed plug-in's
    (entry-point group :data:`ENTRY_POINT_GROUP`), or a reference to a ``RobotType`` object,
    ``"package.module:NAME"`` or ``"file.py:NAME"``. A reference is looked up in ``base_dir``
    first (the experiment file's folder: a relative file, or the module's top-level package
    or module found there), then on the Python path; the type is then registered under the
    reference as written, so later look-ups by the same string find it."""
    if not isinstance(name, str):
        raise RobotTypeError(f"expected a robot type name or 'module.path:NAME', found "
                             f"{type(name).__name__}")
    if ":" in name:
        if base_dir is None and dict.__contains__(ROBOT_TYPES, name):
            return dict.__getitem__(ROBOT_TYPES, name)
        robot_type = _load_reference(name, base_dir)
        dict.__setitem__(ROBOT_TYPES, name, robot_type)
        return robot_type
    if name in BUILT_IN or dict.__contains__(ROBOT_TYPES, name):
        return ROBOT_TYPES[name]
    for ep in _entry_points():
        if ep.name == name:
            return _load_plugin(ep)
    known = sorted({*BUILT_IN, *(k for k in dict.keys(ROBOT_TYPES) if ":" not in k),
                    *(ep.name for ep in _entry_points())})
    raise RobotTypeError(f"unknown robot type {name!r}; registered: {', '.join(known)} (or "
                         "'module.path:NAME' naming a RobotType)")


get = resolve   # the robot type an experiment's ``type`` names


def _entry_points() -> tuple:
    from importlib.metadata import entry_points

    return tuple(entry_points(group=ENTRY_POINT_GROUP))


def _load_plugin(ep) -> RobotType:
    try:
        obj = ep.load()
    except (Exception, SystemExit) as exc:
        raise RobotTypeError(f"robot type {ep.name!r} (plug-in entry point {ep.value!r}) "
                             f"failed to load: {failure(exc)}") from None
    if not isinstance(obj, RobotType):
        raise RobotTypeError(f"robot type {ep.name!r}: plug-in entry point {ep.value!r} is not "
                             f"a RobotType (it is {_kind(obj)})")
    ROBOT_TYPES[ep.name] = obj
    return obj


def _kind(obj) -> str:
    return "a module" if isinstance(obj, type(sys)) else \
        f"the class {obj.__name__}" if isinstance(obj, type) else f"a {type(obj).__name__}"


def _load_reference(ref: str, base_dir: Optional[Path]) -> RobotType:
    expected = "expected a robot type name, 'package.module:NAME' or 'file.py:NAME'"
    target, _, attr = ref.rpartition(":")
    if not attr.isidentifier():
        raise RobotTypeError(f"{expected}: NAME must be a Python identifier; found {ref!r}")
    folder = Path(".") if base_dir is None else Path(base_dir)
    if target.endswith(".py"):
        module = import_user_file(folder / target, "swarmstack_robot_type_", RobotTypeError,
                                  "robot type file", repr(ref))
    elif target and all(part.isidentifier() for part in target.split(".")):
        module = _import(target, None if base_dir is None else folder)
    else:
        raise RobotTypeError(f"{expected}: the module must be a dotted name (package.module) or "
                             f"end in .py; found {ref!r}")
    if not hasattr(module, attr):
        raise RobotTypeError(f"{target!r} has no {attr!r} (a RobotType was expected there)")
    obj = getattr(module, attr)
    if not isinstance(obj, RobotType):
        raise RobotTypeError(f"{ref!r} is not a RobotType (it is {_kind(obj)})")
    return obj


def _import(target: str, folder: Optional[Path]):
    """Module ``target``; its top-level package (or module) is taken from ``folder`` when it is
    there and not imported yet, else from the Python path."""
    top = target.split(".", 1)[0]
    try:
        if folder is not None and top not in sys.modules:
            from importlib.machinery import PathFinder

            spec = PathFinder.find_spec(top, [str(folder)])
            if spec is not None:
                import_spec(top, spec)
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        where = f"in {str(folder)!r} or " if folder is not None else ""
        raise RobotTypeError(f"cannot import module {target!r}: no module named {exc.name!r} "
                             f"{where}on the Python path") from None
    except (Exception, SystemExit) as exc:
        raise RobotTypeError(f"importing module {target!r} failed: {failure(exc)}") from None
