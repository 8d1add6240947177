"""Contacts of robot bodies (discs and boxes) with static shapes, the arena bounds and each other.

Position-based, like a 2-D dynamics engine at the tick level: overlaps are projected out over a
few Jacobi iterations (a robot driving into a wall stops; one hitting it at an angle slides
along it; robots push each other apart symmetrically). A final pass guarantees the invariant the
rest of the simulator relies on — no interpenetration — by putting back, at their previous
(valid) pose, the robots that still overlap after the iterations: such a robot is blocked for
this tick, as in ARGoS when a robot pushes against something it cannot move.

Bodies are 3-D: a disc (vertical cylinder) or an oriented box, spanning z ∈ [z, z + height].
Two bodies, or a body and a static shape (standing on the floor), only touch when their height
ranges overlap — a drone passes over a wall lower than its base — while the arena bounds hold
every body whatever its height. Corrections are translations only: a push never turns a box.
The shape tests themselves live in ``geometry.overlap``.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from swarmstack.sim import threads
from swarmstack.geometry.grid import build_grid, cell_span, cell_xy
from swarmstack.geometry.nearby import robots_near
from swarmstack.geometry.overlap import (SHAPE_BOX, box_from_box, box_from_disc, box_from_static,
                                         disc_from_box, disc_from_static, heights_overlap,
                                         keep_inside)
from numba import njit

TOLERANCE_M = 1e-4  # overlap below this is not worth a correction

# the Jacobi passes go parallel from this many bodies, in at most MAX_CHUNKS chunks of at
# least CHUNK bodies (each chunk holds a scratch list as long as the world)
PARALLEL_MIN = 2048
CHUNK = 256
MAX_CHUNKS = 16


@njit(cache=True, error_model="numpy")
def _static_push(px, py, r, boxes, cylinders, bounds):
    """Correction (dx, dy) (m) that moves an infinitely tall disk out of every static shape and
    inside the bounds. Kept for callers written before bodies had heights; new code uses
    ``geometry.overlap.clear_of_static``."""
    # z = 0 and an infinite height overlap every floor-standing shape (heights are > 0)
    return disc_from_static(px, py, r, 0.0, math.inf, boxes, range(boxes.shape[0]), cylinders,
                            range(cylinders.shape[0]), bounds)


@njit(cache=True, error_model="numpy", inline="always")
def _pair_push(i, j, x, y, yaw, c_i, s_i, box_i, shape, radius, half_x, half_y, extra):
    """Push-out (mx, my) (m) of body i (orientation (c_i, s_i)) from body j, grown by ``extra``,
    when at least one of them is a box."""
    if box_i:
        if shape[j] == SHAPE_BOX:
            c_j = math.cos(yaw[j])
            s_j = math.sin(yaw[j])
            # computed from the lower index's side and reversed for the other, so a pair's two
            # pushes are exact opposites even when axes tie or centres coincide
            if i < j:
                return box_from_box(x[i], y[i], c_i, s_i, half_x[i], half_y[i], x[j], y[j], c_j,
                                    s_j, half_x[j], half_y[j], extra, 1.0)
            mx, my = box_from_box(x[j], y[j], c_j, s_j, half_x[j], half_y[j], x[i], y[i], c_i,
                                  s_i, half_x[i], half_y[i], extra, 1.0)
            return -mx, -my
        return box_from_disc(x[i], y[i], c_i, s_i, half_x[i], half_y[i], x[j], y[j], radius[j],
                             extra)
    return disc_from_box(x[i], y[i], radius[i], x[j], y[j], math.cos(yaw[j]), math.sin(yaw[j]),
                         half_x[j], half_y[j], extra)


@njit(cache=True, error_model="numpy")
def _disc_box_push(i, j, x, y, yaw, radius, half_x, half_y, extra):
    """Push-out (mx, my) (m) of disc i from box j grown by ``extra``; a call of its own so the
    all-disc loop stays as tight as it was."""
    return disc_from_box(x[i], y[i], radius[i], x[j], y[j], math.cos(yaw[j]), math.sin(yaw[j]),
                         half_x[j], half_y[j], extra)


@njit(cache=True, error_model="numpy")
def _box_correction(i, c, x, y, yaw, z, shape, radius, half_x, half_y, height, run, mobile,
                    boxes, cylinders, bounds, gparams, box_start, box_items, cyl_start, cyl_items,
                    cell_start, order, max_r, scratch):
    """One Jacobi correction (cx, cy) (m) of box i: out of the listed static shapes at its
    height, inside the bounds, and away from the bodies of its run at its height (sharing the
    push with a mobile one, taking all of it from a still one). The third value tells whether
    anything was touched, even if the pushes summed to zero."""
    c_i = math.cos(yaw[i])
    s_i = math.sin(yaw[i])
    sx, sy, hit = box_from_static(x[i], y[i], c_i, s_i, half_x[i], half_y[i], z[i], height[i],
                                  boxes, box_items[box_start[c]:box_start[c + 1]], cylinders,
                                  cyl_items[cyl_start[c]:cyl_start[c + 1]], bounds, 0.0)
    ax = 0.0
    ay = 0.0
    m = robots_near(x[i], y[i], radius[i], run[i], i, x, y, radius, max_r, gparams, cell_start,
                    order, scratch)
    for q in range(m):
        j = scratch[q]
        if not heights_overlap(z[i], height[i], z[j], height[j]):
            continue
        share = 0.5 if mobile[j] else 1.0
        mx, my = _pair_push(i, j, x, y, yaw, c_i, s_i, True, shape, radius, half_x, half_y,
                            TOLERANCE_M)
        if mx != 0.0 or my != 0.0:
            hit = True
            ax += share * mx
            ay += share * my
    return sx + ax, sy + ay, hit


@njit(cache=True, error_model="numpy")
def _overlaps(i, x, y, yaw, z, shape, radius, half_x, half_y, height, run, boxes, cylinders,
              bounds, gparams, cell_start, order, max_r, box_start, box_items, cyl_start,
              cyl_items, scratch):
    """True when body i overlaps, by ``TOLERANCE_M`` or more, a static shape at its height, the
    outside of the bounds or a body of its run at its height."""
    tol = 1e-4
    nx = int(gparams[3])
    gx, gy = cell_xy(gparams, x[i], y[i])
    c = gy * nx + gx
    b_items = box_items[box_start[c]:box_start[c + 1]]
    c_items = cyl_items[cyl_start[c]:cyl_start[c + 1]]
    box_i = shape[i] == SHAPE_BOX
    c_i = 1.0
    s_i = 0.0
    if box_i:
        c_i = math.cos(yaw[i])
        s_i = math.sin(yaw[i])
        if box_from_static(x[i], y[i], c_i, s_i, half_x[i], half_y[i], z[i], height[i], boxes,
                           b_items, cylinders, c_items, bounds, tol)[2]:
            return True
    else:
        # a disc shrunk by the tolerance touches nothing (the test discs always had)
        dx, dy = disc_from_static(x[i], y[i], radius[i] - tol, z[i], height[i], boxes, b_items,
                                  cylinders, c_items, bounds)
        if dx != 0.0 or dy != 0.0:
            return True
    # bodies overlapping by ≥ tol have bounding circles overlapping by ≥ tol: a conservative query
    m = robots_near(x[i], y[i], radius[i] - tol, run[i], i, x, y, radius, max_r, gparams,
                    cell_start, order, scratch)
    for q in range(m):
        j = scratch[q]
        if not heights_overlap(z[i], height[i], z[j], height[j]):
            continue
        if not box_i and shape[j] != SHAPE_BOX:
            return True  # two discs: being a candidate is overlapping by ≥ tol
        mx, my = _pair_push(i, j, x, y, yaw, c_i, s_i, box_i, shape, radius, half_x, half_y, 0.0)
        if mx * mx + my * my >= tol * tol:
            return True
    return False


@njit(cache=True, error_model="numpy")
def _jacobi_rows(start, stop, x, y, yaw, z, shape, radius, half_x, half_y, height, run, rank,
                 mobile, boxes, cylinders, bounds, gparams, box_start, box_items, cyl_start,
                 cyl_items, cell_start, order, max_r, corr_x, corr_y):
    """One Jacobi pass over bodies ``start … stop − 1``: each mobile body's correction, from the
    poses as they stand (read only), into its own ``corr_x[i]``, ``corr_y[i]``. True when some
    body touched anything. ``rank``: a body's place among the bodies of its run."""
    nx = int(gparams[3])
    scratch = np.empty(x.shape[0], dtype=np.int64)
    moved = False
    for i in range(start, stop):
        if not mobile[i]:
            continue
        gx, gy = cell_xy(gparams, x[i], y[i])
        c = gy * nx + gx
        if shape[i] == SHAPE_BOX:
            cx, cy, hit = _box_correction(i, c, x, y, yaw, z, shape, radius, half_x, half_y,
                                          height, run, mobile, boxes, cylinders, bounds,
                                          gparams, box_start, box_items, cyl_start,
                                          cyl_items, cell_start, order, max_r, scratch)
            corr_x[i] = cx
            corr_y[i] = cy
            if hit:
                moved = True
            continue
        # a disc: the hot path of large swarms, kept free of box arithmetic and of loads
        # it does not need (most discs are far from any static shape and any other body)
        r_i = radius[i]
        if box_start[c] == box_start[c + 1] and cyl_start[c] == cyl_start[c + 1]:
            sx, sy = keep_inside(x[i], y[i], 0.0, 0.0, r_i, r_i, bounds)
        else:
            sx, sy = disc_from_static(x[i], y[i], r_i, z[i], height[i], boxes,
                                      box_items[box_start[c]:box_start[c + 1]], cylinders,
                                      cyl_items[cyl_start[c]:cyl_start[c + 1]], bounds)
        ax = 0.0
        ay = 0.0
        m = robots_near(x[i], y[i], radius[i], run[i], i, x, y, radius, max_r, gparams,
                        cell_start, order, scratch)
        for q in range(m):
            j = scratch[q]
            if not heights_overlap(z[i], height[i], z[j], height[j]):
                continue  # one passes above the other
            share = 0.5 if mobile[j] else 1.0
            if shape[j] == SHAPE_BOX:
                mx, my = _disc_box_push(i, j, x, y, yaw, radius, half_x, half_y,
                                        TOLERANCE_M)
                if mx != 0.0 or my != 0.0:
                    moved = True  # even if pushes from either side cancel out
                    ax += share * mx
                    ay += share * my
                continue
            # two discs (the candidate query already tested their overlap)
            ddx = x[i] - x[j]
            ddy = y[i] - y[j]
            rr = radius[i] + radius[j]
            d = math.sqrt(ddx * ddx + ddy * ddy)
            if d < 1e-12:
                # coincident centres: separate along a direction fixed by the pair's places
                # in their run (the same in a batch as alone)
                ang = 2.399963229728653 * (rank[i] if i < j else rank[j])
                ddx, ddy, d = math.cos(ang), math.sin(ang), 1.0
                if i > j:
                    ddx, ddy = -ddx, -ddy
            push = share * (rr - d + TOLERANCE_M)
            ax += ddx / d * push
            ay += ddy / d * push
        corr_x[i] = sx + ax
        corr_y[i] = sy + ay
        if corr_x[i] != 0.0 or corr_y[i] != 0.0:
            moved = True
    return moved


