"""Contacts of 3-D bodies: discs and boxes, separated only where their height ranges overlap.

The scenes are small and hand-built; ``resolve`` is called directly. Overlaps are measured with
a plain NumPy reference (corners and separating axes), independent of the kernel's own shape
tests, so a wrong kernel primitive cannot hide behind itself.
"""

import math
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from swarmstack.geometry.grid import build_grid, grid_params
from swarmstack.geometry.overlap import SHAPE_BOX, SHAPE_DISC, clear_of_static, heights_overlap
from swarmstack.geometry.static_index import build_static_index
from swarmstack.physics.contacts import TOLERANCE_M, resolve
from swarmstack.world.arena import Arena, wall_boxes

BOUNDS = (-1.0, -1.0, 1.0, 1.0)
WALL_H = 0.1
EPUCK_R, EPUCK_H = 0.035, 0.045


# --- scenes ------------------------------------------------------------------------------------

def disc(x, y, r=EPUCK_R, z=0.0, h=EPUCK_H, run=0, yaw=0.0):
    return dict(shape=SHAPE_DISC, x=x, y=y, yaw=yaw, r=r, hx=r, hy=r, z=z, h=h, run=run)


def box(x, y, yaw=0.0, hx=0.1, hy=0.05, z=0.0, h=0.05, run=0):
    return dict(shape=SHAPE_BOX, x=x, y=y, yaw=yaw, r=math.hypot(hx, hy), hx=hx, hy=hy, z=z, h=h,
                run=run)


@dataclass
class Result:
    x: np.ndarray
    y: np.ndarray
    yaw: np.ndarray
    blocked: int
    mobile: np.ndarray


def step(bodies, moves, boxes=(), cylinders=(), bounds=BOUNDS, iterations=4):
    """Bodies at their (valid) previous poses, ``moves`` {index: (x, y, yaw)} their new poses;
    one ``resolve`` call, as the simulator's physics step makes it."""
    arena = Arena(bounds, np.array(boxes, dtype=float).reshape(len(boxes), -1) if len(boxes)
                  else np.zeros((0, 6)),
                  np.array(cylinders, dtype=float).reshape(-1, 4) if len(cylinders)
                  else np.zeros((0, 4)))
    col = {k: np.array([b[k] for b in bodies], dtype=float)
           for k in ("x", "y", "yaw", "r", "hx", "hy", "z", "h")}
    shape = np.array([b["shape"] for b in bodies], dtype=np.int8)
    run = np.array([b["run"] for b in bodies], dtype=np.int64)
    n_runs = int(run.max()) + 1
    g = grid_params(bounds, max(0.18, 2.0 * col["r"].max()))
    bs, bi, cs, ci = build_static_index(g, arena.boxes, arena.cylinders, margin=float(g[2]))
    prev_x, prev_y, prev_yaw = col["x"].copy(), col["y"].copy(), col["yaw"].copy()
    gs, go = build_grid(g, prev_x, prev_y, run, n_runs)
    x, y, yaw = prev_x.copy(), prev_y.copy(), prev_yaw.copy()
    for i, (nx, ny, nyaw) in moves.items():
        x[i], y[i], yaw[i] = nx, ny, nyaw
    mobile = (x != prev_x) | (y != prev_y) | ((shape == SHAPE_BOX) & (yaw != prev_yaw))
    blocked, cell_start, order = resolve(
        x, y, yaw, col["z"], prev_x, prev_y, prev_yaw, shape, col["r"], col["hx"], col["hy"],
        col["h"], run, n_runs, arena.boxes, arena.cylinders, np.array(bounds, dtype=float), g,
        bs, bi, cs, ci, gs, go, iterations)
    # the returned grid is the grid of the final positions
    ref_start, ref_order = build_grid(g, x, y, run, n_runs)
    assert np.array_equal(cell_start, ref_start) and np.array_equal(order, ref_order)
    return Result(x, y, yaw, int(blocked), mobile)


def moved(b, res, i):
    return dict(b, x=res.x[i], y=res.y[i], yaw=res.yaw[i])


# --- reference geometry (NumPy, independent of the kernel) --------------------------------------

