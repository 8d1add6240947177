"""Overlap tests and push-out vectors between the 3-D body shapes of the simulator (Numba).

A body is a vertical prism standing at height ``z`` (m, its base above the floor) with height
``h`` (m): either a disc (a vertical cylinder of radius ``r``) or an oriented box (half extents
``hx``, ``hy`` along its body axes, yaw CCW from +x). Static shapes (``world.arena`` boxes and
cylinders) stand on the floor, z ∈ [0, height]. Two bodies can touch only when their height
ranges overlap; in the horizontal plane their footprints are compared in 2-D.

A push-out vector ``(mx, my)`` (m, world frame) is the translation that moves the first shape
out of the second along the shortest way (the minimum translation vector), grown by ``extra``
(m, a clearance the caller wants on top); it is ``(0, 0)`` when the footprints do not overlap.
Orientations are passed as ``(c, s) = (cos yaw, sin yaw)`` so callers compute them once.

Everything here is pure geometry, inlined into the contact kernel: the disc arithmetic is the
exact sequence of floating-point operations the contact kernel always used, so results for
disc-only worlds stay bit-identical.
"""

from __future__ import annotations

import math

from numba import njit

SHAPE_DISC = 0  # vertical cylinder: radius r, half_x = half_y = r
SHAPE_BOX = 1   # oriented rectangle: half extents half_x (forward), half_y (left)


@njit(cache=True, error_model="numpy", inline="always")
def heights_overlap(z0, h0, z1, h1):
    """True when [z0, z0 + h0] and [z1, z1 + h1] (m) overlap with positive length; ranges
    that only touch (a body resting on another's top) do not."""
    return z0 < z1 + h1 and z1 < z0 + h0


@njit(cache=True, error_model="numpy", inline="always")
def disc_from_box(px, py, r, bx, by, c, s, hx, hy, extra):
    """Push-out (mx, my) of the disc (px, py, radius r) from the box centred at (bx, by) with
    orientation (c, s) and half extents (hx, hy); all in m."""
    lx = c * (px - bx) + s * (py - by)
    ly = -s * (px - bx) + c * (py - by)
    if abs(lx) <= hx and abs(ly) <= hy:
        # centre inside: leave through the nearest face
        ex = hx - abs(lx)
        ey = hy - abs(ly)
        if ex < ey:
            mx = (ex + r + extra) * (1.0 if lx >= 0 else -1.0)
            my = 0.0
        else:
            mx = 0.0
            my = (ey + r + extra) * (1.0 if ly >= 0 else -1.0)
    else:
        qx = min(hx, max(-hx, lx))
        qy = min(hy, max(-hy, ly))
        ddx = lx - qx
        ddy = ly - qy
        d = math.sqrt(ddx * ddx + ddy * ddy)
        if d >= r:
            return 0.0, 0.0
        mx = ddx / d * (r - d + extra)
        my = ddy / d * (r - d + extra)
    return c * mx - s * my, s * mx + c * my


@njit(cache=True, error_model="numpy", inline="always")
def box_from_disc(px, py, c, s, hx, hy, qx, qy, r, extra):
    """Push-out (mx, my) of the box centred at (px, py) (orientation (c, s), half extents
    (hx, hy)) from the disc (qx, qy, radius r): the disc's own push-out, reversed."""
    mx, my = disc_from_box(qx, qy, r, px, py, c, s, hx, hy, extra)
    return -mx, -my


@njit(cache=True, error_model="numpy", inline="always")
def _sat_axis(d, r0, r1, best, bx, by, nx, ny, tie):
    """One separating-axis test along the unit axis (nx, ny): ``d`` is the centre offset
    projected on it, ``r0``/``r1`` the boxes' projected half widths. Returns the overlap along
    this axis and the best (smallest overlap, direction) so far."""
    pen = r0 + r1 - abs(d)
    if pen < best:
        sign = 1.0 if d > 0.0 else (-1.0 if d < 0.0 else tie)
        return pen, pen, sign * nx, sign * ny
    return pen, best, bx, by


