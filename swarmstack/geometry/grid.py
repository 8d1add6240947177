"""A uniform spatial grid over robots, one independent grid per run of a batch.

Robots are bucketed by ``key = run * n_cells + cell`` with a counting sort: no per-cell capacity
(a fixed capacity silently drops robots in clusters), O(N) to build, and queries never cross runs
because a run's cells are a contiguous key range. Robots outside the arena clamp to the border
cells, so nothing is ever lost.

A grid is three arrays: ``params`` float64[5] = (origin_x, origin_y, cell_m, nx, ny),
``cell_start`` int64[n_runs * nx * ny + 1] and ``order`` int64[N] (robot indices sorted by key).
"""

from __future__ import annotations

import math

import numpy as np

from numba import njit


def grid_params(bounds, cell_m: float) -> np.ndarray:
    """Parameters for a grid over ``bounds`` (x0, y0, x1, y1) with square cells of ``cell_m``."""
    x0, y0, x1, y1 = bounds
    nx = max(1, math.ceil((x1 - x0) / cell_m))
    ny = max(1, math.ceil((y1 - y0) / cell_m))
    return np.array([x0, y0, cell_m, nx, ny], dtype=np.float64)


@njit(cache=True, error_model="numpy", inline="always")
def cell_xy(params, x, y):
    nx, ny = int(params[3]), int(params[4])
    cx = int(math.floor((x - params[0]) / params[2]))
    cy = int(math.floor((y - params[1]) / params[2]))
    return min(nx - 1, max(0, cx)), min(ny - 1, max(0, cy))


@njit(cache=True, error_model="numpy", inline="always")
def cell_box(params, x_lo, x_hi, y_lo, y_hi):
    """Cells (gx0, gx1, gy0, gy1), inclusive and clamped, under the box [x_lo, x_hi] ×
    [y_lo, y_hi]."""
    nx, ny = int(params[3]), int(params[4])
    return (max(0, min(nx - 1, int(math.floor((x_lo - params[0]) / params[2])))),
            max(0, min(nx - 1, int(math.floor((x_hi - params[0]) / params[2])))),
            max(0, min(ny - 1, int(math.floor((y_lo - params[1]) / params[2])))),
            max(0, min(ny - 1, int(math.floor((y_hi - params[1]) / params[2])))))


@njit(cache=True, error_model="numpy", inline="always")
def cell_span(params, x, y, reach):
    """Cells (gx0, gx1, gy0, gy1), inclusive and clamped, that a disk of radius ``reach``
    around (x, y) touches: the only cells a query of that reach needs to visit."""
    return cell_box(params, x - reach, x + reach, y - reach, y + reach)


@njit(cache=True, error_model="numpy")
def build_grid(params, x, y, run, n_runs):
    """Counting sort of robots into (run, cell) buckets; returns (cell_start, order)."""
    nx, ny = int(params[3]), int(params[4])
    n_cells = nx * ny
    n = x.shape[0]
    keys = np.empty(n, dtype=np.int64)
    counts = np.zeros(n_runs * n_cells + 1, dtype=np.int64)
    for i in range(n):
        cx, cy = cell_xy(params, x[i], y[i])
        k = run[i] * n_cells + cy * nx + cx
        keys[i] = k
        counts[k + 1] += 1
    for k in range(n_runs * n_cells):
        counts[k + 1] += counts[k]
    cell_start = counts.copy()
    fill = counts[:-1].copy()
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        k = keys[i]
        order[fill[k]] = i
        fill[k] += 1
    return cell_start, order
