"""Candidate gathering for many short rays cast from one robot.

A robot's proximity rays, light-sensor sight lines and camera rays all start within a few
centimetres of its centre. Gathering once per robot the few static shapes and robots that could
be reached, then testing every ray against that short list, is far cheaper than walking the
grid or the whole static scene for each ray.
"""

from __future__ import annotations

from swarmstack.geometry.grid import cell_box, cell_span
from numba import njit


@njit(cache=True, error_model="numpy", inline="always")
def boxes_near_listed(px, py, reach, boxes, items, out):
    """Indices among ``items`` (an index array, e.g. a cell's static list, or a range) of the
    boxes whose footprint comes within ``reach`` of (px, py); returns the count."""
    m = 0
    for k in items:
        c = boxes[k, 6]
        s = boxes[k, 7]
        lx = c * (px - boxes[k, 0]) + s * (py - boxes[k, 1])
        ly = -s * (px - boxes[k, 0]) + c * (py - boxes[k, 1])
        ex = max(0.0, abs(lx) - boxes[k, 2])
        ey = max(0.0, abs(ly) - boxes[k, 3])
        if ex * ex + ey * ey <= reach * reach:
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
        dx = px - cylinders[k, 0]
        dy = py - cylinders[k, 1]
        rr = reach + cylinders[k, 2]
        if dx * dx + dy * dy <= rr * rr:
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


# Slack of the segment filters below: a shape that misses a segment by less than this could
# still be reported as hit by the floating-point interval arithmetic of ``geometry.rays``.
SEGMENT_SLACK_M = 1e-9


@njit(cache=True, error_model="numpy", inline="always")
def box_near_segment(ax, ay, bx, by, widen, z_min, boxes, k):
    """Whether box ``k`` could be touched by a segment lying within ``widen`` of the 2-D
    segment a → b at heights ≥ ``z_min`` (the test of :func:`boxes_near_segment`)."""
    if boxes[k, 5] < z_min - SEGMENT_SLACK_M:
        return False
    grow = widen + SEGMENT_SLACK_M
    c = boxes[k, 6]
    s = boxes[k, 7]
    ux = ax - boxes[k, 0]
    uy = ay - boxes[k, 1]
    vx = bx - boxes[k, 0]
    vy = by - boxes[k, 1]
    la_x = c * ux + s * uy
    la_y = -s * ux + c * uy
    lb_x = c * vx + s * vy
    lb_y = -s * vx + c * vy
    if min(la_x, lb_x) - grow > boxes[k, 2] or max(la_x, lb_x) + grow < -boxes[k, 2]:
        return False
    return not (min(la_y, lb_y) - grow > boxes[k, 3] or max(la_y, lb_y) + grow < -boxes[k, 3])


@njit(cache=True, error_model="numpy")
def boxes_near_segment(ax, ay, bx, by, widen, z_min, boxes, items, n_items, out):
    """Boxes among ``items[:n_items]`` that any segment lying within ``widen`` of the 2-D
    segment a → b, at heights ≥ ``z_min``, could touch; returns the count written to ``out``.

    Conservative: the segment's bounding box in the box's own frame, grown by ``widen``, must
    overlap the footprint, and the box must reach up to ``z_min``. Every sight line from near
    ``a`` to near ``b`` is tested against this shorter list with the same result, since a box
    left out cannot be met by any of them.
    """
    m = 0
    for q in range(n_items):
        k = items[q]
        if box_near_segment(ax, ay, bx, by, widen, z_min, boxes, k):
            out[m] = k
            m += 1
    return m


@njit(cache=True, error_model="numpy", inline="always")
def cylinder_near_segment(ax, ay, dx, dy, ll, widen, z_min, cylinders, k):
    """Whether cylinder ``k``'s disk comes within ``widen`` of the 2-D segment from a to
    a + (dx, dy) (``ll`` its squared length) and its top reaches ``z_min``."""
    if cylinders[k, 3] < z_min - SEGMENT_SLACK_M:
        return False
    return disk_near_segment(ax, ay, dx, dy, ll, cylinders[k, 0], cylinders[k, 1],
                             widen + cylinders[k, 2] + SEGMENT_SLACK_M)


@njit(cache=True, error_model="numpy")
def cylinders_near_segment(ax, ay, bx, by, widen, z_min, cylinders, items, n_items, out):
    """Cylinders among ``items[:n_items]`` whose disk comes within ``widen`` of the 2-D segment
    a → b and whose top reaches ``z_min`` (see :func:`boxes_near_segment`); returns the count."""
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    m = 0
    for q in range(n_items):
        k = items[q]
        if cylinder_near_segment(ax, ay, dx, dy, ll, widen, z_min, cylinders, k):
            out[m] = k
            m += 1
    return m


# inlined: called per candidate and per sight line, where a compiled call cost about as
# much as the test
@njit(cache=True, error_model="numpy", inline="always")
def disk_near_segment(ax, ay, dx, dy, ll, px, py, reach):
    """Whether the point (px, py) lies within ``reach`` of the segment from a to a + (dx, dy)
    (``ll`` its squared length): a disk of radius r is within w of it at ``reach`` = w + r."""
    t = 0.0
    if ll > 1e-18:
        t = min(1.0, max(0.0, ((px - ax) * dx + (py - ay) * dy) / ll))
    ex = ax + t * dx - px
    ey = ay + t * dy - py
    return ex * ex + ey * ey <= reach * reach


@njit(cache=True, error_model="numpy", inline="always")
def robots_near_segment(ax, ay, bx, by, widen, run_id, skip, rx, ry, radius, max_radius,
                        gparams, cell_start, order, out):
    """Robots of run ``run_id`` (except ``skip``) whose disks come within ``widen`` of the 2-D
    segment a → b; returns the count written to ``out`` (one slot per robot suffices).

    Only the grid cells under the segment's bounding box grown by ``widen`` and the largest
    radius are visited: for one sight line this is a handful of cells, where a disk around the
    observer would hold many more robots. Every robot that can block a sight line lying within
    ``widen`` of a → b is found (the test is :func:`disk_near_segment`, as in ``light.occluders_near_segment``).
    """
    nx = int(gparams[3])
    base = run_id * nx * int(gparams[4])
    grow = widen + max_radius + SEGMENT_SLACK_M
    gx0, gx1, gy0, gy1 = cell_box(gparams, min(ax, bx) - grow, max(ax, bx) + grow,
                                  min(ay, by) - grow, max(ay, by) + grow)
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    m = 0
    for gy in range(gy0, gy1 + 1):
        row = base + gy * nx
        for q in range(cell_start[row + gx0], cell_start[row + gx1 + 1]):
            j = order[q]
            if j != skip and disk_near_segment(ax, ay, dx, dy, ll, rx[j], ry[j],
                                               widen + radius[j]):
                out[m] = j
                m += 1
    return m
