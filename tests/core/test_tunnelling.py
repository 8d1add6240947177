"""Contacts hold at any tick rate: E-Puck2s driving at full speed into thin walls, thin boxes,
posts and each other never come out on the other side nor overlap by more than 0.1 mm, whether a
tick lasts 0.1 s or 1 s; free motion, encoders and velocities do not depend on the tick rate,
and at 10 ticks/s a tick is never cut (the recorded trajectories of ``test_golden`` stand)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from swarmstack import Simulation
from swarmstack.physics.diffdrive import DiffDrive
from swarmstack.robots.epuck2 import ENCODER_STEPS_PER_M, MAX_WHEEL_SPEED_M_S, RADIUS_M
from tests.core.robot_types import hoverbox

RATES = (1, 2, 4, 10)
FULL = MAX_WHEEL_SPEED_M_S
TOL = 1e-4  # the contact invariant: no interpenetration beyond 0.1 mm


def _sim(tps, poses, boxes=(), cylinders=(), arena=2.0, sensors=None, runs=1, seed=1):
    group = {"name": "r", "placement": {"kind": "explicit", "poses": [list(p) for p in poses]}}
    if sensors:
        group["sensors"] = sensors
    cfg = {"simulation": {"ticks_per_second": tps, "seed": seed},
           "arena": {"size": [arena, arena], "walls": {"thickness": 0.02, "height": 0.1}},
           "boxes": [{"center": [x, y], "size": [sx, sy, 0.1], "yaw": yaw}
                     for x, y, sx, sy, yaw in boxes],
           "cylinders": [{"center": [x, y], "radius": r, "height": 0.1}
                         for x, y, r in cylinders],
           "robots": [group]}
    sim = Simulation.from_dict(cfg, runs=runs)
    sim.start()
    return sim


def _drive(sim, wheels, seconds, check=None):
    """Hold ``wheels`` ((left, right) m/s, one pair or one per robot) for ``seconds`` of
    simulated time, calling ``check(bodies)`` after every tick."""
    sim.commands("r")["wheels"][:] = wheels
    for _ in range(max(1, round(seconds / sim.world.dt))):
        sim.step()
        if check is not None:
            check(sim.world.bodies)


def _not_through(b, i, j):
    """Robot i, coming from the left, is still left of robot j, or went round it: discs that
    slide round each other part with their centres about two radii apart across the line of
    approach, discs that pass through each other with about none."""
    return b.x[i] < b.x[j] or abs(b.y[i] - b.y[j]) >= RADIUS_M


def _no_robot_overlap(b):
    for r in np.unique(b.run):
        idx = np.flatnonzero(b.run == r)
        d = np.hypot(b.x[idx, None] - b.x[None, idx], b.y[idx, None] - b.y[None, idx])
        np.fill_diagonal(d, np.inf)
        assert d.min() >= 2 * RADIUS_M - TOL


# --- walls, boxes, posts -----------------------------------------------------------------------

@pytest.mark.parametrize("tps", RATES)
@pytest.mark.parametrize("thickness", [0.01, 0.005])
def test_full_speed_into_a_thin_wall_never_crosses_it(tps, thickness):
    # a wall across the whole arena at x = 0; robots on its left at several angles of approach
    poses = [(-0.3, y, yaw) for y, yaw in zip(np.linspace(-0.75, 0.75, 7),
                                              (0.0, 0.3, -0.3, 0.8, -0.8, 1.2, -1.2))]
    sim = _sim(tps, poses, boxes=[(0.0, 0.0, thickness, 2.0, 0.0)])
    face = -thickness / 2

    def check(b):
        assert np.all(b.x + RADIUS_M <= face + TOL)  # on its side, not into the wall
        _no_robot_overlap(b)

    _drive(sim, FULL, 6.0, check)
    assert sim.world.bodies.x[0] == pytest.approx(face - RADIUS_M, abs=1e-3)  # pressed on it


@pytest.mark.parametrize("tps", RATES)
def test_full_speed_into_a_thin_turned_box_never_crosses_it(tps):
    # a 30 cm × 1 cm plank turned by 1.2 rad; three robots drive at it along its normal
    c, yaw = np.array([0.2, 0.1]), 1.2
    along, normal = np.array([math.cos(yaw), math.sin(yaw)]), np.array([-math.sin(yaw),
                                                                        math.cos(yaw)])
    heading = math.atan2(normal[1], normal[0])
    poses = [(*(c - 0.35 * normal + s * along), heading) for s in (-0.08, 0.0, 0.08)]
    sim = _sim(tps, poses, boxes=[(*c, 0.30, 0.01, yaw)])

    def check(b):
        side = (b.x - c[0]) * normal[0] + (b.y - c[1]) * normal[1]
        assert np.all(side <= -(0.005 + RADIUS_M) + TOL)

    _drive(sim, FULL, 6.0, check)


@pytest.mark.parametrize("tps", RATES)
def test_full_speed_into_a_thin_post_never_passes_it(tps):
    # a post 1 cm across: hit dead centre a robot stops; hit off centre it goes round it
    post = 0.005
    sim = _sim(tps, [(-0.3, 0.0, 0.0), (-0.3, 0.4, 0.0)], cylinders=[(0.0, 0.0, post),
                                                                    (0.0, 0.41, post)])

    def check(b):
        assert b.x[0] <= -(post + RADIUS_M) + TOL
        assert math.hypot(b.x[1], b.y[1] - 0.41) >= post + RADIUS_M - TOL

    _drive(sim, FULL, 6.0, check)
    assert sim.world.bodies.x[0] == pytest.approx(-(post + RADIUS_M), abs=1e-3)


@pytest.mark.parametrize("tps", RATES)
def test_hoverbox_does_not_cross_a_thin_wall(tps):
    # a type whose dynamics gives no bound of its own: what it moves is measured
    assert hoverbox.HOVERBOX.name == "hoverbox"
    cfg = {"simulation": {"ticks_per_second": tps},
           "arena": {"size": [2.0, 2.0], "walls": True},
           "boxes": [{"center": [0.0, 0.0], "size": [0.01, 2.0, 0.1]}],
           "robots": [{"name": "b", "type": "hoverbox",
                       "placement": {"kind": "explicit", "poses": [[-0.4, 0.3, 0.0],
                                                                   [-0.4, -0.3, 0.5]]},
                       "controller": {"python": "tests.core.controllers:Drive",
                                      "params": {"velocity": [0.5, 0.0, 0.0, 0.0]}}}]}
    sim = Simulation.from_dict(cfg)
    b = sim.world.bodies
    for _ in range(4 * tps):
        sim.step()
        for i in range(b.n):
            c, s = math.cos(b.yaw[i]), math.sin(b.yaw[i])
            corners = [b.x[i] + c * sx * 0.10 - s * sy * 0.05 for sx in (1, -1) for sy in (1, -1)]
            assert max(corners) <= -0.005 + TOL


# --- robots against robots ---------------------------------------------------------------------

@pytest.mark.parametrize("tps", RATES)
def test_head_on_pairs_never_pass_through_each_other(tps):
    rows = (-0.6, -0.3, 0.0, 0.3, 0.6)
    poses = [(-0.3, y, 0.0) for y in rows] + [(0.3, y, math.pi) for y in rows]
    sim = _sim(tps, poses)
    n = len(rows)

    def check(b):
        # pushing head-on is an unstable balance: a pair may end up sliding round each other
        assert all(_not_through(b, i, n + i) for i in range(n))
        _no_robot_overlap(b)

    _drive(sim, FULL, 6.0, check)


@pytest.mark.parametrize("tps", RATES)
def test_full_speed_into_a_standing_robot_never_passes_it(tps):
    sim = _sim(tps, [(-0.3, 0.0, 0.0), (0.1, 0.0, 0.0)])

    def check(b):
        assert b.x[1] - b.x[0] >= 2 * RADIUS_M - TOL

    _drive(sim, [(FULL, FULL), (0.0, 0.0)], 6.0, check)
    assert sim.world.bodies.x[1] == 0.1  # it holds its place


@settings(max_examples=20, deadline=None)
@given(tps=st.floats(0.2, 12.0),
       thickness=st.floats(0.002, 0.02),
       wheels=st.lists(st.tuples(st.floats(-FULL, FULL), st.floats(-FULL, FULL)),
                       min_size=5, max_size=5),
       headings=st.lists(st.floats(-1.3, 1.3), min_size=5, max_size=5),
       pair_speeds=st.tuples(st.floats(0.01, FULL), st.floats(0.0, FULL)))
def test_contacts_hold_at_any_tick_rate(tps, thickness, wheels, headings, pair_speeds):
    # left: five robots at any wheel speeds near a thin wall at x = 0; right: a head-on pair
    left = [(-0.12, y, h) for y, h in zip((-0.6, -0.3, 0.0, 0.3, 0.6), headings)]
    poses = left + [(0.3, 0.0, 0.0), (0.7, 0.0, math.pi)]
    sim = _sim(tps, poses, boxes=[(0.0, 0.0, thickness, 2.0, 0.0)])
    face = -thickness / 2

    def check(b):
        assert np.all(b.x[:5] + RADIUS_M <= face + TOL)
        assert _not_through(b, 5, 6)
        _no_robot_overlap(b)

    a, c = pair_speeds
    _drive(sim, list(wheels) + [(a, a), (c, c)], min(8.0, 3.0 / tps + 2.0), check)


# --- what sub-steps must not change ------------------------------------------------------------

def _crowd(tps):
    cfg = {"simulation": {"ticks_per_second": tps, "seed": 3},
           "arena": {"size": [1.0, 1.0], "walls": {"thickness": 0.02}},
           "boxes": [{"center": [0.0, 0.0], "size": [0.01, 0.6, 0.1]}],
           "cylinders": [{"center": [0.25, 0.25], "radius": 0.005}],
           "robots": [{"name": "r", "count": 30,
                       "wheels": {"noise": "gaussian", "level": 0.05},
                       "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
    sim = Simulation.from_dict(cfg)
    sim.start()
    poses = []
    for _ in range(150):
        sim.step()
        poses.append(sim.world.bodies.pose.copy())
    return np.array(poses)


def test_at_10_ticks_per_second_no_tick_is_cut(monkeypatch):
    # a crowd at full speed with noisy wheels among thin shapes moves exactly as when every
    # tick is integrated whole
    cut = _crowd(10)

    plan = DiffDrive.plan

    def whole(self, *args):  # never counts more than one sub-step
        count, integrate = plan(self, *args)
        return (lambda: 1), integrate

    monkeypatch.setattr(DiffDrive, "plan", whole)
    assert np.array_equal(_crowd(10), cut)


def test_free_motion_does_not_depend_on_the_tick_rate():
    # one robot per run (runs never meet), each on its own arc, for 3 s in open space
    wheels = [(0.1, 0.1), (FULL, 0.05), (-0.08, 0.12), (FULL, -FULL), (0.03, -0.1), (0.0, 0.0)]
    ends = {}
    for tps in RATES:
        sim = _sim(tps, [(0.0, 0.0, 0.4)], arena=4.0, runs=len(wheels))
        _drive(sim, wheels, 3.0)
        ends[tps] = sim.world.bodies.pose.copy()
    for tps in RATES:
        d = ends[tps] - ends[10]
        d[5] = np.arctan2(np.sin(d[5]), np.cos(d[5]))
        assert np.abs(d).max() < 1e-9


@pytest.mark.parametrize("tps", [1, 10])
def test_encoders_count_the_wheels_of_a_robot_pushing_on_a_wall(tps):
    # blocked after ~0.5 s, the wheels keep turning: the encoders count all of it
    sim = _sim(tps, [(0.3, 0.0, 0.0)], arena=1.0, sensors={"encoders": True})
    _drive(sim, (0.1, 0.1), 5.0)
    assert sim.world.bodies.x[0] == pytest.approx(0.5 - 0.02 - RADIUS_M, abs=1e-3)
    steps = sim.readings("r")["encoders"][0]
    assert np.all(np.abs(steps - ENCODER_STEPS_PER_M * 0.1 * 5.0) <= 1.0)


def test_velocity_spans_the_whole_tick():
    # at 1 tick/s the tick is cut into sub-steps; velocities still divide the displacement of
    # the whole tick by its length
    sim = _sim(1, [(-0.5, 0.0, 0.0)], arena=2.0)
    _drive(sim, (FULL, FULL), 1.0)
    b = sim.world.bodies
    assert b.velocity(sim.world.dt)[:, 0] == pytest.approx([FULL, 0.0, 0.0], abs=1e-12)
    assert b.x[0] == pytest.approx(-0.5 + FULL, abs=1e-12)
