"""Segment casting against boxes, cylinders and robot bodies (vertical prisms), in 3-D.

Every shape is a vertical prism: a 2-D footprint (oriented rectangle or disk) extruded over a
height range. A segment P(t) = P0 + t (P1 − P0), t ∈ [0, 1], is first clipped against the
footprint in 2-D (giving [t_in, t_out]); its z, linear in t, is then clipped against the prism's
height range. This one rule serves horizontal sensor rays (proximity, ToF) and sloped sight lines
(light sources above the floor, LEDs seen by a camera) alike.

All functions return the smallest hit parameter t in [0, 1], or NO_HIT (> 1).
"""

from __future__ import annotations

import math

from swarmstack.geometry.grid import cell_xy
from numba import njit

NO_HIT = 2.0
_EPS = 1e-12


@njit(cache=True, error_model="numpy", inline="always")
def _clip_z(ta, tb, z0, dz, z_bottom, z_top):
    """First t in [ta, tb] where z0 + t dz lies in [z_bottom, z_top]; NO_HIT if none."""
    if ta > tb:
        return NO_HIT
    if abs(dz) < _EPS:
        return ta if (z_bottom <= z0 <= z_top) else NO_HIT
    t1 = (z_bottom - z0) / dz
    t2 = (z_top - z0) / dz
    lo = min(t1, t2)
    hi = max(t1, t2)
    s = max(ta, lo)
    e = min(tb, hi)
    return s if s <= e else NO_HIT


@njit(cache=True, error_model="numpy", inline="always")
def disk_interval(x0, y0, dx, dy, cx, cy, r):
    """[t_in, t_out] where the 2-D line x0 + t d is inside the disk; (NO_HIT, -1) if never."""
    fx = x0 - cx
    fy = y0 - cy
    a = dx * dx + dy * dy
    b = fx * dx + fy * dy
    c = fx * fx + fy * fy - r * r
    if a < _EPS:
        return (0.0, 1.0) if c <= 0.0 else (NO_HIT, -1.0)
    disc = b * b - a * c
    if disc < 0.0:
        return NO_HIT, -1.0
    sq = math.sqrt(disc)
    return (-b - sq) / a, (-b + sq) / a


@njit(cache=True, error_model="numpy", inline="always")
def box_interval(x0, y0, dx, dy, cx, cy, hx, hy, c, s):
    """[t_in, t_out] where the 2-D line is inside the rectangle rotated by (c, s) = (cos, sin)
    of its yaw (slab method)."""
    # into the box frame
    px = c * (x0 - cx) + s * (y0 - cy)
    py = -s * (x0 - cx) + c * (y0 - cy)
    qx = c * dx + s * dy
    qy = -s * dx + c * dy
    t_in = -1e300
    t_out = 1e300
    if abs(qx) < _EPS:
        if px < -hx or px > hx:
            return NO_HIT, -1.0
    else:
        a = (-hx - px) / qx
        b = (hx - px) / qx
        t_in = max(t_in, min(a, b))
        t_out = min(t_out, max(a, b))
    if abs(qy) < _EPS:
        if py < -hy or py > hy:
            return NO_HIT, -1.0
    else:
        a = (-hy - py) / qy
        b = (hy - py) / qy
        t_in = max(t_in, min(a, b))
        t_out = min(t_out, max(a, b))
    if t_in > t_out:
        return NO_HIT, -1.0
    return t_in, t_out


@njit(cache=True, error_model="numpy", inline="always")
def disk_along_ray(u, v, r, ca, sa, ring):
    """Distance from a radial ray's start to a disk of radius ``r`` centred at (u, v) in the
    robot frame (the ray leaves the origin's ring at ``ring`` along (ca, sa)); inf if missed
    or entirely behind the start."""
    along = u * ca + v * sa
    across = u * sa - v * ca
    if across * across > r * r:
        return math.inf
    half = math.sqrt(r * r - across * across)
    if along + half < ring:
        return math.inf
    return max(along - half - ring, 0.0)