def corners(b):
    c, s = math.cos(b["yaw"]), math.sin(b["yaw"])
    local = np.array([(b["hx"], b["hy"]), (-b["hx"], b["hy"]), (-b["hx"], -b["hy"]),
                      (b["hx"], -b["hy"])])
    return np.column_stack([b["x"] + c * local[:, 0] - s * local[:, 1],
                            b["y"] + s * local[:, 0] + c * local[:, 1]])


def _sat_depth(p, q):
    depth = math.inf
    for poly in (p, q):
        for k in range(4):
            e = poly[(k + 1) % 4] - poly[k]
            n = np.array([-e[1], e[0]]) / math.hypot(*e)
            a, b = p @ n, q @ n
            depth = min(depth, min(a.max(), b.max()) - max(a.min(), b.min()))
    return depth


def _disc_poly_depth(cx, cy, r, poly):
    dist = math.inf
    inside = True
    for k in range(4):
        a, b = poly[k], poly[(k + 1) % 4]
        e = b - a
        t = min(1.0, max(0.0, float(np.dot((cx, cy) - a, e) / np.dot(e, e))))
        dist = min(dist, math.hypot(*((cx, cy) - (a + t * e))))
        inside &= e[0] * (cy - a[1]) - e[1] * (cx - a[0]) >= 0.0  # corners run CCW
    return r + dist if inside else r - dist


def depth(a, b):
    """How far the footprints of a and b overlap (m); ≤ 0 when apart."""
    if a["shape"] == SHAPE_DISC and b["shape"] == SHAPE_DISC:
        return a["r"] + b["r"] - math.hypot(a["x"] - b["x"], a["y"] - b["y"])
    if a["shape"] == SHAPE_DISC:
        return _disc_poly_depth(a["x"], a["y"], a["r"], corners(b))
    if b["shape"] == SHAPE_DISC:
        return _disc_poly_depth(b["x"], b["y"], b["r"], corners(a))
    return _sat_depth(corners(a), corners(b))


def bounds_excess(b, bounds=BOUNDS):
    """How far the body sticks out of the bounds (m); ≤ 0 when inside."""
    if b["shape"] == SHAPE_DISC:
        xs = np.array([b["x"] - b["r"], b["x"] + b["r"]])
        ys = np.array([b["y"] - b["r"], b["y"] + b["r"]])
    else:
        xs, ys = corners(b).T
    return max(bounds[0] - xs.min(), xs.max() - bounds[2], bounds[1] - ys.min(),
               ys.max() - bounds[3])


def static_bodies(boxes, cylinders):
    """Static shapes as bodies standing on the floor."""
    out = [box(b[0], b[1], b[4], b[2], b[3], 0.0, b[5]) for b in boxes]
    out += [disc(c[0], c[1], c[2], 0.0, c[3]) for c in cylinders]
    return out


def vertical(a, b):
    return heights_overlap(a["z"], a["h"], b["z"], b["h"])


# --- height ------------------------------------------------------------------------------------

EAST_WALL = wall_boxes(BOUNDS, 0.1, WALL_H)[2]      # inner face at x = 0.9
LOW_BOX = [0.5, 0.0, 0.1, 0.1, 0.3, WALL_H]          # a 0.1 m high obstacle, yawed
LOW_CYLINDER = [0.5, 0.0, 0.1, WALL_H]


@pytest.mark.parametrize("obstacle", ["wall", "box", "cylinder"])
@pytest.mark.parametrize("shape", [SHAPE_DISC, SHAPE_BOX])
def test_a_body_above_a_low_static_shape_passes_over_it(obstacle, shape):
    boxes = {"wall": [EAST_WALL], "box": [LOW_BOX], "cylinder": []}[obstacle]
    cylinders = [LOW_CYLINDER] if obstacle == "cylinder" else []
    target = (0.88, 0.0, 0.0) if obstacle == "wall" else (0.5, 0.02, 0.0)
    make = disc if shape == SHAPE_DISC else box
    kw = dict(r=0.1) if shape == SHAPE_DISC else dict(hx=0.1, hy=0.08)
    # a drone 0.5 m up flies over; so does one resting exactly on the top (heights only touch)
    for z in (0.5, WALL_H):
        res = step([make(0.0, 0.0, z=z, h=0.1, **kw)], {0: target}, boxes, cylinders)
        assert (res.x[0], res.y[0], res.yaw[0]) == target and res.blocked == 0
    # the same body at an overlapping height is pushed out
    res = step([make(0.0, 0.0, z=0.05, h=0.1, **kw)], {0: target}, boxes, cylinders)
    assert (res.x[0], res.y[0]) != target[:2]
    assert depth(moved(make(0.0, 0.0, **kw), res, 0),
                 static_bodies(boxes, cylinders)[0]) <= TOLERANCE_M


