"""Contacts of disk-shaped robots with static shapes, the arena bounds and each other.

Position-based, like a 2-D dynamics engine at the tick level: overlaps are projected out over a
few Jacobi iterations (a robot driving into a wall stops; one hitting it at an angle slides
along it; robots push each other apart symmetrically). A final pass guarantees the invariant the
rest of the simulator relies on — no interpenetration — by putting back, at their previous
(valid) position, the robots that still overlap after the iterations: such a robot is blocked
for this tick, as in ARGoS when a robot pushes against something it cannot move.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from swarmstack.geometry.grid import build_grid, cell_xy
from swarmstack.geometry.nearby import robots_near

TOLERANCE_M = 1e-4  # overlap below this is not worth a correction


@njit(cache=True, error_model="numpy")
def _static_push(px, py, r, boxes, cylinders, bounds):
    """Correction (dx, dy) that moves a disk out of every static shape and inside the bounds."""
    return _static_push_listed(px, py, r, boxes, np.arange(boxes.shape[0]), cylinders,
                               np.arange(cylinders.shape[0]), bounds)


@njit(cache=True, error_model="numpy", inline="always")
def _static_push_listed(px, py, r, boxes, box_items, cylinders, cyl_items, bounds):
    """As ``_static_push``, testing only the listed shapes (those near the disk's cell)."""
    cx = 0.0
    cy = 0.0
    for k in box_items:
        c = boxes[k, 6]
        s = boxes[k, 7]
        lx = c * (px - boxes[k, 0]) + s * (py - boxes[k, 1])
        ly = -s * (px - boxes[k, 0]) + c * (py - boxes[k, 1])
        hx = boxes[k, 2]
        hy = boxes[k, 3]
        if abs(lx) <= hx and abs(ly) <= hy:
            # centre inside: leave through the nearest face
            ex = hx - abs(lx)
            ey = hy - abs(ly)
            if ex < ey:
                mx = (ex + r) * (1.0 if lx >= 0 else -1.0)
                my = 0.0
            else:
                mx = 0.0
                my = (ey + r) * (1.0 if ly >= 0 else -1.0)
        else:
            qx = min(hx, max(-hx, lx))
            qy = min(hy, max(-hy, ly))
            ddx = lx - qx
            ddy = ly - qy
            d = math.sqrt(ddx * ddx + ddy * ddy)
            if d >= r:
                continue
            mx = ddx / d * (r - d)
            my = ddy / d * (r - d)
        cx += c * mx - s * my
        cy += s * mx + c * my
    for k in cyl_items:
        ddx = px - cylinders[k, 0]
        ddy = py - cylinders[k, 1]
        d = math.sqrt(ddx * ddx + ddy * ddy)
        pen = cylinders[k, 2] + r - d
        if pen > 0.0:
            if d < 1e-12:
                ddx, ddy, d = 1.0, 0.0, 1.0
            cx += ddx / d * pen
            cy += ddy / d * pen
    # arena bounds are a hard limit even without walls
    if px + cx - r < bounds[0]:
        cx = bounds[0] + r - px
    if px + cx + r > bounds[2]:
        cx = bounds[2] - r - px
    if py + cy - r < bounds[1]:
        cy = bounds[1] + r - py
    if py + cy + r > bounds[3]:
        cy = bounds[3] - r - py
    return cx, cy


@njit(cache=True, error_model="numpy")
def _overlaps(i, x, y, radius, run, boxes, cylinders, bounds, gparams, cell_start, order, max_r,
              static, scratch):
    """True when robot i overlaps a static shape, leaves the bounds or overlaps a robot."""
    tol = 1e-4
    nx = int(gparams[3])
    cx, cy = cell_xy(gparams, x[i], y[i])
    c = cy * nx + cx
    bs, bi, cs, ci = static
    dx, dy = _static_push_listed(x[i], y[i], radius[i] - tol, boxes, bi[bs[c]:bs[c + 1]],
                                 cylinders, ci[cs[c]:cs[c + 1]], bounds)
    if dx != 0.0 or dy != 0.0:
        return True
    m = robots_near(x[i], y[i], radius[i] - tol, run[i], i, x, y, radius, max_r, gparams,
                    cell_start, order, scratch)
    return m > 0


@njit(cache=True, error_model="numpy")
def resolve(x, y, prev_x, prev_y, radius, run, n_runs, boxes, cylinders, bounds, gparams,
            static, grid_start, grid_order, iterations):
    """Project overlaps out of the new positions ``x, y`` (in place); see the module docstring.

    ``static`` is the world's static index (``geometry.static_index``) for ``gparams``;
    ``grid_start``/``grid_order`` the robot grid of the previous positions. Robots that did not
    move this tick (turning on the spot, stopped) hold their place: a moving robot that runs
    into one takes the whole correction, two moving robots share it.

    Returns ``(blocked, cell_start, order)``: how many robots were put back to their previous
    position this tick, and the robot grid of the final positions (reusable by the caller).
    """
    bs, bi, cs, ci = static
    n = x.shape[0]
    mobile = np.empty(n, dtype=np.bool_)
    any_mobile = False
    for i in range(n):
        mobile[i] = x[i] != prev_x[i] or y[i] != prev_y[i]
        any_mobile |= mobile[i]
    if not any_mobile:  # nothing moved: the previous (valid) state and its grid still stand
        return 0, grid_start, grid_order
    corr_x = np.zeros(n)
    corr_y = np.zeros(n)
    max_r = 0.0
    for i in range(n):
        max_r = max(max_r, radius[i])
    scratch = np.empty(n, dtype=np.int64)
    nx = int(gparams[3])
    settled = False
    cell_start, order = build_grid(gparams, x, y, run, n_runs)
    for it in range(iterations):
        if it > 0:
            cell_start, order = build_grid(gparams, x, y, run, n_runs)
        moved = False
        for i in range(n):
            if not mobile[i]:
                continue
            cx, cy = cell_xy(gparams, x[i], y[i])
            c = cy * nx + cx
            sx, sy = _static_push_listed(x[i], y[i], radius[i], boxes, bi[bs[c]:bs[c + 1]],
                                         cylinders, ci[cs[c]:cs[c + 1]], bounds)
            ax = 0.0
            ay = 0.0
            m = robots_near(x[i], y[i], radius[i], run[i], i, x, y, radius, max_r, gparams,
                            cell_start, order, scratch)
            for q in range(m):
                j = scratch[q]
                ddx = x[i] - x[j]
                ddy = y[i] - y[j]
                rr = radius[i] + radius[j]
                d = math.sqrt(ddx * ddx + ddy * ddy)
                if d < 1e-12:
                    # coincident centres: separate along a direction fixed by the indices
                    ang = 2.399963229728653 * (i if i < j else j)
                    ddx, ddy, d = math.cos(ang), math.sin(ang), 1.0
                    if i > j:
                        ddx, ddy = -ddx, -ddy
                share = 0.5 if mobile[j] else 1.0
                push = share * (rr - d + TOLERANCE_M)
                ax += ddx / d * push
                ay += ddy / d * push
            corr_x[i] = sx + ax
            corr_y[i] = sy + ay
            if corr_x[i] != 0.0 or corr_y[i] != 0.0:
                moved = True
        for i in range(n):
            x[i] += corr_x[i]
            y[i] += corr_y[i]
        if not moved:
            settled = True  # this pass found no overlap at all: the invariant already holds
            break
    if settled:
        return 0, cell_start, order
    # guarantee: whoever still overlaps goes back to where it was (a valid place)
    blocked = 0
    reverted = np.zeros(n, dtype=np.bool_)
    for _ in range(n + 1):
        cell_start, order = build_grid(gparams, x, y, run, n_runs)
        changed = False
        for i in range(n):
            if reverted[i] or not mobile[i]:
                continue
            if _overlaps(i, x, y, radius, run, boxes, cylinders, bounds, gparams, cell_start,
                         order, max_r, static, scratch):
                x[i] = prev_x[i]
                y[i] = prev_y[i]
                reverted[i] = True
                blocked += 1
                changed = True
        if not changed:
            break
    return blocked, cell_start, order
