"""Contacts: no interpenetration, blocking against walls, sliding at an angle, runs independent."""

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from swarmstack import Simulation
from swarmstack.experiments.config import ConfigError


def _min_gaps(sim):
    """Smallest robot–robot gap (m) within any run, and the deepest static penetration."""
    b = sim.world.bodies
    worst = np.inf
    for r in range(sim.runs):
        idx = np.flatnonzero(b.run == r)
        if idx.size < 2:
            continue
        dx = b.x[idx, None] - b.x[None, idx]
        dy = b.y[idx, None] - b.y[None, idx]
        d = np.hypot(dx, dy) - (b.radius[idx, None] + b.radius[None, idx])
        np.fill_diagonal(d, np.inf)
        worst = min(worst, d.min())
    return worst


def _static_penetration(sim):
    from swarmstack.physics.contacts import _static_push

    w = sim.world
    b = w.bodies
    deepest = 0.0
    for i in range(b.n):
        dx, dy = _static_push(b.x[i], b.y[i], b.radius[i], w.arena.boxes, w.arena.cylinders,
                              w.bounds)
        deepest = max(deepest, math.hypot(dx, dy))
    return deepest


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 40),
       boxes=st.lists(st.tuples(st.floats(-0.6, 0.6), st.floats(-0.6, 0.6),
                                st.floats(0.02, 0.4), st.floats(0.02, 0.4),
                                st.floats(-math.pi, math.pi)), max_size=3),
       cylinders=st.lists(st.tuples(st.floats(-0.6, 0.6), st.floats(-0.6, 0.6),
                                    st.floats(0.02, 0.15)), max_size=3))
def test_no_interpenetration_in_random_scenes(seed, n, boxes, cylinders):
    cfg = {
        "arena": {"size": [1.6, 1.6], "walls": True},
        "boxes": [{"center": [x, y], "size": [sx, sy, 0.1], "yaw": yaw}
                  for x, y, sx, sy, yaw in boxes],
        "cylinders": [{"center": [x, y], "radius": r} for x, y, r in cylinders],
        "robots": [{"name": "r", "count": n, "controller": {
            "python": "tests.core.controllers:RandomWheels"}}],
    }
    try:
        sim = Simulation.from_dict(cfg, seed=seed, runs=2)
    except ConfigError as exc:  # crowded scenes are rejected at placement, which is fine
        assert "placement" in str(exc)
        return
    for _ in range(60):
        sim.step()
        assert _min_gaps(sim) > -1e-3
        assert _static_penetration(sim) < 1e-3


def test_head_on_wall_blocks():
    cfg = {"arena": {"size": [1.0, 1.0], "walls": {"thickness": 0.02}},
           "robots": [{"name": "r", "placement": {"kind": "explicit", "poses": [[0, 0, 0]]},
                       "controller": {"python": "tests.core.controllers:Forward"}}]}
    sim = Simulation.from_dict(cfg)
    sim.run(100)
    b = sim.world.bodies
    assert abs(b.x[0] - (0.5 - 0.02 - 0.035)) < 1e-3  # pressed against the east wall
    assert abs(b.y[0]) < 1e-9


def test_oblique_contact_slides_along_wall():
    cfg = {"arena": {"size": [1.0, 1.0], "walls": {"thickness": 0.02}},
           "robots": [{"name": "r", "placement": {"kind": "explicit",
                                                  "poses": [[0.3, 0, math.radians(30)]]},
                       "controller": {"python": "tests.core.controllers:Forward"}}]}
    sim = Simulation.from_dict(cfg)
    sim.run(30)
    b = sim.world.bodies
    assert abs(b.x[0] - (0.5 - 0.02 - 0.035)) < 1e-3
    assert b.y[0] > 0.2  # kept moving along the wall


def test_robots_do_not_pass_through_each_other():
    cfg = {"arena": {"size": [1.0, 1.0]},
           "robots": [{"name": "r", "placement": {"kind": "explicit",
                                                  "poses": [[-0.2, 0, 0], [0.2, 0, math.pi]]},
                       "controller": {"python": "tests.core.controllers:Forward"}}]}
    sim = Simulation.from_dict(cfg)
    sim.run(40)
    b = sim.world.bodies
    assert b.x[0] < b.x[1]
    assert b.x[1] - b.x[0] >= 0.07 - 1e-3


def test_runs_never_collide_with_each_other():
    # same poses in two runs: if runs interacted, the robots would overlap at once
    cfg = {"arena": {"size": [1.0, 1.0]},
           "robots": [{"name": "r", "placement": {"kind": "explicit", "poses": [[0, 0, 0]]},
                       "controller": {"python": "tests.core.controllers:Forward"}}]}
    sim = Simulation.from_dict(cfg, runs=3)
    sim.run(10)
    b = sim.world.bodies
    assert np.allclose(b.x, b.x[0]) and b.x[0] > 0.14