_jacobi_parallel = threads.chunked(_jacobi_rows, flag=True)


@njit(cache=True, error_model="numpy")
def _overlap_flag_rows(start, stop, reverted, mobile, x, y, yaw, z, shape, radius, half_x,
                       half_y, height, run, boxes, cylinders, bounds, gparams, cell_start, order,
                       max_r, box_start, box_items, cyl_start, cyl_items, flags):
    """``flags[i]``: ``_overlaps(i)`` for the bodies ``start … stop − 1`` that are mobile and not
    yet put back, from the poses as they stand (read only)."""
    scratch = np.empty(x.shape[0], dtype=np.int64)
    for i in range(start, stop):
        flags[i] = False
        if reverted[i] or not mobile[i]:
            continue
        flags[i] = _overlaps(i, x, y, yaw, z, shape, radius, half_x, half_y, height, run, boxes,
                             cylinders, bounds, gparams, cell_start, order, max_r, box_start,
                             box_items, cyl_start, cyl_items, scratch)


_flags_parallel = threads.chunked(_overlap_flag_rows)


@njit(cache=True, error_model="numpy")
def _near_dirty(i, x, y, radius, run, max_r, gparams, dirty):
    """Whether any grid cell body i's overlap test visits (``robots_near`` with its radius) is
    marked in ``dirty`` (a body listed there was put back since the grid was built)."""
    nx = int(gparams[3])
    base = run[i] * nx * int(gparams[4])
    gx0, gx1, gy0, gy1 = cell_span(gparams, x[i], y[i], radius[i] + max_r)
    for gy in range(gy0, gy1 + 1):
        for gx in range(gx0, gx1 + 1):
            if dirty[base + gy * nx + gx]:
                return True
    return False


