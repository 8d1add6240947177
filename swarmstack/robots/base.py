"""The robot-type contract: what the core asks of every robot type, as plain frozen data.

A robot type is one :class:`RobotType` value — its body, its dynamics, the commands its
controllers write, the actuators that turn commands into dynamics targets and light, the
devices it can carry (each with its option schema), its LED layout, its radio and the host
functions (``set_wheels``, ``set_leds`` …) that Python views, Buzz and Lua all expose from this
one table. The tick never names a robot type: it asks each group's type for these pieces.

Adding a type is a new module that builds a ``RobotType`` and calls :func:`register`
(``docs/architecture.md`` walks through the test suite's holonomic box robot).
"""

from __future__ import annotations

import importlib
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Mapping, Optional, Protocol

import numpy as np
from pydantic import BaseModel


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
    (``physics.substeps``). Optionally, ``try_integrate(bodies, start, stop, state, dt) -> int``
    checks and integrates in one call (1 moved, 0 still, −k: nothing moved, k sub-steps
    needed); without it the tick tries a whole step and undoes it when it went too far.
    Optionally, ``counters`` names int arrays of the drive state (one count per robot, e.g.
    set-points clamped to the flight envelope) that the run summary totals. Optionally,
    ``bind_try(bodies, start, stop, state, dt)`` returns ``try_integrate`` with those arguments
    as a call without arguments (a partial of its kernel), or
    None when the range may go parallel; the tick then calls it instead. Dynamics of flying
    robots set ``flies = True`` and give ``start_flying(state, rows, pose)``: the drive state
    of robots placed above the floor (``pose`` float64[k, 4]: x, y, z, yaw).
    """

    def make_state(self, n: int) -> dict[str, np.ndarray]: ...

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool: ...


class Actuator(Protocol):
    """Commands → dynamics targets or emitter colours, for one group, every tick.

    Optionally, ``bind(world, group, keys, commands, drive)`` returns ``apply`` with those
    arguments as a call without arguments, or None (the group may go parallel); the tick then
    calls it instead (sensor devices may offer the same, with ``out, state``)."""

    def apply(self, world, group, keys: np.ndarray, commands: dict, drive: dict) -> None: ...


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


class Registry(dict):
    """Robot types by name. A built-in type's module is imported the first time its name is
    looked up (``registry[name]``, ``in``, ``get``), and every built-in type's when the registry
    is listed (iteration, ``keys``, ``values``, ``items``, ``len``): a run imports the types it
    uses and none of the others' kernels and option schemas (15–20 ms), while everything that
    lists the types sees all of them, as when they were all imported up front."""

    def _load(self, name) -> None:
        module = BUILT_IN.get(name) if isinstance(name, str) else None
        if module is not None and module not in sys.modules:
            importlib.import_module(module)   # registers itself

    def _load_all(self) -> None:
        for name in BUILT_IN:
            self._load(name)

    def __missing__(self, name):
        self._load(name)
        if dict.__contains__(self, name):
            return dict.__getitem__(self, name)
        raise KeyError(name)

    def __contains__(self, name) -> bool:
        self._load(name)
        return dict.__contains__(self, name)

    def get(self, name, default=None):
        self._load(name)
        return dict.get(self, name, default)

    def __iter__(self):
        self._load_all()
        return dict.__iter__(self)

    def __len__(self) -> int:
        self._load_all()
        return dict.__len__(self)

    def keys(self):
        self._load_all()
        return dict.keys(self)

    def values(self):
        self._load_all()
        return dict.values(self)

    def items(self):
        self._load_all()
        return dict.items(self)

    def __repr__(self) -> str:
        self._load_all()
        return dict.__repr__(self)


ROBOT_TYPES: Registry = Registry()


def register(robot_type: RobotType) -> RobotType:
    """Make ``robot_type`` available to experiment files as ``type = "<name>"``."""
    ROBOT_TYPES[robot_type.name] = robot_type
    return robot_type


def get(name: str) -> RobotType:
    try:
        return ROBOT_TYPES[name]
    except KeyError:
        raise KeyError(f"unknown robot type {name!r}; registered: "
                       f"{', '.join(sorted(ROBOT_TYPES))}") from None
