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

from typing import Any


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