def plan(n: int):
    """:func:`resolve_bodies` for a world of ``n`` bodies, its Jacobi passes on the thread pool
    when ``threads.go_parallel`` says so (chosen once, when the simulation plans its calls; the
    same result either way)."""
    threads.prepare_layer()  # (loading the pass's parallel loops starts a layer)
    return partial(resolve_bodies,
                   chunk=threads.chunk(CHUNK) if threads.go_parallel(n, PARALLEL_MIN) else 0)


def resolve(x, *args):
    """Project overlaps out of the new poses ``x, y`` (in place): :func:`resolve_bodies` (its
    arguments but ``chunk``) in the form :func:`plan` picks."""
    return plan(x.shape[0])(x, *args)


@njit(cache=True, error_model="numpy")
def resolve_bodies(x, y, yaw, z, prev_x, prev_y, prev_yaw, shape, radius, half_x, half_y, height,
            run, n_runs, boxes, cylinders, bounds, gparams,
            box_start, box_items, cyl_start, cyl_items,
            grid_start, grid_order, iterations, chunk=0):
    """Project overlaps out of the new poses ``x, y`` (in place); see the module docstring.

    Bodies (float64[N] unless noted, m and rad): pose ``x, y, yaw`` after integration and
    ``prev_x, prev_y, prev_yaw`` before it; ``shape`` int8[N] (``geometry.overlap.SHAPE_DISC``
    or ``SHAPE_BOX``); ``radius`` a disc's radius or a box's bounding-circle radius;
    ``half_x, half_y`` half extents in the body frame (both equal to ``radius`` for a disc);
    ``z`` the base above the floor and ``height``; ``run`` int64[N] the run of each body,
    ``n_runs`` of them. Only ``x, y`` and, for a box put back, ``yaw`` are written.

    ``box_start, box_items, cyl_start, cyl_items`` is the world's static index
    (``geometry.static_index``) for the grid ``gparams``, built with a margin no smaller than
    any body's ``radius``; ``grid_start``/``grid_order`` the robot grid of the previous poses.
    Bodies that did not move this tick (stopped, or a disc turning on the spot) hold their
    place: a moving body that runs into one takes the whole correction, two moving bodies share
    it. A box that turned counts as moving.

    Returns ``(blocked, cell_start, order)``: how many bodies were put back to their previous
    pose this tick, and the robot grid of the final positions (reusable by the caller).

    With ``chunk`` > 0 the Jacobi passes (where a large world spends its time) run on the
    thread pool, in at most ``MAX_CHUNKS`` chunks of at least ``chunk`` bodies, each with its
    own scratch; with 0 they keep to the calling thread. Every body writes only its own
    correction from poses nobody writes during a pass, so the corrections are those of the
    serial pass, bit for bit. The pass that puts bodies back keeps its order (whether a body
    still overlaps depends on who was put back before it): only its tests on the round's
    starting poses go parallel.
    """
    n = x.shape[0]
    mobile = np.empty(n, dtype=np.bool_)
    any_mobile = False
    for i in range(n):
        mobile[i] = x[i] != prev_x[i] or y[i] != prev_y[i]
        if not mobile[i] and shape[i] == SHAPE_BOX:
            mobile[i] = yaw[i] != prev_yaw[i]  # a box turning on the spot sweeps new ground
        any_mobile |= mobile[i]
    if not any_mobile:  # nothing moved: the previous (valid) state and its grid still stand
        return 0, grid_start, grid_order
    corr_x = np.zeros(n)
    corr_y = np.zeros(n)
    # each body's place among the bodies of its run: a run's own order, the same as alone
    rank = np.empty(n, dtype=np.int64)
    seen = np.zeros(n_runs, dtype=np.int64)
    for i in range(n):
        rank[i] = seen[run[i]]
        seen[run[i]] += 1
    max_r = 0.0
    for i in range(n):
        max_r = max(max_r, radius[i])
    size = 0
    if chunk > 0:
        n_chunks = min(MAX_CHUNKS, (n + chunk - 1) // chunk)
        size = (n + n_chunks - 1) // n_chunks
    settled = False
    cell_start, order = build_grid(gparams, x, y, run, n_runs)
    for it in range(iterations):
        if it > 0:
            cell_start, order = build_grid(gparams, x, y, run, n_runs)
        args = (x, y, yaw, z, shape, radius, half_x, half_y, height, run, rank, mobile, boxes,
                cylinders, bounds, gparams, box_start, box_items, cyl_start, cyl_items,
                cell_start, order, max_r, corr_x, corr_y)
        moved = _jacobi_parallel(0, n, size, *args) if size else _jacobi_rows(0, n, *args)
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
    # Bodies are tested in index order, each after the put-backs before it. Every test is first
    # made on the poses as the round starts (on the pool when ``chunk`` > 0); a body is tested
    # again in order only if its neighbourhood lists a body put back earlier in the round
    # (the grid cell where that body was is marked): the outcome is the in-order one.
    nx = int(gparams[3])
    flags = np.empty(n, dtype=np.bool_)
    dirty = np.zeros(n_runs * nx * int(gparams[4]), dtype=np.bool_)
    dirty_keys = np.empty(n, dtype=np.int64)
    scratch = np.empty(n, dtype=np.int64)
    for _ in range(n + 1):
        cell_start, order = build_grid(gparams, x, y, run, n_runs)
        n_dirty = 0
        args = (reverted, mobile, x, y, yaw, z, shape, radius, half_x, half_y, height, run,
                boxes, cylinders, bounds, gparams, cell_start, order, max_r, box_start,
                box_items, cyl_start, cyl_items, flags)
        if size:
            _flags_parallel(0, n, size, *args)
        else:
            _overlap_flag_rows(0, n, *args)
        changed = False
        for i in range(n):
            if reverted[i] or not mobile[i]:
                continue
            if n_dirty == 0 or not _near_dirty(i, x, y, radius, run, max_r, gparams, dirty):
                hit = flags[i]
            else:
                hit = _overlaps(i, x, y, yaw, z, shape, radius, half_x, half_y, height, run,
                                boxes, cylinders, bounds, gparams, cell_start, order, max_r,
                                box_start, box_items, cyl_start, cyl_items, scratch)
            if hit:
                # the cell this body is listed in no longer tells where it is
                gx, gy = cell_xy(gparams, x[i], y[i])
                key = (run[i] * int(gparams[4]) + gy) * nx + gx
                if not dirty[key]:
                    dirty[key] = True
                    dirty_keys[n_dirty] = key
                    n_dirty += 1
                x[i] = prev_x[i]
                y[i] = prev_y[i]
                if shape[i] == SHAPE_BOX:
                    yaw[i] = prev_yaw[i]  # a turn into a wall is undone too
                reverted[i] = True
                blocked += 1
                changed = True
        for q in range(n_dirty):
            dirty[dirty_keys[q]] = False
        if not changed:
            break
    return blocked, cell_start, order