@pytest.mark.parametrize("shape", [SHAPE_DISC, SHAPE_BOX])
def test_a_drone_passes_over_a_ground_robot(shape):
    epuck = disc(0.3, 0.0)
    make = disc if shape == SHAPE_DISC else box
    for z, overlaps in ((0.5, False), (EPUCK_H, False), (0.02, True)):
        drone = make(0.0, 0.0, z=z, h=0.1)
        res = step([drone, epuck], {0: (0.3, 0.01, 0.0)})
        assert (res.x[1], res.y[1]) == (0.3, 0.0)  # a robot that did not move holds its place
        if overlaps:
            assert depth(moved(drone, res, 0), epuck) <= 0.0
        else:
            assert (res.x[0], res.y[0]) == (0.3, 0.01)


def test_bounds_hold_a_body_whatever_its_height():
    for b in (disc(0.0, 0.0, r=0.1, z=3.0, h=0.1), box(0.0, 0.0, z=3.0, h=0.1)):
        res = step([b], {0: (1.2, -1.3, 0.4)})
        assert bounds_excess(moved(b, res, 0)) <= 1e-12
        assert res.yaw[0] == 0.4 and res.blocked == 0


def test_discs_at_different_heights_are_separated_only_when_they_share_a_height():
    # two discs driven onto one spot, one above the other: both stay; lower the top one: they part
    for z, apart in ((EPUCK_H, False), (EPUCK_H - 0.01, True)):
        bodies = [disc(0.0, 0.0), disc(0.2, 0.0, z=z)]
        res = step(bodies, {0: (0.05, 0.0, 0.0), 1: (0.06, 0.0, 0.0)})
        gap = res.x[1] - res.x[0] - 2 * EPUCK_R
        assert (gap > 0.0) if apart else (res.x[0], res.x[1]) == (0.05, 0.06)


# --- boxes and static shapes -------------------------------------------------------------------

def test_a_box_driving_into_a_wall_stops_outside_it():
    robot = box(0.5, 0.0, hx=0.1, hy=0.06)
    res = step([robot], {0: (0.85, 0.0, 0.0)}, [EAST_WALL])
    assert res.x[0] == pytest.approx(0.8, abs=1e-12)  # front face on the wall's at x = 0.9
    assert res.y[0] == 0.0 and res.yaw[0] == 0.0 and res.blocked == 0


def test_a_box_at_an_angle_slides_along_a_wall_without_turning():
    robot = box(0.6, 0.0, yaw=0.5, hx=0.1, hy=0.06)
    res = step([robot], {0: (0.8, 0.05, 0.5)}, [EAST_WALL])
    after = moved(robot, res, 0)
    assert depth(after, static_bodies([EAST_WALL], [])[0]) <= 1e-12
    assert res.y[0] == 0.05 and res.yaw[0] == 0.5  # pushed along the wall normal only
    assert res.blocked == 0


@pytest.mark.parametrize("y0", [0.0, 0.01])
def test_a_box_turning_into_walls_it_cannot_escape_is_put_back(y0):
    # a corridor 0.14 m wide; the 0.3 × 0.1 m box fits lengthwise but not across
    walls = [[0.0, 0.12, 1.0, 0.05, 0.0, WALL_H], [0.0, -0.12, 1.0, 0.05, 0.0, WALL_H]]
    robot = box(0.0, y0, hx=0.15, hy=0.05)
    res = step([robot], {0: (0.0, y0, math.pi / 2)}, walls)
    assert (res.x[0], res.y[0], res.yaw[0]) == (0.0, y0, 0.0)
    assert res.blocked == 1
    # in the open, the same turn is kept
    res = step([robot], {0: (0.0, y0, math.pi / 2)})
    assert res.yaw[0] == math.pi / 2 and res.blocked == 0


