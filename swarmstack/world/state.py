"""Dynamic world state as struct-of-arrays, for every robot of every run of a batch.

Layout is *group-major*: all robots of group 0 (run 0 robots, then run 1 robots, …), then group
1, and so on. A group is therefore one contiguous slice, which lets a sensor or a batched
controller work on ``array[group.start:group.stop]`` with no gather, while ``run`` and
``robot_id`` tell which run a robot belongs to and its id inside that run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from swarmstack.geometry.grid import build_grid, grid_params
from swarmstack.geometry.static_index import build_static_index
from swarmstack.world.arena import Arena

GRID_CELL_M = 0.18  # ≥ a proximity ray's reach from a robot centre plus half a cell: 3×3 queries


@dataclass
class Bodies:
    """Pose and shape of every robot (float64 unless noted; metres and radians)."""

    run: np.ndarray        # int64[N] run index inside the batch
    robot_id: np.ndarray   # int64[N] id inside its run (unique across groups)
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray          # height of the body's base above the floor
    yaw: np.ndarray        # CCW from +x, in (−π, π]
    radius: np.ndarray
    height: np.ndarray
    prev_x: np.ndarray = field(default=None)
    prev_y: np.ndarray = field(default=None)
    prev_yaw: np.ndarray = field(default=None)

    def __post_init__(self):
        if self.prev_x is None:
            self.prev_x = self.x.copy()
            self.prev_y = self.y.copy()
            self.prev_yaw = self.yaw.copy()

    @property
    def n(self) -> int:
        return int(self.x.shape[0])

    def remember_pose(self) -> None:
        np.copyto(self.prev_x, self.x)
        np.copyto(self.prev_y, self.y)
        np.copyto(self.prev_yaw, self.yaw)


@dataclass
class Emitters:
    """Coloured light emitters carried by robots (LEDs), in fixed slots per robot.

    ``local`` float64[N, E, 3] body-frame positions; ``world`` the same in the world frame
    (refreshed after physics); ``rgb`` uint8[N, E, 3] current colour (black = off);
    ``intensity`` float64[N, E] the intensity light sensors perceive when lit (0 = invisible to
    light sensors; cameras see every lit emitter).
    """

    local: np.ndarray
    world: np.ndarray
    rgb: np.ndarray
    intensity: np.ndarray
    count: np.ndarray  # int64[N] slots in use per robot


@dataclass(frozen=True)
class GroupSlice:
    """Where a robot group lives in the arrays."""

    name: str
    robot_type: str
    start: int
    stop: int
    per_run: int
    id_offset: int  # robot ids of this group inside a run are id_offset … id_offset + per_run − 1

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)

    @property
    def n(self) -> int:
        return self.stop - self.start


@dataclass
class World:
    """Everything that changes during a batch of runs, plus the static arena."""

    arena: Arena
    bodies: Bodies
    emitters: Emitters
    groups: list[GroupSlice]
    n_runs: int
    dt: float
    tick: int = 0
    grid: np.ndarray = field(default=None)        # grid params (see geometry.grid)
    cell_start: np.ndarray = field(default=None)
    order: np.ndarray = field(default=None)
    bounds: np.ndarray = field(default=None)      # float64[4] arena bounds for kernels
    wheel_speed: np.ndarray = field(default=None)  # float64[N, 2] (left, right) m/s applied last step
    static: tuple = field(default=None)           # static shapes near each grid cell (CSR)

    def __post_init__(self):
        self.bounds = np.array(self.arena.bounds, dtype=np.float64)
        if self.wheel_speed is None:
            self.wheel_speed = np.zeros((self.bodies.n, 2))
        if self.grid is None:
            # cells at least a robot diameter wide (an invariant the kernels rely on) and about
            # the reach of short-range sensors keep most queries to a 3×3 block
            r = float(self.bodies.radius.max()) if self.bodies.n else 0.05
            self.grid = grid_params(self.arena.bounds, max(2.0 * r, GRID_CELL_M))
        # queries reaching at most one cell from a point use the per-cell static lists
        self.static = build_static_index(self.grid, self.arena.boxes, self.arena.cylinders,
                                         margin=float(self.grid[2]))
        self.refresh_grid()

    @property
    def max_radius(self) -> float:
        return float(self.bodies.radius.max()) if self.bodies.n else 0.0

    def refresh_grid(self) -> None:
        b = self.bodies
        self.cell_start, self.order = build_grid(self.grid, b.x, b.y, b.run, self.n_runs)

    def group(self, name: str) -> GroupSlice:
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(name)
