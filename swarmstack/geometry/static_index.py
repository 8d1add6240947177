"""Which static shapes (boxes, cylinders) lie near each grid cell.

Static shapes never move, so for every cell of the world grid we list, once, the shapes whose
footprint comes within ``margin`` of the cell. A query of reach ≤ ``margin`` from any point in
the cell then only tests that short list — usually empty away from walls — instead of every
shape of the scene. The lists are conservative (axis-aligned bounding boxes), never missing a
shape. Layout is CSR: ``start[c] … start[c + 1]`` index into ``items``.
"""

from __future__ import annotations

import math

import numpy as np

from numba import njit


@njit(cache=True, error_model="numpy", inline="always")
def _cell_range(lo, hi, origin, cell, n, margin):
    a = int(math.floor((lo - margin - origin) / cell))
    b = int(math.floor((hi + margin - origin) / cell))
    return max(0, a), min(n - 1, b)


@njit(cache=True, error_model="numpy")
def _lists(gparams, lo_x, lo_y, hi_x, hi_y, margin):
    nx, ny = int(gparams[3]), int(gparams[4])
    cell = gparams[2]
    n_cells = nx * ny
    start = np.zeros(n_cells + 1, dtype=np.int64)
    for k in range(lo_x.shape[0]):
        x0, x1 = _cell_range(lo_x[k], hi_x[k], gparams[0], cell, nx, margin)
        y0, y1 = _cell_range(lo_y[k], hi_y[k], gparams[1], cell, ny, margin)
        for gy in range(y0, y1 + 1):
            for gx in range(x0, x1 + 1):
                start[gy * nx + gx + 1] += 1
    for c in range(n_cells):
        start[c + 1] += start[c]
    items = np.empty(start[n_cells], dtype=np.int64)
    fill = start[:-1].copy()
    for k in range(lo_x.shape[0]):
        x0, x1 = _cell_range(lo_x[k], hi_x[k], gparams[0], cell, nx, margin)
        y0, y1 = _cell_range(lo_y[k], hi_y[k], gparams[1], cell, ny, margin)
        for gy in range(y0, y1 + 1):
            for gx in range(x0, x1 + 1):
                c = gy * nx + gx
                items[fill[c]] = k
                fill[c] += 1
    return start, items


def footprints(boxes, cylinders, pad: float = 0.0):
    """``(lo_x, lo_y, hi_x, hi_y)``: the axis-aligned bounding boxes of the boxes', then the
    cylinders' footprints, grown by ``pad`` (m)."""
    ext_x = np.abs(boxes[:, 2] * boxes[:, 6]) + np.abs(boxes[:, 3] * boxes[:, 7]) + pad
    ext_y = np.abs(boxes[:, 2] * boxes[:, 7]) + np.abs(boxes[:, 3] * boxes[:, 6]) + pad
    r = cylinders[:, 2]
    return (np.concatenate([boxes[:, 0] - ext_x, cylinders[:, 0] - r - pad]),
            np.concatenate([boxes[:, 1] - ext_y, cylinders[:, 1] - r - pad]),
            np.concatenate([boxes[:, 0] + ext_x, cylinders[:, 0] + r + pad]),
            np.concatenate([boxes[:, 1] + ext_y, cylinders[:, 1] + r + pad]))


def build_static_index(gparams, boxes, cylinders, margin: float):
    """(box_start, box_items, cyl_start, cyl_items) for the grid ``gparams``."""
    nb = boxes.shape[0]
    lo_x, lo_y, hi_x, hi_y = footprints(boxes, cylinders)
    bs, bi = _lists(gparams, lo_x[:nb], lo_y[:nb], hi_x[:nb], hi_y[:nb], margin)
    cs, ci = _lists(gparams, lo_x[nb:], lo_y[nb:], hi_x[nb:], hi_y[nb:], margin)
    return bs, bi, cs, ci
