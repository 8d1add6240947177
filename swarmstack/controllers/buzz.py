"""Buzz controllers on simulated robots: ``controller = { buzz = "flock.bzz" }`` on a group.

Every robot of the group (in every run of a batch) gets its own Buzz VM and swarm layer, and
each tick takes the same control step as in the standalone harness
(:class:`swarmstack.buzz.swarm.robot.BuzzRobot`): sensor globals → what it heard on the
range-and-bearing medium last tick → ``step()`` → the frame it broadcasts. What the script can
call and read comes from the robot type: every host function (``set_wheels``, ``goto`` …)
becomes a closure, every enabled device with a script form a global (``proximity``, ``pose``
…), see ``docs/buzz-robot-api.md``. Globals ``id`` (the robot's id in its run),
``robot_type`` and ``robot_group`` let one script serve a heterogeneous swarm
(``s.select(robot_type == "epuck2")``).

Lengths follow the controller's ``distance_unit`` (cm by default, as in ARGoS): neighbour
distances and every host-function argument the type marks as a length or speed.

A runtime error on one robot stops that robot's VM: its commands go to the type's safe values
(wheels 0), it falls silent on the radio, and the failure is logged with tick, robot id and the
Buzz stack trace; the run goes on (``strict``: the run stops with a ControllerError).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Callable

from swarmstack.buzz.errors import BuzzRaise
from swarmstack.buzz.swarm.harness import make_vm
from swarmstack.buzz.swarm.robot import BuzzRobot
from swarmstack.buzz.values import HostClosure
from swarmstack.buzz.vm import reserved_stack
from swarmstack.controllers.api import ScriptController

_NUMBERS = (int, float)


class BuzzScriptError(ValueError):
    """The script cannot be read or compiled: a located ``FILE:LINE:COL: message``."""


def compile_script(path: Path, profile: str = "buzz") -> str:
    """Read and compile once, as ``swarmstack buzz check`` does (bytes that are not UTF-8 are
    kept in strings and comments, as the reference reads them; anywhere else they are a located
    error), so a broken script fails before tick 0."""
    from swarmstack.buzz.errors import BuzzError
    from swarmstack.buzz.scanner import read_source
    from swarmstack.buzz.vm import load_program

    try:
        source = read_source(path)
    except OSError as exc:
        raise BuzzScriptError(f"cannot read Buzz script {path}: {exc.strerror}") from None
    try:
        load_program(source, str(path), (str(path.parent),), profile)
    except BuzzError as exc:
        raise BuzzScriptError(str(exc)) from None
    return source


def _arity(fn: Callable) -> tuple[int, int]:
    """(fewest, most) arguments after ``robot``; most is -1 for functions taking ``*args``."""
    params = list(inspect.signature(fn).parameters.values())[1:]
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 0, -1
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return sum(p.default is p.empty for p in positional), len(positional)


def host_closure(host_fn, view, scale: float) -> HostClosure:
    """``host_fn`` of one robot as a Buzz closure: numbers in, lengths divided by ``scale``
    (script units per metre), a wrong argument a located Buzz error."""
    fn, name, lengths = host_fn.fn, host_fn.name, host_fn.lengths
    fewest, most = _arity(fn)

    def convert(args):
        out = list(args)
        for i, a in enumerate(out):
            if a.__class__ not in _NUMBERS:
                raise BuzzRaise(f"{name}: argument {i + 1} must be a number, "
                                f"found {_kind(a)}")
        for i in lengths:
            if i < len(out):
                out[i] = out[i] / scale
        return out

    def call(vm, *args):
        if len(args) < fewest or (most >= 0 and len(args) > most):
            want = str(fewest) if fewest == most else f"{fewest} to {most}" if most >= 0 \
                else f"at least {fewest}"
            raise BuzzRaise(f"{name} takes {want} argument{'s' * (most != 1)}, "
                            f"found {len(args)}")
        try:
            fn(view, *convert(args))
        except BuzzRaise:
            raise
        except (TypeError, ValueError, IndexError, OverflowError) as exc:
            raise BuzzRaise(f"{name}: {exc}") from None
        return None

    def direct(_closure, *args):
        return call(None, *args)

    fixed = fewest == most
    return HostClosure(call, name, direct=direct if fixed else None, arity=most if fixed else -1)


def _kind(v: Any) -> str:
    return "nil" if v is None else "a table" if isinstance(v, dict) else \
        "a string" if isinstance(v, str) else "a closure"


class BuzzController(ScriptController):
    """The Buzz controller of one group: a VM and a swarm layer per robot."""

    language = "Buzz"

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.robots: list[BuzzRobot] = []
        self._runs = [v.run for v in self.views]
        self._ids = self.port.bodies.robot_id.tolist() if self.port is not None else []
        # the script globals the group's enabled devices offer: (name, readings, convert)
        g = self.group
        self._sensors = [(spec.script.name, g.readings[dev.name], spec.script.convert)
                         for name, spec in g.robot_type.devices.items()
                         if spec.script is not None
                         for dev in [g.devices.get(name)] if dev is not None]

    # ------------------------------------------------------------------ lifecycle
    def reset(self, group_view) -> None:
        self._load()

    def _load(self) -> None:
        g = self.group
        rt = g.robot_type
        unit_robot = None
        self.robots = []
        self.failures = []
        self._oversize = [0] * len(self.views)
        include = (str(self.script.parent),)
        keys = g.streams.keys("controller")
        for k, view in enumerate(self.views):
            log = self._logger(view.run, view.id)
            params = g.params[view.run]
            try:
                vm = make_vm(self.source, str(self.script), view.id, self.cfg.profile, include,
                             int(keys[k]) & 0x7FFFFFFF, log)
                robot = BuzzRobot(vm, view.id, self.cfg.profile, self.cfg.distance_unit)
            except Exception as exc:  # cannot happen after compile_script, kept for safety
                robot = BuzzRobot(None, view.id, self.cfg.profile, self.cfg.distance_unit,
                                  error=exc)
            unit_robot = robot
            host = {h.name: host_closure(h, view, robot.scale) for h in rt.host_api}
            host.update(robot_type=rt.name, robot_group=g.name)
            robot.install(host, params)
            self.robots.append(robot)
        if unit_robot is not None:
            wants = unit_robot.wants  # the same program for every robot of the group
            self._sensors = [s for s in self._sensors if s[0] in wants]
        with reserved_stack():
            for k, robot in enumerate(self.robots):
                if not robot.result.failed:
                    self._sense(robot, k)
                    robot.start()
                if robot.result.failed:
                    self._failed(k)

    def _logger(self, run: int, robot_id: int) -> Callable[[str], None]:
        log, name = self.log, self.group.name
        return lambda text: log(name, run, robot_id, self._tick(), text)

    # ------------------------------------------------------------------ the tick
    def _sense(self, robot: BuzzRobot, k: int) -> None:
        vm = robot.vm
        for name, readings, convert in self._sensors:
            vm.set_global(name, convert(readings[k]))

    def step(self, group_view) -> None:
        port = self.port
        stepno = self.clock.tick + 1
        if port is not None:
            inbox = port.medium.inbox
            start, senders, dist, az, el = (a.tolist() for a in (
                inbox.start, inbox.sender, inbox.distance_m, inbox.azimuth_rad,
                inbox.elevation_rad))
            ids = self._ids
            frames = _frames(inbox)
            caps = port.cap.tolist()
            base = port.rows.start
        decoded: dict[int, dict] = {}
        sensors = self._sensors
        with reserved_stack():
            paused = self.paused
            for k, robot in enumerate(self.robots):
                if robot.result.failed or (paused is not None and paused[k]):
                    continue
                if port is not None:
                    b = base + k
                    heard = [(ids[s], frames(s), dist[m], az[m], el[m])
                             for m in range(start[b], start[b + 1])
                             for s in (senders[m],)]
                    cap = caps[k]
                else:
                    heard, cap = [], None
                sense = (lambda r, k=k: self._sense(r, k)) if sensors else None
                packet = robot.step(heard, decoded.setdefault(self._runs[k], {}), cap, stepno,
                                    sense)
                if packet is None:
                    self._failed(k)
                    continue
                if port is not None:
                    port.send(k, packet)
                lost = robot.service.out.oversize
                if lost != self._oversize[k]:
                    self._refused(k, lost - self._oversize[k], cap)
                    self._oversize[k] = lost

    def _refused(self, k: int, count: int, cap) -> None:
        """Messages too long for any frame under the cap: discarded (as the reference VM does),
        counted with the medium's refused frames, and said once per robot in the log."""
        view = self.views[k]
        if self.port is not None:
            self.port.medium.stats.refused[view.run] += count
        if not self._oversize[k]:
            self.log(self.group.name, view.run, view.id, self.clock.tick,
                     f"a Buzz message longer than the radio's payload_bytes = {cap} was "
                     "discarded (it can never be sent; raise radio.payload_bytes)")

    def _failed(self, k: int) -> None:
        r = self.robots[k].result
        self._silence(k)
        self._record(k, r.failed_at, r.error, r.report, r.report or r.error)

    # ------------------------------------------------------------------ inspection
    def get_global(self, k: int, name: str) -> Any:
        return self.robots[k].get_global(name)

    def results(self) -> list:
        return [r.finish() for r in self.robots]


def _frames(inbox) -> Callable[[int], bytes]:
    """Sender body index → its frame as bytes, made once per sender per tick (the swarm layer
    decodes a frame once for all its receivers by identity)."""
    cache: dict[int, bytes] = {}
    sent, size = inbox.sent, inbox.sent_size

    def frame(s: int) -> bytes:
        f = cache.get(s)
        if f is None:
            n = int(size[s])
            f = cache[s] = sent[s, :n].tobytes() if n > 0 else b""
        return f

    return frame