@njit(cache=True, error_model="numpy", inline="always")
def box_from_box(px, py, c0, s0, hx0, hy0, qx, qy, c1, s1, hx1, hy1, extra, tie):
    """Push-out (mx, my) of box 0 (centre (px, py), orientation (c0, s0), half extents
    (hx0, hy0)) from box 1, by the separating-axis theorem over the four edge normals.

    ``tie`` (±1) is the direction taken along an axis on which the centres coincide, so that
    two boxes stacked exactly on each other are sent opposite ways when each passes the
    opposite sign."""
    # relative orientation: a = cos(yaw1 − yaw0), b = sin(yaw1 − yaw0)
    a = abs(c0 * c1 + s0 * s1)
    b = abs(c0 * s1 - s0 * c1)
    ox = px - qx
    oy = py - qy
    best = math.inf
    bx = 0.0
    by = 0.0
    # box 0's axes u0 = (c0, s0), v0 = (−s0, c0)
    pen, best, bx, by = _sat_axis(c0 * ox + s0 * oy, hx0, hx1 * a + hy1 * b, best, bx, by,
                                  c0, s0, tie)
    if pen <= 0.0:
        return 0.0, 0.0
    pen, best, bx, by = _sat_axis(-s0 * ox + c0 * oy, hy0, hx1 * b + hy1 * a, best, bx, by,
                                  -s0, c0, tie)
    if pen <= 0.0:
        return 0.0, 0.0
    # box 1's axes u1 = (c1, s1), v1 = (−s1, c1)
    pen, best, bx, by = _sat_axis(c1 * ox + s1 * oy, hx0 * a + hy0 * b, hx1, best, bx, by,
                                  c1, s1, tie)
    if pen <= 0.0:
        return 0.0, 0.0
    pen, best, bx, by = _sat_axis(-s1 * ox + c1 * oy, hx0 * b + hy0 * a, hy1, best, bx, by,
                                  -s1, c1, tie)
    if pen <= 0.0:
        return 0.0, 0.0
    return bx * (best + extra), by * (best + extra)


@njit(cache=True, error_model="numpy", inline="always")
def box_extent(c, s, hx, hy):
    """Half extents (ex, ey) (m) along world x and y of a box with orientation (c, s): how far
    its corners reach from its centre."""
    return hx * abs(c) + hy * abs(s), hx * abs(s) + hy * abs(c)


@njit(cache=True, error_model="numpy", inline="always")
def keep_inside(px, py, cx, cy, ex, ey, bounds):
    """Correction (cx, cy) (m) amended so that the body at (px + cx, py + cy), reaching ``ex``
    along x and ``ey`` along y (a disc's radius, a box's ``box_extent``), stays inside
    ``bounds`` (x0, y0, x1, y1) — a hard limit whatever the body's height."""
    if px + cx - ex < bounds[0]:
        cx = bounds[0] + ex - px
    if px + cx + ex > bounds[2]:
        cx = bounds[2] - ex - px
    if py + cy - ey < bounds[1]:
        cy = bounds[1] + ey - py
    if py + cy + ey > bounds[3]:
        cy = bounds[3] - ey - py
    return cx, cy


@njit(cache=True, error_model="numpy", inline="always")
def disc_from_static(px, py, r, z, h, boxes, box_items, cylinders, cyl_items, bounds):
    """Correction (cx, cy) (m) moving the disc (px, py, radius r, z ∈ [z, z + h]) out of the
    listed static shapes whose height range overlaps its own, and inside ``bounds``.

    ``box_items``/``cyl_items`` index ``boxes``/``cylinders`` (a cell's static lists, or a
    range). The pushes of every touched shape are summed (one Jacobi step): a body wedged
    between shapes may still overlap after it, which the contact kernel iterates on."""
    cx = 0.0
    cy = 0.0
    for k in box_items:
        if not heights_overlap(z, h, 0.0, boxes[k, 5]):
            continue
        mx, my = disc_from_box(px, py, r, boxes[k, 0], boxes[k, 1], boxes[k, 6], boxes[k, 7],
                               boxes[k, 2], boxes[k, 3], 0.0)
        # cx never holds −0.0, so adding a zero push leaves it bit-for-bit unchanged
        cx += mx
        cy += my
    for k in cyl_items:
        if not heights_overlap(z, h, 0.0, cylinders[k, 3]):
            continue
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
    return keep_inside(px, py, cx, cy, r, r, bounds)


@njit(cache=True, error_model="numpy", inline="always")
def box_from_static(px, py, c, s, hx, hy, z, h, boxes, box_items, cylinders, cyl_items, bounds,
                    min_pen):
    """As ``disc_from_static`` for the box centred at (px, py) with orientation (c, s) and half
    extents (hx, hy), its corners kept inside ``bounds``.

    Returns (cx, cy, hit): ``hit`` is True when a shape overlaps the box by more than
    ``min_pen`` (m; its push-out is longer) or a corner leaves the bounds by more than that.
    Pushes are tested one by one, not through their sum: a box wedged between two shapes (one
    turning in a corridor) can receive pushes that cancel exactly."""
    cx = 0.0
    cy = 0.0
    hit = False
    min_pen2 = min_pen * min_pen
    for k in box_items:
        if heights_overlap(z, h, 0.0, boxes[k, 5]):
            mx, my = box_from_box(px, py, c, s, hx, hy, boxes[k, 0], boxes[k, 1], boxes[k, 6],
                                  boxes[k, 7], boxes[k, 2], boxes[k, 3], 0.0, 1.0)
            if mx != 0.0 or my != 0.0:
                hit |= mx * mx + my * my > min_pen2
                cx += mx
                cy += my
    for k in cyl_items:
        if heights_overlap(z, h, 0.0, cylinders[k, 3]):
            mx, my = box_from_disc(px, py, c, s, hx, hy, cylinders[k, 0], cylinders[k, 1],
                                   cylinders[k, 2], 0.0)
            if mx != 0.0 or my != 0.0:
                hit |= mx * mx + my * my > min_pen2
                cx += mx
                cy += my
    ex, ey = box_extent(c, s, hx, hy)
    # the box as it stands, not as pushed: the bounds are one more shape to be out of
    hit |= (px - ex < bounds[0] - min_pen or px + ex > bounds[2] + min_pen
            or py - ey < bounds[1] - min_pen or py + ey > bounds[3] + min_pen)
    cx, cy = keep_inside(px, py, cx, cy, ex, ey, bounds)
    return cx, cy, hit