@njit(cache=True, error_model="numpy", inline="always")
def box_along_ray(bu, bv, hx, hy, cb, sb, ca, sa, ring):
    """Distance from a radial ray's start to a rectangle (centre (bu, bv), half-sizes hx, hy,
    rotated by (cb, sb)) given in the robot frame; inf if missed."""
    t_in, t_out = box_interval(ring * ca, ring * sa, ca, sa, bu, bv, hx, hy, cb, sb)
    if t_out < 0.0:  # behind the start, or missed (the interval is then (NO_HIT, -1))
        return math.inf
    return max(t_in, 0.0)


@njit(cache=True, error_model="numpy", inline="always")
def _box_hit(x0, y0, z0, dx, dy, dz, boxes, k):
    """First t in [0, 1] where the segment is inside box k (a prism on the floor)."""
    ta, tb = box_interval(x0, y0, dx, dy, boxes[k, 0], boxes[k, 1], boxes[k, 2], boxes[k, 3],
                          boxes[k, 6], boxes[k, 7])
    return _clip_z(max(ta, 0.0), min(tb, 1.0), z0, dz, 0.0, boxes[k, 5])


@njit(cache=True, error_model="numpy", inline="always")
def _disk_hit(x0, y0, z0, dx, dy, dz, cx, cy, r, z_bottom, z_top):
    """First t in [0, 1] where the segment is inside a vertical cylinder."""
    ta, tb = disk_interval(x0, y0, dx, dy, cx, cy, r)
    return _clip_z(max(ta, 0.0), min(tb, 1.0), z0, dz, z_bottom, z_top)


@njit(cache=True, error_model="numpy")
def hit_static(x0, y0, z0, x1, y1, z1, boxes, cylinders):
    """First hit of the segment against static boxes and cylinders (which stand on the floor)."""
    dx = x1 - x0
    dy = y1 - y0
    dz = z1 - z0
    best = NO_HIT
    for k in range(boxes.shape[0]):
        best = min(best, _box_hit(x0, y0, z0, dx, dy, dz, boxes, k))
    for k in range(cylinders.shape[0]):
        best = min(best, _disk_hit(x0, y0, z0, dx, dy, dz, cylinders[k, 0], cylinders[k, 1],
                                   cylinders[k, 2], 0.0, cylinders[k, 3]))
    return best


@njit(cache=True, error_model="numpy", inline="always")
def _cell_crossings(p0, d, origin, c, cell):
    """Along one axis, the parameter of the first cell boundary the line p0 + t d (in cell
    ``c`` of a grid starting at ``origin``) crosses, and between two boundaries (both 1e300
    for a line parallel to the boundaries)."""
    if abs(d) > _EPS:
        b = origin + (c + (1 if d > 0 else 0)) * cell
        return (b - p0) / d, cell / abs(d)
    return 1e300, 1e300