def test_a_box_turning_towards_one_wall_is_pushed_away_not_turned_back():
    robot = box(0.8, 0.0, yaw=math.pi / 2, hx=0.15, hy=0.05)
    res = step([robot], {0: (0.8, 0.0, 0.0)}, [EAST_WALL])
    assert res.yaw[0] == 0.0 and res.blocked == 0
    assert res.x[0] == pytest.approx(0.75, abs=1e-12)


def test_a_box_against_a_cylinder_ends_outside_it():
    robot = box(0.0, 0.0, yaw=0.7, hx=0.12, hy=0.05)
    cyl = [0.3, 0.05, 0.08, WALL_H]
    res = step([robot], {0: (0.22, 0.03, 0.7)}, [], [cyl])
    assert depth(moved(robot, res, 0), static_bodies([], [cyl])[0]) <= 1e-12
    assert res.yaw[0] == 0.7 and res.blocked == 0


def test_a_box_stays_inside_the_bounds_by_its_corners():
    robot = box(0.0, 0.0, yaw=math.pi / 4, hx=0.2, hy=0.05)
    res = step([robot], {0: (0.95, 0.95, math.pi / 4)})
    after = moved(robot, res, 0)
    assert -1e-12 <= -bounds_excess(after) <= 1e-12  # corners on the bounds, not past them
    ext = 0.25 * math.sqrt(0.5)
    assert res.x[0] == pytest.approx(1.0 - ext, abs=1e-12)


# --- pairs of robots ---------------------------------------------------------------------------

@pytest.mark.parametrize("yaws", [(0.0, 0.0), (0.0, math.pi / 4), (1.0, -0.3), (0.0, math.pi)])
def test_two_boxes_driving_into_each_other_end_apart(yaws):
    a = box(-0.3, 0.0, yaw=yaws[0], hx=0.12, hy=0.05)
    b = box(0.3, 0.02, yaw=yaws[1], hx=0.1, hy=0.07)
    res = step([a, b], {0: (-0.05, 0.0, yaws[0]), 1: (0.05, 0.02, yaws[1])})
    assert depth(moved(a, res, 0), moved(b, res, 1)) < 0.0
    # a shared push: the pair's centre of the two corrections stays put
    assert res.x[0] + res.x[1] == pytest.approx(0.0, abs=1e-12)
    assert res.blocked == 0


def test_two_coincident_boxes_are_sent_opposite_ways():
    a, b = box(-0.3, 0.0), box(0.3, 0.0)
    res = step([a, b], {0: (0.0, 0.0, 0.0), 1: (0.0, 0.0, 0.0)}, iterations=8)
    assert depth(moved(a, res, 0), moved(b, res, 1)) <= TOLERANCE_M
    assert res.x[0] == -res.x[1] and res.y[0] == -res.y[1]


@pytest.mark.parametrize("who_moves", ["box", "disc", "both"])
def test_a_box_and_a_disc_end_apart(who_moves):
    b = box(-0.3, 0.0, yaw=0.4, hx=0.12, hy=0.06)
    d = disc(0.3, 0.05, r=0.05)
    moves = {"box": {0: (0.25, 0.0, 0.4)},
             "disc": {1: (-0.25, 0.02, 0.0)},
             "both": {0: (-0.02, 0.0, 0.4), 1: (0.04, 0.05, 0.0)}}[who_moves]
    res = step([b, d], moves)
    assert depth(moved(b, res, 0), moved(d, res, 1)) < 0.0
    assert res.blocked == 0
    if who_moves == "box":  # a robot that did not move holds its place
        assert (res.x[1], res.y[1]) == (0.3, 0.05)
    if who_moves == "disc":
        assert (res.x[0], res.y[0], res.yaw[0]) == (-0.3, 0.0, 0.4)