@njit(cache=True, error_model="numpy")
def clear_of_static(x, y, yaw, shape, radius, half_x, half_y, z, height, gap, boxes, cylinders,
                    bounds):
    """True when the body (pose x, y m, yaw rad; ``shape`` SHAPE_DISC or SHAPE_BOX; base ``z``
    and ``height`` m), grown by ``gap`` m on every side, touches no static shape whose height
    range overlaps its own and lies inside ``bounds`` (x0, y0, x1, y1).

    Touching is strict, as in the contact kernel: a disc exactly tangent to a wall is clear. A
    grown box keeps square corners, slightly more conservative than a rounded gap."""
    is_box = shape == SHAPE_BOX
    c = math.cos(yaw)
    s = math.sin(yaw)
    r = radius + gap
    hx = half_x + gap
    hy = half_y + gap
    for k in range(boxes.shape[0]):
        if not heights_overlap(z, height, 0.0, boxes[k, 5]):
            continue
        if is_box:
            mx, my = box_from_box(x, y, c, s, hx, hy, boxes[k, 0], boxes[k, 1], boxes[k, 6],
                                  boxes[k, 7], boxes[k, 2], boxes[k, 3], 0.0, 1.0)
        else:
            mx, my = disc_from_box(x, y, r, boxes[k, 0], boxes[k, 1], boxes[k, 6],
                                   boxes[k, 7], boxes[k, 2], boxes[k, 3], 0.0)
        if mx != 0.0 or my != 0.0:
            return False
    for k in range(cylinders.shape[0]):
        if not heights_overlap(z, height, 0.0, cylinders[k, 3]):
            continue
        if is_box:
            mx, my = box_from_disc(x, y, c, s, hx, hy, cylinders[k, 0], cylinders[k, 1],
                                   cylinders[k, 2], 0.0)
            if mx != 0.0 or my != 0.0:
                return False
        else:
            ddx = x - cylinders[k, 0]
            ddy = y - cylinders[k, 1]
            if cylinders[k, 2] + r - math.sqrt(ddx * ddx + ddy * ddy) > 0.0:
                return False
    if is_box:
        ex, ey = box_extent(c, s, hx, hy)
    else:
        ex, ey = r, r
    return not (x - ex < bounds[0] or x + ex > bounds[2] or y - ey < bounds[1]
                or y + ey > bounds[3])


@njit(cache=True, error_model="numpy")
def bodies_overlap(x0, y0, yaw0, shape0, half_x0, half_y0, z0, h0, x1, y1, yaw1, shape1, half_x1,
                   half_y1, z1, h1, gap):
    """True when body 0, grown by ``gap`` m on every side, overlaps body 1 (poses x, y m, yaw
    rad; ``shape`` SHAPE_DISC (radius ``half_x``) or SHAPE_BOX; base ``z`` and height ``h`` m):
    their true footprints, discs as circles and boxes by the separating-axis theorem, where
    their height ranges overlap. Touching is not overlapping; a grown box keeps square corners,
    as in :func:`clear_of_static`."""
    if not heights_overlap(z0, h0, z1, h1):
        return False
    if shape0 != SHAPE_BOX and shape1 != SHAPE_BOX:
        rr = half_x0 + half_x1 + gap
        return (x0 - x1) ** 2 + (y0 - y1) ** 2 < rr * rr
    if shape0 != SHAPE_BOX:  # a box against a disc: the disc grows
        mx, my = disc_from_box(x0, y0, half_x0 + gap, x1, y1, math.cos(yaw1), math.sin(yaw1),
                               half_x1, half_y1, 0.0)
    elif shape1 != SHAPE_BOX:
        mx, my = disc_from_box(x1, y1, half_x1 + gap, x0, y0, math.cos(yaw0), math.sin(yaw0),
                               half_x0, half_y0, 0.0)
    else:
        mx, my = box_from_box(x0, y0, math.cos(yaw0), math.sin(yaw0), half_x0 + gap,
                              half_y0 + gap, x1, y1, math.cos(yaw1), math.sin(yaw1), half_x1,
                              half_y1, 0.0, 1.0)
    return mx != 0.0 or my != 0.0
