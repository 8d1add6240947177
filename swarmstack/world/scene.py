"""The static scene: everything about a batch of runs that never changes during it.

Like MuJoCo's model (vs. its data) or Brax's system (vs. its state): the arena and its static
shapes, the spatial grid's parameters and the static-shape index over its cells, where each
robot group lives in the arrays, the number of runs and the tick length. Built once by
``experiments.build``; the dynamic :class:`~swarmstack.world.state.World` refers to it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from swarmstack.geometry.grid import grid_params
from swarmstack.geometry.static_index import build_static_index, footprints
from swarmstack.world.arena import Arena

GRID_CELL_M = 0.18  # ≥ a proximity ray's reach from a robot centre plus half a cell: 3×3 queries
# Memory bounds. A run's grid has at most MAX_CELLS_PER_RUN cells: a larger arena (beyond
# about 184 m × 184 m at 0.18 m) gets larger cells, which queries handle alike (cells only need
# to be at least a robot wide). A batch's grids together, and the static index, are bounded too.
MAX_CELLS_PER_RUN = 1 << 20
MAX_GRID_CELLS = 1 << 24        # runs × cells per run (int64 arrays rebuilt every tick)
MAX_STATIC_ENTRIES = 1 << 24    # (cell, shape) pairs of a static index


class SceneTooLarge(ValueError):
    """The scene asked for needs more memory than the limits above; ``what`` names the part
    (``"grid"`` or ``"static"``) and the message says how much was asked for."""

    def __init__(self, what: str, message: str):
        super().__init__(message)
        self.what = what


def grid_cell(bounds, min_cell: float, max_cells: int = MAX_CELLS_PER_RUN) -> float:
    """``min_cell``, or the smallest larger cell size that keeps a grid over ``bounds`` within
    ``max_cells`` cells."""
    x0, y0, x1, y1 = bounds
    w, h = x1 - x0, y1 - y0

    def cells(c):
        return max(1, math.ceil(w / c)) * max(1, math.ceil(h / c))

    if cells(min_cell) <= max_cells:
        return min_cell
    cell = max(min_cell, math.sqrt(w * h / max_cells), w / max_cells, h / max_cells)
    while cells(cell) > max_cells:
        cell *= 1.001
    return cell


def static_index_entries(gparams, boxes, cylinders, margin: float) -> float:
    """How many (cell, shape) entries ``build_static_index(gparams, boxes, cylinders, margin)``
    would hold, computed without building it (the same cell ranges, in floating point)."""
    ox, oy, cell, nx, ny = (float(v) for v in gparams)
    lo_x, lo_y, hi_x, hi_y = footprints(boxes, cylinders)

    def span(lo, hi, origin, n):
        a = np.clip(np.floor((lo - margin - origin) / cell), 0, n - 1)
        b = np.clip(np.floor((hi + margin - origin) / cell), -1, n - 1)
        return np.maximum(0.0, b - a + 1)

    return float(np.sum(span(lo_x, hi_x, ox, nx) * span(lo_y, hi_y, oy, ny)))


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
    def create(arena: Arena, groups, n_runs: int, dt: float, max_radius: float,
               min_cell: Optional[float] = None) -> "Scene":
        """Raises :class:`SceneTooLarge` when the grids or the static index would be huge.
        ``min_cell`` (m) asks for larger cells than the default (never below a robot's
        diameter)."""
        r = max_radius if max_radius > 0 else 0.05
        # cells about the reach of short-range sensors keep most queries to a 3×3 block
        cell = max(2.0 * r, GRID_CELL_M if min_cell is None else min_cell)
        grid = grid_params(arena.bounds, grid_cell(arena.bounds, cell))
        cells = int(grid[3]) * int(grid[4])
        if cells * n_runs > MAX_GRID_CELLS:
            raise SceneTooLarge("grid", f"{n_runs} runs of {cells} grid cells "
                                        f"({grid[2]:.3g} m) need {cells * n_runs / 1e6:.3g} M "
                                        f"cells; at most {MAX_GRID_CELLS / 1e6:.3g} M in a "
                                        "batch (fewer runs per batch)")
        entries = static_index_entries(grid, arena.boxes, arena.cylinders, float(grid[2]))
        if entries > MAX_STATIC_ENTRIES:
            raise SceneTooLarge("static", f"walls, boxes and cylinders cover {entries / 1e6:.3g} "
                                          f"M (cell, shape) pairs of the {grid[2]:.3g} m grid; "
                                          f"at most {MAX_STATIC_ENTRIES / 1e6:.3g} M (fewer or "
                                          "smaller obstacles)")
        static = build_static_index(grid, arena.boxes, arena.cylinders, margin=float(grid[2]))
        return Scene(arena, tuple(groups), int(n_runs), float(dt), float(max_radius), grid,
                     np.array(arena.bounds, dtype=np.float64), static)

    def group(self, name: str) -> GroupSlice:
        for g in self.groups:
            if g.name == name:
                return g
        raise KeyError(name)