def test_a_box_turning_on_the_spot_moves_off_a_still_robot():
    # a still disc yields to nobody; a turning box is mobile and takes the whole push
    still = disc(0.18, 0.2, r=0.05)
    turning = box(0.0, 0.2, hx=0.05, hy=0.15)  # long side along y: reaches x = 0.15 turned
    res = step([still, turning], {1: (0.0, 0.2, math.pi / 2)})
    assert (res.x[0], res.y[0]) == (0.18, 0.2)
    assert res.x[1] == pytest.approx(-0.02 - TOLERANCE_M, abs=1e-12)
    assert depth(still, moved(turning, res, 1)) < 0.0 and res.yaw[1] == math.pi / 2
    # a disc turning on the spot is not moving: it never pushes or is pushed
    res = step([disc(0.0, 0.0), disc(0.3, 0.0)], {0: (0.0, 0.0, 1.0)})
    assert res.mobile.tolist() == [False, False] and res.blocked == 0


@pytest.mark.parametrize("offset", [0.0, 0.01])
@pytest.mark.parametrize("squeezed, neighbours", [(SHAPE_BOX, SHAPE_BOX), (SHAPE_BOX, SHAPE_DISC),
                                                  (SHAPE_DISC, SHAPE_BOX)])
def test_a_robot_squeezing_between_two_still_robots_is_put_back(squeezed, neighbours, offset):
    # the gap between the two still robots is 0.2 m, the moving one 0.3 m across: no room
    side = [box(x, 0.0, hx=0.1, hy=0.1) if neighbours == SHAPE_BOX else disc(x, 0.0, r=0.1)
            for x in (-0.2, 0.2)]
    mover = box(0.0, 0.5, hx=0.15, hy=0.05) if squeezed == SHAPE_BOX else disc(0.0, 0.5, r=0.15)
    res = step(side + [mover], {2: (offset, 0.0, 0.0)})
    assert (res.x[2], res.y[2]) == (0.0, 0.5) and res.blocked == 1
    assert (res.x[:2] == (-0.2, 0.2)).all() and (res.y[:2] == 0.0).all()


def test_runs_never_interact():
    bodies = [box(0.0, 0.0, run=0), box(0.0, 0.0, run=1), disc(0.05, 0.0, run=2),
              box(-0.5, 0.0, run=0)]
    moves = {0: (0.1, 0.0, 0.2), 1: (0.1, 0.0, 0.2), 2: (0.1, 0.0, 0.0)}
    res = step(bodies, moves)
    for i, (x, y, yaw) in moves.items():
        assert (res.x[i], res.y[i], res.yaw[i]) == (x, y, yaw)


# --- clear_of_static (world placement) ---------------------------------------------------------

def test_clear_of_static_sees_shapes_at_the_body_height_only():
    boxes = Arena(BOUNDS, np.array([LOW_BOX])).boxes
    cyl = np.zeros((0, 4))
    b4 = np.array(BOUNDS)
    # a box robot on the obstacle is not clear; above it, it is; a gap reaches out to it
    assert not clear_of_static(0.5, 0.15, 0.0, SHAPE_BOX, 0.12, 0.1, 0.06, 0.0, 0.05, 0.0, boxes,
                               cyl, b4)
    assert clear_of_static(0.5, 0.15, 0.0, SHAPE_BOX, 0.12, 0.1, 0.06, 0.2, 0.05, 0.0, boxes,
                           cyl, b4)
    assert clear_of_static(0.5, 0.45, 0.0, SHAPE_DISC, 0.1, 0.1, 0.1, 0.0, 0.05, 0.0, boxes, cyl,
                           b4)
    assert not clear_of_static(0.5, 0.45, 0.0, SHAPE_DISC, 0.1, 0.1, 0.1, 0.0, 0.05, 0.3, boxes,
                               cyl, b4)
    # out of the bounds is never clear, even flying
    assert not clear_of_static(0.95, 0.0, 0.0, SHAPE_DISC, 0.1, 0.1, 0.1, 2.0, 0.05, 0.0, boxes,
                               cyl, b4)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_clear_of_static_agrees_with_the_reference(seed):
    rng = np.random.default_rng(seed)
    boxes, cylinders = _random_statics(rng)
    b4 = np.array(BOUNDS)
    for _ in range(30):
        b = _random_body(rng, run=0)
        gap = float(rng.choice([0.0, 0.02]))
        got = clear_of_static(b["x"], b["y"], b["yaw"], b["shape"], b["r"], b["hx"], b["hy"],
                              b["z"], b["h"], gap, boxes, cylinders, b4)
        grown = dict(b, r=b["r"] + gap, hx=b["hx"] + gap, hy=b["hy"] + gap)
        worst = max([bounds_excess(grown)] + [depth(grown, s) for s in
                                               static_bodies(boxes, cylinders) if vertical(b, s)])
        if abs(worst) > 1e-9:  # away from exact tangency
            assert got == (worst < 0.0)


