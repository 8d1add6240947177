"""What every robot type's controllers see, whatever the type: the typed interfaces of each
type (``controllers/epuck2.py``, ``crazyflie.py``, ``rvr.py``) add their readings and host
functions to these.

A type's interfaces annotate each reading and command array with :class:`Array`
(``Annotated[np.ndarray, Array("int32", (8,))]``): editors see a NumPy array, and the tests
check every annotation against the robot type itself (each device the type can carry is a
reading of its reading's dtype and shape, each command a command array of the group, each host
function a method of the robot, and nothing else), so the interfaces follow the type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Union

import numpy as np

from swarmstack.controllers.radio import GroupInbox, RobotInbox


@dataclass(frozen=True)
class Array:
    """An attribute's NumPy array: ``dtype`` (a NumPy type name, or ``"record"`` for a
    structured array) and ``shape``. In a robot's interface the shape is one robot's reading;
    in a group's, robots are axis 0 (``"n"``). A dimension given as a name is a size the
    experiment file sets (``"B"``: the camera's ``max_blobs``)."""

    dtype: str
    shape: tuple[Union[int, str], ...]


class AnyRobot(Protocol):
    """One robot (per-robot controllers)."""

    id: int                    # robot id inside its run
    run: int                   # run index inside a batch
    rng: np.random.Generator   # this robot's own random stream
    params: dict               # its run's controller parameters

    @property
    def tick(self) -> int: ...

    @property
    def dt(self) -> float: ...

    @property
    def inbox(self) -> RobotInbox: ...   # frames heard this tick (radio on)

    def send(self, data) -> bool: ...     # broadcast bytes this tick; False over the cap

    def log(self, *parts) -> None: ...    # a line of debug text (logs, viewer)


class AnyGroup(Protocol):
    """Every robot of a group, across all runs of a batch (batched controllers)."""

    name: str
    robot_id: np.ndarray       # int64[n]
    run: np.ndarray            # int64[n]
    run_params: list           # each run's controller parameters
    outbox: np.ndarray         # uint8[n, max bytes]: this tick's frames (radio on)
    out_size: np.ndarray       # int32[n]: bytes of each frame

    @property
    def inbox(self) -> GroupInbox: ...

    def send(self, data) -> None: ...

    @property
    def n(self) -> int: ...

    @property
    def tick(self) -> int: ...

    @property
    def dt(self) -> float: ...

    def uniform(self, k: int = 1) -> np.ndarray: ...

    def param(self, name: str, default=None) -> np.ndarray: ...

    def log(self, row: int, *parts) -> None: ...
