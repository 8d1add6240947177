"""Controller contracts: per-robot Python controllers and batched (whole-group) controllers.

Per-robot (one instance per robot)::

    class Avoid(Controller):
        def init(self, robot, params): self.speed = params.get("speed", 0.1)
        def step(self, robot):
            left, right = (self.speed, -self.speed) if robot.proximity[0] > 300 else \\
                          (self.speed, self.speed)
            robot.set_wheels(left, right)

Batched (one instance per group; every array has the group's robots on axis 0, across all runs
of a batch)::

    class AvoidBatched(BatchedController):
        def step(self, group):
            blocked = group.proximity[:, [0, 7]].max(axis=1) > 300
            group.wheels[:, 0] = 0.1
            group.wheels[:, 1] = np.where(blocked, -0.1, 0.1)

Order inside a tick: sensors → controllers → actuators → physics. ``init`` runs once before the
first tick; ``reset`` when the simulation is reset.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

LogFn = Callable[[str, int, int, int, str], None]  # (group, run, robot id, tick, text)


class Controller:
    """Base for per-robot controllers. ``robot`` is a :class:`~swarmstack.controllers.views.RobotView`."""

    batched = False

    def init(self, robot, params: dict[str, Any]) -> None:
        pass

    def step(self, robot) -> None:
        raise NotImplementedError

    def reset(self, robot) -> None:
        pass


class BatchedController:
    """Base for batched controllers. ``group`` is a :class:`~swarmstack.controllers.views.GroupView`."""

    batched = True

    def init(self, group, params: dict[str, Any]) -> None:
        pass

    def step(self, group) -> None:
        raise NotImplementedError

    def reset(self, group) -> None:
        pass


class ControllerError(RuntimeError):
    """A controller raised: says which robot (run, id) and carries the formatted traceback."""

    def __init__(self, group: str, run: int, robot_id: int | None, tb: str):
        who = f"robot {robot_id} of group {group!r}" if robot_id is not None else \
            f"the batched controller of group {group!r}"
        super().__init__(f"controller of {who} (run {run}) raised:\n{tb}")
        self.group = group
        self.run = run
        self.robot_id = robot_id
        self.traceback = tb


class ScriptController:
    """The controller of one group whose robots each run a script (Buzz, Lua), in all runs;
    driven by the simulation like a batched controller (``init`` / ``step`` / ``reset`` on the
    group view). A robot whose script fails stops alone (:meth:`_silence`, :meth:`_record`)."""

    batched = True
    language = ""

    def __init__(self, group, script: Path, source, views: list, port, log: LogFn,
                 strict: bool = False):
        self.group = group
        self.cfg = group.cfg.controller
        self.script = Path(script)
        self.source = source
        self.views = views          # one RobotView per row (host functions act on them)
        self.port = port            # RadioPort or None (radio off: the robots hear nothing)
        self.log = log
        self.strict = strict
        self.failures: list[dict] = []
        # bool per row, or None: robots whose script does not step this tick (a real robot out
        # of reach: swarmstack.bridge)
        self.paused = None
        self.clock = None
        self._safe = [(group.commands[c.name], c.safe) for c in group.robot_type.commands]

    def init(self, group_view, params: dict) -> None:
        self.clock = group_view._clock
        self._load()

    def _tick(self) -> int:
        return self.clock.tick if self.clock is not None else 0

    def _silence(self, k: int) -> None:
        """Row ``k``'s script failed: its commands go to the type's safe values and it falls
        silent on the radio."""
        for arr, safe in self._safe:
            arr[k] = safe
        if self.port is not None:
            self.port.silence(k)

    def _record(self, k: int, where: str, error: str, report: str, said: str) -> None:
        """The failure of row ``k``'s script, recorded and logged as ``said``; ``strict``
        stops the run with a ControllerError."""
        view = self.views[k]
        tick = self._tick()
        self.failures.append({"group": self.group.name, "run": view.run, "robot": view.id,
                              "tick": tick, "where": where, "error": error, "report": report})
        said = f"{self.language} error ({where}): {said}"
        self.log(self.group.name, view.run, view.id, tick, said)
        if self.strict:
            raise ControllerError(self.group.name, view.run, view.id, said)
