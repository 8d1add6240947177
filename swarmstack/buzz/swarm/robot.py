"""One robot running Buzz: its VM, its swarm layer and the control step they share.

:class:`BuzzRobot` is the single per-robot step used by the standalone harness
(:mod:`.harness`) and by the simulator's Buzz controllers: whatever drives the robots (an
in-memory radio or the simulated range-and-bearing medium), a robot's step is the control
step of :mod:`.service` -- sensors (the host's ``sense(robot)`` callback), incoming
messages, ``step()``, outgoing frame.

A runtime error anywhere marks the robot failed (:attr:`BuzzRobot.result`), with the error,
the Buzz stack trace and where it happened ("step 12 (incoming messages)", ...); a failed
robot stays silent from then on.

Distances the script sees and gives (neighbour ``distance``, the vectors of ``goto``, wheel
speeds) are in ``distance_unit``: ``cm`` by default, as ARGoS's range-and-bearing sensor reports
them, so scripts written for ARGoS's Buzz integration run unchanged; ``m`` and ``mm`` are the
alternatives. Angles are radians.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .service import SwarmService

DISTANCE_UNITS: dict[str, float] = {"m": 1.0, "cm": 100.0, "mm": 1000.0}
DEFAULT_DISTANCE_UNIT = "cm"


def distance_scale(unit: str) -> float:
    """Script units per metre for ``unit`` (``"cm"`` → 100)."""
    try:
        return DISTANCE_UNITS[unit]
    except KeyError:
        raise ValueError(f"distance unit must be one of {', '.join(DISTANCE_UNITS)}; "
                         f"found {unit!r}") from None


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


class BuzzRobot:
    """A robot's VM plus swarm layer. ``vm`` is None when the script did not compile (then
    ``error`` says why and the robot starts failed)."""

    def __init__(self, vm: Any, robot_id: int, profile: str = "buzz",
                 distance_unit: str = DEFAULT_DISTANCE_UNIT, error: Any = None):
        self.vm = vm
        self.id = robot_id
        self.scale = distance_scale(distance_unit)
        self.result = RobotResult(robot_id)
        self.service: Optional[SwarmService] = None
        self.builtins: dict[str, Any] = {}
        self.wants: frozenset = frozenset()
        if vm is None:
            self.fail("load", error)
            return
        self.service = SwarmService(vm, robot_id, profile, distance_scale=self.scale)

    # ------------------------------------------------------------------ lifecycle
    def install(self, host_globals: dict[str, Any], params: Optional[dict[str, Any]] = None) -> None:
        """The swarm layer, the host's closures and globals (set only where the script's VM
        has no global of that name already), then ``params`` (always set)."""
        if self.result.failed:
            return
        vm = self.vm
        try:
            self.service.install()
            for name, value in host_globals.items():
                if _get_global(vm, name) is None:
                    vm.set_global(name, value)
            for name, value in (params or {}).items():
                vm.set_global(name, value)
        except Exception as e:
            self.fail("load", e)
        self.builtins = globals_of(vm)
        strings = getattr(getattr(vm, "program", None), "strings", None)
        # names the script mentions: sensor globals it never reads need not be refreshed
        self.wants = frozenset(strings) if strings is not None else _ALL

    def start(self) -> bool:
        """Run the top level, then ``init()``; False if the robot failed."""
        if self.result.failed:
            return False
        vm = self.vm
        for where, fn in (("top level", "run_top_level"), ("init", "init")):
            try:
                getattr(vm, fn)()
            except Exception as e:
                self.fail(where, e)
                return False
            if getattr(vm, "failed", False):
                self.fail(where)
                return False
        return True

    def step(self, inbox, decoded: Optional[dict], cap: Optional[int], stepno: int,
             sense: Optional[Callable[["BuzzRobot"], None]] = None) -> Optional[bytes]:
        """One control step (sensors, incoming, ``step()``, outgoing); returns the frame to
        broadcast, or None if the robot failed (now or before)."""
        if self.result.failed:
            return None
        vm = self.vm
        svc = self.service
        try:
            if sense is not None:
                sense(self)
            svc.receive(inbox, decoded)
            if vm.failed:
                self.fail(f"step {stepno} (incoming messages)")
                return None
            vm.step()
            if vm.failed:
                self.fail(f"step {stepno}")
                return None
            return svc.emit(cap)
        except Exception as e:
            self.fail(f"step {stepno}", e)
            return None

    def fail(self, where: str, err: Any = None) -> None:
        r = self.result
        if r.failed:
            return
        msg = getattr(self.vm, "error", None) if self.vm is not None else None
        error = msg or err
        r.failed = True
        r.error = str(error or "unknown error")
        # location, source line with a caret and the Buzz stack trace, when the VM has them
        r.report = error.pretty() if hasattr(error, "pretty") else r.error
        r.failed_at = where

    def finish(self) -> RobotResult:
        """The result with the final user globals and stigmergy contents filled in."""
        if self.vm is not None:
            self.result.globals = user_globals(self.vm, self.builtins)
            if self.service is not None:
                self.result.stigmergy = self.service.stigmergy_contents()
        return self.result

    def get_global(self, name: str) -> Any:
        return None if self.vm is None else _get_global(self.vm, name)


class _Everything(frozenset):
    def __contains__(self, item) -> bool:  # a VM that cannot list its strings wants all
        return True


_ALL = _Everything()


def _get_global(vm: Any, name: str) -> Any:
    try:
        return vm.get_global(name)
    except Exception:
        return None


def globals_of(vm: Any) -> dict[str, Any]:
    g = getattr(vm, "globals", None)
    if callable(g):
        g = g()
    if isinstance(g, dict):
        return dict(g)
    return {}


def user_globals(vm: Any, builtins: dict[str, Any]) -> dict[str, Any]:
    """Globals the script defined or changed (builtins still holding their value are left out)."""
    return {k: v for k, v in globals_of(vm).items()
            if v is not None and not (k in builtins and builtins[k] is v)}
