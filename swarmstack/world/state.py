"""Dynamic world state as struct-of-arrays, for every robot of every run of a batch.

Layout is *group-major*: all robots of group 0 (run 0 robots, then run 1 robots, …), then group
1, and so on. A group is therefore one contiguous slice, which lets a sensor or a batched
controller work on ``array[group.start:group.stop]`` with no gather, while ``run`` and
``robot_id`` tell which run a robot belongs to and its id inside that run.

Poses are one float64[6, N] block (rows x, y, z, roll, pitch, yaw) so that remembering every
pose before a tick is one copy; ``bodies.x`` etc. are contiguous views of its rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from swarmstack.geometry.grid import build_grid
from swarmstack.geometry.overlap import SHAPE_BOX, SHAPE_DISC
from swarmstack.world.scene import GRID_CELL_M, GroupSlice, Scene  # noqa: F401  (re-exported)

POSE_ROWS = ("x", "y", "z", "roll", "pitch", "yaw")


class Bodies:
    """Pose, shape and velocity of every robot (float64 unless noted; metres and radians).

    ``run`` int64[N] run index inside the batch · ``robot_id`` int64[N] id inside its run ·
    ``x, y`` centre · ``z`` height of the body's base above the floor · ``roll, pitch, yaw``
    (yaw CCW from +x in (−π, π]) · ``shape`` int8[N] (``SHAPE_DISC`` or ``SHAPE_BOX``) ·
    ``radius`` disc radius or a box's bounding radius · ``half_x, half_y`` half extents in the
    body frame · ``height``. ``prev_*`` hold the pose before the last physics step.
    """

    def __init__(self, run, robot_id, x, y, z, yaw, radius, height, shape=None, half_x=None,
                 half_y=None):
        n = int(np.shape(x)[0])
        self.run = np.asarray(run, dtype=np.int64)
        self.robot_id = np.asarray(robot_id, dtype=np.int64)
        self.pose = np.zeros((len(POSE_ROWS), n))
        for row, values in zip((0, 1, 2, 5), (x, y, z, yaw)):
            self.pose[row] = values
        self.prev_pose = self.pose.copy()
        self.radius = np.ascontiguousarray(radius, dtype=np.float64)
        self.height = np.ascontiguousarray(height, dtype=np.float64)
        self.shape = (np.full(n, SHAPE_DISC, dtype=np.int8) if shape is None
                      else np.ascontiguousarray(shape, dtype=np.int8))
        self.half_x = self.radius.copy() if half_x is None else np.ascontiguousarray(half_x, float)
        self.half_y = self.radius.copy() if half_y is None else np.ascontiguousarray(half_y, float)
        self._bind_views()

    def _bind_views(self) -> None:
        for k, name in enumerate(POSE_ROWS):
            setattr(self, name, self.pose[k])
            setattr(self, f"prev_{name}", self.prev_pose[k])

    @property
    def n(self) -> int:
        return int(self.pose.shape[1])

    @property
    def is_box(self) -> np.ndarray:
        return self.shape == SHAPE_BOX

    def velocity(self, dt: float) -> np.ndarray:
        """float64[3, N]: linear velocity (m/s, world frame) over the last tick, contacts
        included — the displacement of the last physics step divided by ``dt``."""
        return (self.pose[:3] - self.prev_pose[:3]) / dt


@dataclass
class Emitters:
    """Coloured light emitters carried by robots (LEDs), in fixed slots per robot.

    ``local`` float64[N, E, 3] body-frame positions; ``world`` the same in the world frame
    (refreshed after physics for every robot with a lit slot: nothing reads where a dark
    emitter is, so a robot whose LEDs are all off keeps its last positions); ``rgb``
    uint8[N, E, 3] current colour (black = off);
    ``intensity`` float64[N, E] the intensity light sensors perceive when lit (0 = invisible to
    light sensors; cameras see every lit emitter).
    """

    local: np.ndarray
    world: np.ndarray
    rgb: np.ndarray
    intensity: np.ndarray
    count: np.ndarray  # int64[N] slots in use per robot


@dataclass
class World:
    """Everything that changes during a batch of runs, on top of its static :class:`Scene`.

    ``drive[g]`` is group ``g``'s drive state (named arrays its dynamics made: e.g. the wheel
    speeds applied in the last step). ``tick`` is the one tick counter of the simulation.
    Scene fields (``arena``, ``grid``, ``static``, ``bounds``, ``dt`` …) read through.
    """

    scene: Scene
    bodies: Bodies
    emitters: Emitters
    drive: list = field(default_factory=list)
    tick: int = 0
    cell_start: np.ndarray = field(default=None)
    order: np.ndarray = field(default=None)

    def __post_init__(self):
        self._scene_args = None
        if self.cell_start is None:
            self.refresh_grid()

    # scene read-through (kernels take plain arrays; these keep call sites short)
    arena = property(lambda self: self.scene.arena)
    grid = property(lambda self: self.scene.grid)
    static = property(lambda self: self.scene.static)
    bounds = property(lambda self: self.scene.bounds)
    groups = property(lambda self: self.scene.groups)
    n_runs = property(lambda self: self.scene.n_runs)
    dt = property(lambda self: self.scene.dt)
    max_radius = property(lambda self: self.scene.max_radius)

    @property
    def bodies_args(self) -> tuple:
        """What sensor kernels read of the bodies: ``(pose, run, radius, height)``."""
        b = self.bodies
        return b.pose, b.run, b.radius, b.height

    @property
    def scene_args(self) -> tuple:
        """What sensor kernels read of the scene and the robot grid, at this moment (the
        contact pass replaces the grid every tick): ``(boxes, cylinders, grid params,
        cell_start, order, box_start, box_items, cylinder_start, cylinder_items,
        max_radius)``; the four in the middle are ``Scene.static``, the per-cell lists of boxes
        and cylinders. One flat tuple: Numba's parallel loops take no tuple inside a tuple.
        Made again only when the grid arrays change (several sensors read it each tick)."""
        made = self._scene_args
        if made is None or made[3] is not self.cell_start or made[4] is not self.order:
            arena = self.scene.arena
            made = self._scene_args = (arena.boxes, arena.cylinders, self.scene.grid,
                                       self.cell_start, self.order, *self.scene.static,
                                       self.scene.max_radius)
        return made

    def refresh_grid(self) -> None:
        b = self.bodies
        self.cell_start, self.order = build_grid(self.scene.grid, b.x, b.y, b.run,
                                                 self.scene.n_runs)

    def group(self, name: str) -> GroupSlice:
        return self.scene.group(name)

    def snapshot(self) -> dict:
        """Copies of everything a run changes: every array of the bodies (poses, previous
        poses …), of the emitters and of the drive states, and the tick. The robot grid is
        not kept: :meth:`restore` rebuilds it from the poses."""
        return {"bodies": _arrays(self.bodies), "emitters": _arrays(self.emitters),
                "drive": [{k: v.copy() for k, v in d.items()} for d in self.drive],
                "tick": self.tick}

    def restore(self, snap: dict) -> None:
        """Back to a :meth:`snapshot`, in place (views on these arrays stay valid)."""
        for obj, saved in ((self.bodies, snap["bodies"]), (self.emitters, snap["emitters"])):
            for name, value in saved.items():
                np.copyto(getattr(obj, name), value)
        for d, saved in zip(self.drive, snap["drive"]):
            for k, v in saved.items():
                np.copyto(d[k], v)
        self.tick = snap["tick"]
        self.refresh_grid()


def _arrays(obj) -> dict:
    """Copies of the arrays ``obj`` holds, but not of those that are views of another one
    (``bodies.x`` is a row of ``bodies.pose``): restoring those would undo changes made to the
    copy of the array they view."""
    arrays = {k: v for k, v in vars(obj).items() if isinstance(v, np.ndarray)}
    held = [id(v) for v in arrays.values()]
    return {k: v.copy() for k, v in arrays.items() if id(v.base) not in held}
