"""Run N Buzz VMs in lockstep over an in-memory radio, without the simulator.

Robots have ids ``0 .. N-1`` (the reference ``bzzrun`` gives its single robot id 1). Loading a
robot runs the script's top level once and then ``init()``; every step then runs, for each
robot in id order, sensors -> incoming messages -> ``step()`` -> outgoing messages ->
actuators (see :mod:`.service`). The only sensor is ``pose`` (``pose.position.x/y/z`` in
metres, ``pose.orientation.yaw/pitch/roll`` in radians, all headings 0), set each step for
scripts that mention ``pose``; the only actuator is ``goto`` (below). Packets emitted at step ``t`` are heard at step ``t + 1``: the radio
exchange happens between steps, as on a real range-and-bearing board.

A robot whose VM fails (a runtime error in the top level, ``init``, ``step`` or a callback) is
recorded with its error and falls silent; the others carry on.

``params`` are set as globals before the top level runs (e.g. the swarm size a script needs).

The harness provides a ``goto(x, y)`` host closure (unless the script's VM already has one): it
records the last command per robot (robot frame, metres per step); with ``move=True`` robots
actually move by it (at most ``max_speed`` metres per step), which changes distances, bearings
and -- for ``random:R`` -- links.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from swarmstack.buzz.values import HostClosure, Table
from swarmstack.buzz.vm import reserved_stack

from .service import SwarmService
from .topology import InMemoryRadio, Topology, make_topology

LogFn = Callable[[int, str], None]
_NUMBERS = frozenset((int, float))


@dataclass
class RobotResult:
    id: int
    logs: list[str] = field(default_factory=list)
    globals: dict[str, Any] = field(default_factory=dict)
    stigmergy: dict[int, dict[Any, Any]] = field(default_factory=dict)
    failed: bool = False
    error: Optional[str] = None
    report: Optional[str] = None     # error with source line, caret and Buzz stack trace
    failed_at: Optional[str] = None  # "top level", "init", "step 12", ...


@dataclass
class SwarmRun:
    robots: list[RobotResult]
    steps: int
    packets_sent: int = 0
    packets_dropped: int = 0

    @property
    def failed(self) -> list[RobotResult]:
        return [r for r in self.robots if r.failed]

    @property
    def ok(self) -> bool:
        return not self.failed


def _default_vm_factory(source: str, filename: str, robot_id: int, profile: str,
                        include_path: Sequence[Union[str, Path]], seed: int, log: Callable[[str], None]):
    from swarmstack.buzz.vm import BuzzVM

    return BuzzVM(source, filename=filename, robot_id=robot_id, profile=profile,
                  include_path=list(include_path), seed=seed, log=log, io_enabled=False)


def robot_seed(seed: int, robot_id: int) -> int:
    """Per-robot VM seed: distinct robots and distinct runs get distinct streams."""
    return (seed * 1_000_003 + robot_id * 7_919 + 1) & 0x7FFFFFFF


class Harness:
    """N robots running one script. Use :meth:`run`, or :meth:`load` then :meth:`step`."""

    def __init__(
        self,
        source: str,
        n: int,
        *,
        filename: str = "<script>",
        topology: Union[str, Topology] = "full",
        drop: float = 0.0,
        payload_cap: Optional[int] = None,
        seed: int = 0,
        profile: str = "buzz",
        include_path: Sequence[Union[str, Path]] = (),
        on_log: Optional[LogFn] = None,
        move: bool = False,
        max_speed: float = 0.05,
        vm_factory: Optional[Callable[..., Any]] = None,
        params: Optional[dict[str, Any]] = None,
    ):
        if n < 1:
            raise ValueError("need at least one robot")
        self.source = source
        self.n = n
        self.filename = filename
        self.topology = topology if isinstance(topology, Topology) else make_topology(topology, n, seed)
        if self.topology.n != n:
            raise ValueError(f"topology has {self.topology.n} robots, harness {n}")
        self.radio = InMemoryRadio(self.topology, drop=drop, payload_cap=payload_cap, seed=seed)
        self.seed = seed
        self.profile = profile
        self.include_path = list(include_path)
        self.on_log = on_log
        self.move = move
        self.max_speed = max_speed
        self.vm_factory = vm_factory or _default_vm_factory
        self.params = dict(params or {})
        self.results = [RobotResult(i) for i in range(n)]
        self.vms: list[Any] = []
        self.services: list[SwarmService] = []
        self.commands: list[Optional[tuple[float, float]]] = [None] * n
        self.packets: list[Optional[bytes]] = [None] * n
        self.step_count = 0
        self._builtins: list[dict[str, Any]] = []
        self._wants_pose: list[bool] = []
        self._loaded = False

    # ------------------------------------------------------------ loading
    def _logger(self, rid: int) -> Callable[[str], None]:
        logs = self.results[rid].logs
        on_log = self.on_log

        def log(text: str) -> None:
            logs.append(text)
            if on_log is not None:
                on_log(rid, text)

        return log

    def _goto(self, rid: int) -> HostClosure:
        commands = self.commands

        def goto(vm, *args):
            if len(args) < 2:
                return None
            return direct(None, args[0], args[1])

        def direct(_c, x, y):  # goto(x, y) called from Buzz with exactly two arguments
            if x.__class__ in _NUMBERS and y.__class__ in _NUMBERS:
                commands[rid] = (float(x), float(y))
            return None

        return HostClosure(goto, "goto", direct=direct, arity=2)

    def _fail(self, rid: int, where: str, err: Any = None) -> None:
        r = self.results[rid]
        if r.failed:
            return
        vm = self.vms[rid] if rid < len(self.vms) else None
        msg = getattr(vm, "error", None) if vm is not None else None
        r.failed = True
        r.error = str(msg or err or "unknown error")
        error = msg or err
        # location, source line with a caret and the Buzz stack trace, when the VM has them
        r.report = error.pretty() if hasattr(error, "pretty") else r.error
        r.failed_at = where
        self.packets[rid] = None

    def load(self) -> "Harness":
        """Create the VMs, install the swarm layer, run each top level then ``init()``."""
        if self._loaded:
            return self
        self._loaded = True
        for rid in range(self.n):
            log = self._logger(rid)
            try:
                vm = self.vm_factory(self.source, self.filename, rid, self.profile, self.include_path,
                                     robot_seed(self.seed, rid), log)
            except Exception as e:  # a compile error: every robot fails the same way
                self.vms.append(None)
                self.services.append(None)  # type: ignore[arg-type]
                self._builtins.append({})
                self._wants_pose.append(False)
                self._fail(rid, "load", e)
                continue
            svc = SwarmService(vm, rid, self.profile)
            self.vms.append(vm)
            self.services.append(svc)
            try:
                svc.install()
                if _get_global(vm, "goto") is None:
                    vm.set_global("goto", self._goto(rid))
                for k, v in self.params.items():
                    vm.set_global(k, v)
            except Exception as e:
                self._fail(rid, "load", e)
            self._builtins.append(_globals_of(vm))
            strings = getattr(getattr(vm, "program", None), "strings", None)
            self._wants_pose.append(strings is None or "pose" in strings)
        for rid in range(self.n):
            vm = self.vms[rid]
            if vm is None or self.results[rid].failed:
                continue
            for where, fn in (("top level", "run_top_level"), ("init", "init")):
                try:
                    getattr(vm, fn)()
                except Exception as e:
                    self._fail(rid, where, e)
                    break
                if getattr(vm, "failed", False):
                    self._fail(rid, where)
                    break
            if not self.results[rid].failed:
                self.packets[rid] = b""
        return self

    # ------------------------------------------------------------ stepping
    def step(self) -> None:
        """One lockstep control step of every robot that has not failed."""
        if not self._loaded:
            self.load()
        inboxes = self.radio.exchange(self.packets)
        cap = self.radio.payload_cap
        decoded: dict = {}
        stepno = self.step_count + 1
        with reserved_stack():  # room for Buzz recursion, made once for every robot
            self._step_robots(inboxes, decoded, stepno, cap)
        if self.move:
            self._apply_moves()
        self.step_count = stepno

    def _step_robots(self, inboxes, decoded: dict, stepno: int, cap: Optional[int]) -> None:
        results, services, vms, wants_pose = self.results, self.services, self.vms, self._wants_pose
        packets = self.packets
        for rid in range(self.n):
            if results[rid].failed:
                continue
            svc = services[rid]
            vm = vms[rid]
            try:
                if wants_pose[rid]:
                    vm.set_global("pose", self._pose(rid))
                svc.receive(inboxes[rid], decoded)
                if getattr(vm, "failed", False):
                    self._fail(rid, f"step {stepno} (incoming messages)")
                    continue
                vm.step()
                if getattr(vm, "failed", False):
                    self._fail(rid, f"step {stepno}")
                    continue
                packets[rid] = svc.emit(cap)
            except Exception as e:
                self._fail(rid, f"step {stepno}", e)

    def _pose(self, rid: int) -> Table:
        x, y, z = self.topology.positions[rid]
        position = Table()
        position["x"], position["y"], position["z"] = float(x), float(y), float(z)
        orientation = Table()
        orientation["yaw"], orientation["pitch"], orientation["roll"] = 0.0, 0.0, 0.0
        pose = Table()
        pose["position"] = position
        pose["orientation"] = orientation
        return pose

    def _apply_moves(self) -> None:
        pos = self.topology.positions
        moved = False
        for rid, cmd in enumerate(self.commands):
            if cmd is None or self.results[rid].failed:
                continue
            dx, dy = cmd
            norm = math.hypot(dx, dy)
            if norm == 0:
                continue
            if norm > self.max_speed:
                dx, dy = dx * self.max_speed / norm, dy * self.max_speed / norm
            x, y, z = pos[rid]
            pos[rid] = (x + dx, y + dy, z)
            moved = True
        if moved:
            self.topology.moved()

    def run(self, steps: int, until: Optional[Callable[["Harness"], bool]] = None) -> SwarmRun:
        """Load, then step ``steps`` times (or until ``until(harness)`` is true)."""
        self.load()
        for _ in range(steps):
            if until is not None and until(self):
                break
            self.step()
        return self.finish()

    def finish(self) -> SwarmRun:
        """Collect each robot's final globals and stigmergy contents."""
        for rid in range(self.n):
            vm = self.vms[rid] if rid < len(self.vms) else None
            if vm is None:
                continue
            r = self.results[rid]
            r.globals = user_globals(vm, self._builtins[rid])
            svc = self.services[rid]
            if svc is not None:
                r.stigmergy = svc.stigmergy_contents()
        return SwarmRun(self.results, self.step_count, self.radio.sent, self.radio.dropped)

    # ------------------------------------------------------------ helpers for experiments
    def get_global(self, rid: int, name: str) -> Any:
        vm = self.vms[rid]
        return None if vm is None else _get_global(vm, name)

    def alive(self) -> list[int]:
        return [i for i in range(self.n) if not self.results[i].failed]


def _get_global(vm: Any, name: str) -> Any:
    try:
        return vm.get_global(name)
    except Exception:
        return None


def _globals_of(vm: Any) -> dict[str, Any]:
    g = getattr(vm, "globals", None)
    if callable(g):
        g = g()
    if isinstance(g, dict):
        return dict(g)
    return {}


def user_globals(vm: Any, builtins: dict[str, Any]) -> dict[str, Any]:
    """Globals the script defined or changed (builtins still holding their value are left out)."""
    out = {}
    for k, v in _globals_of(vm).items():
        if k in builtins and builtins[k] is v:
            continue
        if v is None:
            continue
        out[k] = v
    return out


def run_swarm(source: str, n: int, steps: int, **kwargs: Any) -> SwarmRun:
    """Convenience: ``Harness(source, n, **kwargs).run(steps)``."""
    return Harness(source, n, **kwargs).run(steps)


__all__ = ["Harness", "RobotResult", "SwarmRun", "run_swarm", "user_globals", "robot_seed"]
