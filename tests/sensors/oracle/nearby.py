"""Frozen copy of ``swarmstack/geometry/nearby.py`` (candidate gathering) as the oracle kernels
used it.
"""

from __future__ import annotations


from numba import njit

from swarmstack.geometry.grid import cell_span


@njit(cache=True, error_model="numpy", inline="always")
def _box_within(px, py, reach, boxes, k):
    """True when box k's footprint comes within ``reach`` of (px, py)."""
    c = boxes[k, 6]
    s = boxes[k, 7]
    lx = c * (px - boxes[k, 0]) + s * (py - boxes[k, 1])
    ly = -s * (px - boxes[k, 0]) + c * (py - boxes[k, 1])
    ex = max(0.0, abs(lx) - boxes[k, 2])
    ey = max(0.0, abs(ly) - boxes[k, 3])
    return ex * ex + ey * ey <= reach * reach


@njit(cache=True, error_model="numpy", inline="always")
def _cylinder_within(px, py, reach, cylinders, k):
    dx = px - cylinders[k, 0]
    dy = py - cylinders[k, 1]
    rr = reach + cylinders[k, 2]
    return dx * dx + dy * dy <= rr * rr


@njit(cache=True, error_model="numpy", inline="always")
def boxes_near_listed(px, py, reach, boxes, items, out):
    """Indices among ``items`` (an index array, e.g. a cell's static list, or a range) of the
    boxes whose footprint comes within ``reach`` of (px, py); returns the count."""
    m = 0
    for k in items:
        if _box_within(px, py, reach, boxes, k):
            out[m] = k
            m += 1
    return m


@njit(cache=True, error_model="numpy")
def boxes_near(px, py, reach, boxes, out):
    """``boxes_near_listed`` over every box."""
    return boxes_near_listed(px, py, reach, boxes, range(boxes.shape[0]), out)


@njit(cache=True, error_model="numpy", inline="always")
def cylinders_near_listed(px, py, reach, cylinders, items, out):
    """Indices among ``items`` of the cylinders whose disk comes within ``reach`` of (px, py);
    returns the count."""
    m = 0
    for k in items:
        if _cylinder_within(px, py, reach, cylinders, k):
            out[m] = k
            m += 1
    return m


@njit(cache=True, error_model="numpy")
def cylinders_near(px, py, reach, cylinders, out):
    """``cylinders_near_listed`` over every cylinder."""
    return cylinders_near_listed(px, py, reach, cylinders, range(cylinders.shape[0]), out)


@njit(cache=True, error_model="numpy", inline="always")
def robots_near(px, py, reach, run_id, skip, rx, ry, radius, max_radius, gparams, cell_start,
                order, out):
    """Robots of run ``run_id`` (except ``skip``) whose bodies come within ``reach`` of (px, py).

    A body (radius ≤ ``max_radius``) reaching that far has its centre within
    ``reach + max_radius``: only the cells that disk touches are visited. Cells of one grid row
    are consecutive keys, so each row of the block is one contiguous run of ``order``."""
    nx = int(gparams[3])
    base = run_id * nx * int(gparams[4])
    gx0, gx1, gy0, gy1 = cell_span(gparams, px, py, reach + max_radius)
    m = 0
    for gy in range(gy0, gy1 + 1):
        row = base + gy * nx
        for s in range(cell_start[row + gx0], cell_start[row + gx1 + 1]):
            j = order[s]
            if j == skip:
                continue
            dx = rx[j] - px
            dy = ry[j] - py
            rr = reach + radius[j]
            if dx * dx + dy * dy <= rr * rr:
                out[m] = j  # out holds one slot per robot: it cannot overflow
                m += 1
    return m
