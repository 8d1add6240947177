"""The static scene: everything about a batch of runs that never changes during it.

Like MuJoCo's model (vs. its data) or Brax's system (vs. its state): the arena and its static
shapes, the spatial grid's parameters and the static-shape index over its cells, where each
robot group lives in the arrays, the number of runs and the tick length. Built once by
``experiments.build``; the dynamic :class:`~swarmstack.world.state.World` refers to it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.geometry.grid import grid_params
from swarmstack.geometry.static_index import build_static_index
from swarmstack.world.arena import Arena

GRID_CELL_M = 0.18  # ≥ a proximity ray's reach from a robot centre plus half a cell: 3×3 queries


@dataclass(frozen=True)
class GroupSlice:
    """Where a robot group lives in the arrays."""

    name: str
    robot_type: str
    start: int
    stop: int
    per_run: int
    id_offset: int  # robot ids of this group inside a run are id_offset … id_offset + per_run − 1
    index: int = 0  # position of the group in the scene's list

    @property
    def slice(self) -> slice:
        return slice(self.start, self.stop)

    @property
    def n(self) -> int:
        return self.stop - self.start


@dataclass(frozen=True)
class Scene:
    """Static description of a batch: arena, grid, static index, group layout, runs, tick.

    ``grid`` float64[5] (see ``geometry.grid``) has cells at least a robot diameter wide (an
    invariant the kernels rely on); ``static`` is the per-cell CSR index of boxes and cylinders
    (``geometry.static_index``); ``max_radius`` the largest body's (bounding) radius.
    """

    arena: Arena
    groups: tuple[GroupSlice, ...]
    n_runs: int
    dt: float
    max_radius: float
    grid: np.ndarray
    bounds: np.ndarray
    static: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]

    @staticmethod
    def create(arena: Arena, groups, n_runs: int, dt: float, max_radius: float) -> "Scene":
        r = max_radius if max_radius > 0 else 0.05
        # cells about the reach of short-range sensors keep most queries to a 3×3 block
        grid = grid_params(arena.bounds, max(2.0 * r, GRID_CELL_M))
        static = build_static_index(grid, arena.boxes, arena.cylinders, margin=float(grid[2]))
        return Scene(arena, tuple(groups), int(n_runs), float(dt), float(max_radius), grid,
                     np.array(arena.bounds, dtype=np.float64), static)

    def group(self, name: str) -> GroupSlice:
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(name)