@njit(cache=True, error_model="numpy")
def hit_robots(x0, y0, z0, x1, y1, z1, run_id, skip_a, skip_b,
               rx, ry, rz, radius, height, gparams, cell_start, order, max_radius):
    """First hit of the segment against robot bodies of run ``run_id`` (skipping two robots).

    Walks the grid cells the segment crosses (Amanatides–Woo) and tests the robots of each
    cell's 3×3 neighbourhood; valid because cells are at least as large as any robot radius.
    A segment with an end off the grid (robots of an arena without walls, drones above them)
    would leave it, while the robots out there sit clamped in its border cells: such a segment
    tests every robot of the run instead.
    """
    dx = x1 - x0
    dy = y1 - y0
    dz = z1 - z0
    nx, ny = int(gparams[3]), int(gparams[4])
    cell = gparams[2]
    base = run_id * nx * ny
    gx0, gy0 = gparams[0], gparams[1]
    gx1, gy1 = gx0 + nx * cell, gy0 + ny * cell
    if not (gx0 <= x0 < gx1 and gy0 <= y0 < gy1 and gx0 <= x1 < gx1 and gy0 <= y1 < gy1):
        best = NO_HIT
        for s in range(cell_start[base], cell_start[base + nx * ny]):
            j = order[s]
            if j != skip_a and j != skip_b:
                best = min(best, _disk_hit(x0, y0, z0, dx, dy, dz, rx[j], ry[j], radius[j],
                                           rz[j], rz[j] + height[j]))
        return best
    reach = 1 if max_radius <= cell else int(math.ceil(max_radius / cell))
    cx, cy = cell_xy(gparams, x0, y0)
    ex, ey = cell_xy(gparams, x1, y1)
    step_x = 1 if dx > 0 else -1
    step_y = 1 if dy > 0 else -1
    t_max_x, t_delta_x = _cell_crossings(x0, dx, gparams[0], cx, cell)
    t_max_y, t_delta_y = _cell_crossings(y0, dy, gparams[1], cy, cell)
    best = NO_HIT
    t_cell = 0.0
    # robots tested from a cell entered at t_cell cannot be hit before t_cell - margin
    margin = (reach + 1) * cell * 1.5 / max(math.sqrt(dx * dx + dy * dy), _EPS)
    n_steps = abs(ex - cx) + abs(ey - cy) + 1
    for _ in range(n_steps):
        if best < t_cell - margin:
            break
        for gy in range(max(0, cy - reach), min(ny, cy + reach + 1)):
            for gx in range(max(0, cx - reach), min(nx, cx + reach + 1)):
                k = base + gy * nx + gx
                for s in range(cell_start[k], cell_start[k + 1]):
                    j = order[s]
                    if j == skip_a or j == skip_b:
                        continue
                    best = min(best, _disk_hit(x0, y0, z0, dx, dy, dz, rx[j], ry[j],
                                               radius[j], rz[j], rz[j] + height[j]))
        if cx == ex and cy == ey:
            break
        if t_max_x < t_max_y:
            t_cell = t_max_x
            t_max_x += t_delta_x
            cx += step_x
        else:
            t_cell = t_max_y
            t_max_y += t_delta_y
            cy += step_y
        if cx < 0 or cx >= nx or cy < 0 or cy >= ny:
            break
    return best


@njit(cache=True, error_model="numpy")
def first_hit(x0, y0, z0, x1, y1, z1, run_id, skip_a, skip_b, boxes, cylinders,
              rx, ry, rz, radius, height, gparams, cell_start, order, max_radius):
    """First hit against everything: static shapes and the robots of the run."""
    t = hit_static(x0, y0, z0, x1, y1, z1, boxes, cylinders)
    u = hit_robots(x0, y0, z0, x1, y1, z1, run_id, skip_a, skip_b, rx, ry, rz, radius, height,
                   gparams, cell_start, order, max_radius)
    return min(t, u)


@njit(cache=True, error_model="numpy")
def hit_candidates(x0, y0, z0, x1, y1, z1, box_idx, n_boxes, cyl_idx, n_cyl, rob_idx, n_rob,
                   boxes, cylinders, rx, ry, rz, radius, height):
    """First hit against pre-gathered candidates (see ``geometry.nearby``)."""
    dx = x1 - x0
    dy = y1 - y0
    dz = z1 - z0
    best = NO_HIT
    for m in range(n_boxes):
        best = min(best, _box_hit(x0, y0, z0, dx, dy, dz, boxes, box_idx[m]))
    for m in range(n_cyl):
        k = cyl_idx[m]
        best = min(best, _disk_hit(x0, y0, z0, dx, dy, dz, cylinders[k, 0], cylinders[k, 1],
                                   cylinders[k, 2], 0.0, cylinders[k, 3]))
    for m in range(n_rob):
        j = rob_idx[m]
        best = min(best, _disk_hit(x0, y0, z0, dx, dy, dz, rx[j], ry[j], radius[j], rz[j],
                                   rz[j] + height[j]))
    return best
