"""What controllers see: live views on the readings and command arrays.

Views are built once; sensors refresh the arrays in place every tick, so reading
``robot.proximity`` costs an attribute lookup, not a copy. Commands are written into the
group's command arrays (through the robot type's host functions, e.g. ``set_wheels``), which
the actuators apply after all controllers ran.

Per-robot views are made from the robot type: each host function of ``RobotType.host_api``
becomes a method (``robot.set_wheels(l, r)`` is ``set_wheels(robot, l, r)``), so a new type
brings its own controller API with no code here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from swarmstack.world.rng import uniform_array


def _missing(who: str, name: str, devices, readings, commands, members) -> AttributeError:
    """The error for ``view.name`` that does not exist: a sensor that is off says how to turn
    it on; anything else (a typo: ``set_wheel``) names the closest attribute and lists what
    the view has."""
    from swarmstack.experiments.checks import suggest

    # a device's reading is named after it, sometimes with its unit (tof → tof_mm)
    device = next((d for d in devices if name == d or name.startswith(d + "_")), None)
    if device is not None:
        return AttributeError(f"{who} has no reading {name!r}: its sensor is off; turn it on "
                              f"under the group's sensors in the experiment file "
                              f"(sensors = {{ {device} = true }})")
    near = suggest(name, [*readings, *commands, *members])
    return AttributeError(
        f"{who} has no attribute {name!r}" + (f"; did you mean {near}?" if near else "")
        + f" readings: {', '.join(readings) or 'none (no sensor on)'}; "
        f"commands: {', '.join(commands)}")


def _public(cls) -> list[str]:
    return [n for n in dir(cls) if not n.startswith("_")]


class RadioOffError(RuntimeError):
    """The radio was used by a robot whose group has it off. (Not an AttributeError: that would
    be taken for a missing attribute and answered by ``__getattr__``.)"""


class _View:
    _radio = None  # the group's RadioPort when its radio is on
    _log = None    # the simulation's log sink: fn(group, run, robot_id, tick, text)
    _no_radio = ""   # what using the radio without one says

    @property
    def tick(self) -> int:
        return self._clock.tick

    @property
    def dt(self) -> float:
        return self._clock.dt

    def _say(self, group: str, run, robot_id, parts) -> None:
        if self._log is not None:
            self._log(group, int(run), int(robot_id), self._clock.tick,
                      " ".join(str(p) for p in parts))

    def _port(self):
        if self._radio is None:
            raise RadioOffError(self._no_radio.format(self=self))
        return self._radio


class RobotView(_View):
    """One robot, as its controller sees it.

    Readings of the enabled devices are attributes in device units (E-Puck2:
    ``proximity`` int32[8] 0–4095 · ``light`` int32[8] 4095 (dark) – 0 (saturated) ·
    ``ground`` int32[3] 0 (black) – 1023 (white) · ``tof_mm`` 0-d int32 20–2000 ·
    ``encoders`` int32[2] steps (left, right), wrapping int16 · ``camera`` float64[B, 5]
    (column px, row px, r, g, b; unused rows −1) · ``battery`` 0-d float64 charge 0–1).
    Also ``id`` (inside the run), ``run``, ``rng`` (a NumPy Generator of this robot's own stream),
    ``commands`` (this robot's row of each command array), ``params`` (its run's controller
    parameters), ``tick`` and ``dt``. With the group's radio on: ``send(data)`` broadcasts a
    frame this tick (False if over the payload cap) and ``inbox`` is what the robot heard (a
    :class:`~swarmstack.controllers.radio.RobotInbox`).
    """

    _devices: tuple = ()    # every device the robot type can carry (set per type)
    _host: tuple = ()       # the type's host functions (set_wheels …)
    _no_radio = ("robot {self.id} of group {self._group!r} has no radio: set radio = true on "
                 "its group in the experiment file")

    def __init__(self, group_name: str, index: int, robot_id: int, run: int, readings: dict,
                 commands: dict, rng: np.random.Generator, clock, params: dict | None = None):
        self._group = group_name
        self._index = index
        self._clock = clock
        self.id = robot_id
        self.run = run
        self.rng = rng
        self.params = params if params is not None else {}
        self.host_state: dict = {}  # memory of the type's host functions (goto's turning state)
        self.commands = {name: arr[index] for name, arr in commands.items()}
        self._readings = tuple(readings)
        for name, arr in readings.items():
            setattr(self, name, arr[index] if arr.ndim > 1 else arr[index:index + 1].reshape(()))

    def _restart(self, rng: np.random.Generator) -> None:
        """A new run for this robot: random numbers from ``rng`` and no memory of the host
        functions of the last run (e.g. goto's turning state, a drone's take-off)."""
        self.rng = rng
        self.host_state = {}

    def __getattr__(self, name):
        # only reached for missing attributes: a sensor that is off, or a typo
        if name.startswith("_"):
            raise AttributeError(name)
        raise _missing(f"robot {self.id} of group {self._group!r}", name, self._devices,
                       self.__dict__.get("_readings", ()), self._host,
                       [n for n in _public(type(self)) if n not in self._host])

    def send(self, data) -> bool:
        """Broadcast ``data`` (bytes or uint8 array) this tick; False if refused (over the
        payload cap, or radio off after a failure)."""
        return self._port().send(self._index, data)

    def log(self, *parts) -> None:
        """A line of debug text from this robot (its parts joined by spaces), like Buzz's
        ``log``: written to ``OUT/logs/run-K.log``, printed with ``--verbose`` and shown by
        the viewer next to the robot."""
        self._say(self._group, self.run, self.id, parts)

    @property
    def inbox(self):
        """Frames heard this tick with each sender's range and bearing (``RobotInbox``)."""
        return self._port().robot_inbox(self._index)


_VIEW_CLASSES: dict[int, type] = {}


def robot_view_class(robot_type) -> type:
    """The per-robot view class of a robot type: :class:`RobotView` plus its host functions."""
    cls = _VIEW_CLASSES.get(id(robot_type))
    if cls is None:
        methods = {h.name: h.fn for h in robot_type.host_api}
        name = "".join(p.capitalize() for p in robot_type.name.split("_")) + "Robot"
        cls = type(name, (RobotView,), {"__doc__": robot_type.doc or RobotView.__doc__,
                                        "_devices": tuple(robot_type.devices),
                                        "_host": tuple(methods), **methods})
        _VIEW_CLASSES[id(robot_type)] = cls
    return cls


class GroupView(_View):
    """A whole robot group across all runs of a batch: every array has robots on axis 0.

    Same reading names as :class:`RobotView` (full arrays); commands are arrays named after the
    type's commands (E-Puck2: ``wheels`` float64[n, 2] m/s and ``leds`` uint8[n, 10, 3]).
    ``robot_id`` and ``run`` say who each row is. ``uniform(k)`` draws float64[n, k] in [0, 1)
    from each robot's own stream for this tick, so a batched run reproduces the same run
    simulated alone. ``run_params[r]`` are run ``r``'s controller parameters;
    ``param(name, default)`` gives one of them per robot (float64[n]) for vectorised use.
    With the group's radio on, ``outbox`` (uint8[n, max bytes]) and ``out_size`` (int32[n]) are
    this tick's frames (or call ``send``), and ``inbox`` is what each robot heard (a
    :class:`~swarmstack.controllers.radio.GroupInbox`).
    """

    _no_radio = ("group {self.name!r} has no radio: set radio = true on it in the experiment "
                 "file")

    def __init__(self, name: str, readings: dict, commands: dict, robot_id, run, keys, clock,
                 run_params: list | None = None, devices: tuple = ()):
        self.name = name
        self.commands = commands
        self._readings = tuple(readings)
        self._devices = tuple(devices)
        self.robot_id = robot_id
        self.run = run
        self.run_params = run_params if run_params is not None else [{}]
        self._keys = np.ascontiguousarray(keys)
        self._clock = clock
        self._draws = 0
        for k, v in (*commands.items(), *readings.items()):
            setattr(self, k, v)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        raise _missing(f"group {self.__dict__.get('name')!r}", name,
                       self.__dict__.get("_devices", ()), self.__dict__.get("_readings", ()),
                       list(self.__dict__.get("commands", ())),
                       [n for n in _public(type(self))])

    @property
    def n(self) -> int:
        return self.robot_id.shape[0]

    def param(self, name: str, default: Any = None) -> np.ndarray:
        """Parameter ``name`` of each robot's run, as float64[n] (``default`` where a run does
        not set it; without a default, a run that lacks it is an error)."""
        values = []
        for r, p in enumerate(self.run_params):
            if name not in p and default is None:
                raise KeyError(f"group {self.name!r}: run {r} has no controller parameter "
                               f"{name!r}")
            values.append(float(p.get(name, default)))
        return np.array(values)[self.run]

    def log(self, row: int, *parts) -> None:
        """A line of debug text from the robot in row ``row`` (see ``RobotView.log``)."""
        self._say(self.name, self.run[row], self.robot_id[row], parts)

    @property
    def outbox(self) -> np.ndarray:
        return self._port().outbox

    @property
    def out_size(self) -> np.ndarray:
        return self._port().out_size

    def send(self, data) -> None:
        """Every robot broadcasts: ``data`` is one frame (bytes) for all or uint8[n, k]."""
        self._port().send_all(data)

    @property
    def inbox(self):
        return self._port().group_inbox()

    def neighbour_sums(self, per_m: float) -> tuple:
        """Per robot: how many robots it heard (int64[n]) and ``Σ (1/(1 + per_m·d), ∠bearing)``
        over them (float64[n, 2]; d in m, bearing in the robot's frame). A controller that
        reads only these (never ``inbox``) lets the radio skip listing each reception."""
        return self._port().neighbour_sums(per_m)

    def uniform(self, k: int = 1) -> np.ndarray:
        """float64[n, k] uniform draws; successive calls within a tick give fresh numbers."""
        # tick and draw counter together make the counter; each robot hashes its own key
        counter = self._clock.tick * 1024 + self._draws
        self._draws = (self._draws + 1) % 1024
        return uniform_array(self._keys, counter, k)

    def _new_tick(self) -> None:
        self._draws = 0