# --- random scenes -----------------------------------------------------------------------------

def _random_statics(rng):
    boxes = [[rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8), rng.uniform(0.02, 0.3),
              rng.uniform(0.02, 0.3), rng.uniform(-math.pi, math.pi), rng.uniform(0.02, 0.3)]
             for _ in range(rng.integers(0, 4))]
    cylinders = [[rng.uniform(-0.8, 0.8), rng.uniform(-0.8, 0.8), rng.uniform(0.02, 0.15),
                  rng.uniform(0.02, 0.3)] for _ in range(rng.integers(0, 4))]
    return (Arena(BOUNDS, np.array(boxes).reshape(-1, 6)).boxes,
            np.array(cylinders).reshape(-1, 4))


def _random_body(rng, run):
    z = 0.0 if rng.random() < 0.6 else float(rng.uniform(0.0, 0.3))
    h = float(rng.uniform(0.03, 0.15))
    x, y = rng.uniform(-1.0, 1.0, 2)
    if rng.random() < 0.5:
        return disc(x, y, r=float(rng.uniform(0.02, 0.1)), z=z, h=h, run=run)
    return box(x, y, float(rng.uniform(-math.pi, math.pi)), float(rng.uniform(0.02, 0.12)),
               float(rng.uniform(0.02, 0.12)), z=z, h=h, run=run)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 24), runs=st.integers(1, 2),
       reach=st.sampled_from([0.02, 0.1, 0.3]))
def test_no_interpenetration_after_resolve(seed, n, runs, reach):
    """Valid previous poses (nothing overlaps), random moves and turns: afterwards no body
    overlaps a static shape or a body of its run at its height, beyond the kernel's tolerance
    (what the final pass guarantees), and bodies that did not move are where they were."""
    rng = np.random.default_rng(seed)
    boxes, cylinders = _random_statics(rng)
    statics = static_bodies(boxes, cylinders)
    bodies = []
    for k in range(n):  # rejection sampling of valid previous poses
        run = k % runs
        for _ in range(100):
            b = _random_body(rng, run)
            if bounds_excess(b) < 0.0 and all(depth(b, s) < 0.0 for s in statics
                                              if vertical(b, s)) \
                    and all(depth(b, o) < 0.0 for o in bodies
                            if o["run"] == run and vertical(b, o)):
                bodies.append(b)
                break
    if len(bodies) < 2:
        return
    moves = {}
    for i, b in enumerate(bodies):
        kind = rng.integers(0, 4)  # still, translate, turn, both
        dx, dy = rng.normal(0.0, reach, 2) if kind in (1, 3) else (0.0, 0.0)
        dyaw = rng.normal(0.0, 0.6) if kind in (2, 3) else 0.0
        if kind:
            moves[i] = (b["x"] + dx, b["y"] + dy, b["yaw"] + dyaw)
    res = step(bodies, moves, boxes, cylinders)
    after = [moved(b, res, i) for i, b in enumerate(bodies)]
    bound = TOLERANCE_M + 1e-9
    for i, a in enumerate(after):
        if not res.mobile[i]:
            assert (a["x"], a["y"]) == (bodies[i]["x"], bodies[i]["y"])
        assert bounds_excess(a) <= bound
        for s in statics:
            if vertical(a, s):
                assert depth(a, s) <= bound, (i, a, s)
        for j in range(i + 1, len(after)):
            o = after[j]
            if o["run"] == a["run"] and vertical(a, o):
                assert depth(a, o) <= bound, (i, j)
