"""Run N Buzz VMs in lockstep over an in-memory radio, without the simulator.

Robots have ids ``0 .. N-1`` (the reference ``bzzrun`` gives its single robot id 1). Loading a
robot runs the script's top level once and then ``init()``; every step then runs, for each
robot in id order, sensors -> incoming messages -> ``step()`` -> outgoing messages ->
actuators (see :mod:`.service`). The only sensor is ``pose`` (``pose.position.x/y/z`` in
metres, ``pose.orientation.yaw/pitch/roll`` in radians, all headings 0), set each step for
scripts that mention ``pose``; the only actuator is ``goto`` (below). Neighbour distances and
``goto`` vectors are in the ``distance_unit`` (cm by default, as ARGoS reports them); ``pose`` is in
metres. Packets emitted at step ``t`` are heard at step ``t + 1``: the radio
exchange happens between steps, as on a real range-and-bearing board.

A robot whose VM fails (a runtime error in the top level, ``init``, ``step`` or a callback) is
recorded with its error and falls silent; the others carry on.

``params`` are set as globals before the top level runs (e.g. the swarm size a script needs).

The harness provides a ``goto(x, y)`` host closure (unless the script's VM already has one): it
records the last command per robot (robot frame, distance units per step); with ``move=True`` robots
actually move by it (at most ``max_speed`` metres per step), which changes distances, bearings
and -- for ``random:R`` -- links.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from swarmstack.buzz.values import HostClosure, Table
from swarmstack.buzz.vm import reserved_stack

from .radio import Radio
from .robot import DEFAULT_DISTANCE_UNIT, BuzzRobot, RobotResult, distance_scale, user_globals
from .topology import InMemoryRadio, Topology, make_topology

LogFn = Callable[[int, str], None]
_NUMBERS = frozenset((int, float))


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


def make_vm(source: str, filename: str, robot_id: int, profile: str,
            include_path: Sequence[Union[str, Path]], seed: int, log: Callable[[str], None]):
    """A Buzz VM for one robot (file I/O off: a robot's script reads no files)."""
    from swarmstack.buzz.vm import BuzzVM

    return BuzzVM(source, filename=filename, robot_id=robot_id, profile=profile,
                  include_path=list(include_path), seed=seed, log=log, io_enabled=False)


def robot_seed(seed: int, robot_id: int) -> int:
    """Per-robot VM seed: distinct robots and distinct runs get distinct streams."""
    return (seed * 1_000_003 + robot_id * 7_919 + 1) & 0x7FFFFFFF


class Harness:
    """N robots running one script. Use :meth:`run`, or :meth:`load` then :meth:`step`.

    ``radio`` (optional) is any :class:`~swarmstack.buzz.swarm.radio.Radio` for N robots, e.g.
    the simulator's range-and-bearing medium (:class:`swarmstack.media.MediumRadio`); without
    one the harness makes an :class:`InMemoryRadio` over ``topology`` with ``drop`` and
    ``payload_cap``. ``distance_unit`` is the unit of neighbour distances and ``goto`` vectors
    the script sees (``cm`` by default, as in ARGoS; ``m``, ``mm``).
    """

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
        radio: Optional[Radio] = None,
        distance_unit: str = DEFAULT_DISTANCE_UNIT,
    ):
        if n < 1:
            raise ValueError("need at least one robot")
        self.source = source
        self.n = n
        self.filename = filename
        if radio is None:
            self.topology = topology if isinstance(topology, Topology) else \
                make_topology(topology, n, seed)
            if self.topology.n != n:
                raise ValueError(f"topology has {self.topology.n} robots, harness {n}")
            radio = InMemoryRadio(self.topology, drop=drop, payload_cap=payload_cap, seed=seed)
        else:
            self.topology = getattr(radio, "topology", None)
        self.radio = radio
        self.seed = seed
        self.profile = profile
        self.include_path = list(include_path)
        self.on_log = on_log
        self.move = move
        self.max_speed = max_speed
        self.vm_factory = vm_factory or make_vm
        self.params = dict(params or {})
        self.distance_unit = distance_unit
        self.robots: list[BuzzRobot] = []
        self.commands: list[Optional[tuple[float, float]]] = [None] * n
        self.packets: list[Optional[bytes]] = [None] * n
        self.step_count = 0
        self._loaded = False
        distance_scale(distance_unit)  # an unknown unit fails here, not per robot

    @property
    def results(self) -> list[RobotResult]:
        return [r.result for r in self.robots] if self.robots else \
            [RobotResult(i) for i in range(self.n)]

    @property
    def services(self) -> list[Any]:
        return [r.service for r in self.robots]

    # ------------------------------------------------------------ loading
    def _logger(self, rid: int, logs: list[str]) -> Callable[[str], None]:
        on_log = self.on_log

        def log(text: str) -> None:
            logs.append(text)
            if on_log is not None:
                on_log(rid, text)

        return log

    def _goto(self, rid: int, scale: float) -> HostClosure:
        commands = self.commands

        def goto(vm, *args):
            return direct(None, *args[:2]) if len(args) >= 2 else None

        def direct(_c, x, y):  # goto(x, y) called from Buzz with exactly two arguments
            if x.__class__ in _NUMBERS and y.__class__ in _NUMBERS:
                commands[rid] = (float(x) / scale, float(y) / scale)
            return None

        return HostClosure(goto, "goto", direct=direct, arity=2)

    def load(self) -> "Harness":
        """Create the VMs, install the swarm layer, run each top level then ``init()``."""
        if self._loaded:
            return self
        self._loaded = True
        for rid in range(self.n):
            logs: list[str] = []
            try:
                vm = self.vm_factory(self.source, self.filename, rid, self.profile,
                                     self.include_path, robot_seed(self.seed, rid),
                                     self._logger(rid, logs))
                robot = BuzzRobot(vm, rid, self.profile, self.distance_unit)
            except Exception as e:  # a compile error: every robot fails the same way
                robot = BuzzRobot(None, rid, self.profile, self.distance_unit, error=e)
            robot.result.logs = logs
            robot.install({"goto": self._goto(rid, robot.scale)}, self.params)
            self.robots.append(robot)
        for robot in self.robots:
            if robot.start():
                self.packets[robot.id] = b""
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
        packets = self.packets
        sense = self._sense if self.topology is not None else None
        with reserved_stack():  # room for Buzz recursion, made once for every robot
            for robot in self.robots:
                if not robot.result.failed:
                    packets[robot.id] = robot.step(inboxes[robot.id], decoded, cap, stepno,
                                                   sense)
        if self.move and self.topology is not None:
            self._apply_moves()
        self.step_count = stepno

    def _sense(self, robot: BuzzRobot) -> None:
        if "pose" in robot.wants:
            robot.vm.set_global("pose", self._pose(robot.id))

    def _pose(self, rid: int) -> Table:
        x, y, z = self.topology.positions[rid]
        return Table(position=Table(x=float(x), y=float(y), z=float(z)),
                     orientation=Table(yaw=0.0, pitch=0.0, roll=0.0))

    def _apply_moves(self) -> None:
        pos = self.topology.positions
        moved = False
        for rid, cmd in enumerate(self.commands):
            if cmd is None or self.robots[rid].result.failed:
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
        results = [r.finish() for r in self.robots]
        return SwarmRun(results, self.step_count, getattr(self.radio, "sent", 0),
                        getattr(self.radio, "dropped", 0))

    # ------------------------------------------------------------ helpers for experiments
    def get_global(self, rid: int, name: str) -> Any:
        return self.robots[rid].get_global(name) if self.robots else None


def run_swarm(source: str, n: int, steps: int, **kwargs: Any) -> SwarmRun:
    """Convenience: ``Harness(source, n, **kwargs).run(steps)``."""
    return Harness(source, n, **kwargs).run(steps)


__all__ = ["Harness", "RobotResult", "SwarmRun", "run_swarm", "user_globals", "robot_seed",
           "make_vm"]
