"""The radio examples do what they say (each also runs from the CLI in tests/core/test_examples)."""

from pathlib import Path

import numpy as np

from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]


def _sim(name, **kw):
    return Simulation.from_file(ROOT / "examples" / name, **kw)


def _distances(b):
    p = np.column_stack([b.x, b.y])
    d = np.hypot(p[:, None, 0] - p[None, :, 0], p[:, None, 1] - p[None, :, 1])
    np.fill_diagonal(d, np.inf)
    return d


def test_buzz_flocking_forms_a_regular_lattice():
    sim = _sim("epuck2_buzz_flocking.toml")
    b = sim.world.bodies
    before = _distances(b).min(axis=1)
    sim.run(600)
    after = _distances(b).min(axis=1)
    assert not sim.robot_failures()
    # random spacing becomes a lattice near the script's preferred distance (30 cm, pulled in
    # a little by the neighbours' sum): the spread of nearest-neighbour distances collapses
    assert after.std() < 0.25 * before.std()
    assert 0.18 < np.median(after) < 0.32


def _segment_hits_box(p, q, box_center, box_size):
    """Whether segment p→q crosses an axis-aligned rectangle (slab test)."""
    lo = np.array(box_center) - np.array(box_size) / 2
    hi = np.array(box_center) + np.array(box_size) / 2
    d = q - p
    t0, t1 = 0.0, 1.0
    for a in range(2):
        if abs(d[a]) < 1e-12:
            if not lo[a] <= p[a] <= hi[a]:
                return False
            continue
        ta, tb = sorted(((lo[a] - p[a]) / d[a], (hi[a] - p[a]) / d[a]))
        t0, t1 = max(t0, ta), min(t1, tb)
    return t0 <= t1


def test_buzz_gradient_matches_hop_distances_on_the_radio_graph():
    sim = _sim("epuck2_buzz_gradient.toml")
    sim.run(60)
    ctrl = sim.buzz("gradient")
    hops = [ctrl.get_global(k, "hops") for k in range(50)]
    # the expected graph, from the positions alone: within 0.6 m and not through the box
    b = sim.world.bodies
    pts = np.column_stack([b.x, b.y])
    d = _distances(b)
    link = (d <= 0.6) & ~np.array([[_segment_hits_box(pts[i], pts[j], (0, 0), (0.6, 0.1))
                                    for j in range(50)] for i in range(50)])
    expected = [1000] * 50
    expected[0] = 0
    frontier = [0]
    while frontier:
        nxt = []
        for i in frontier:
            for j in np.flatnonzero(link[i]):
                if expected[j] == 1000:
                    expected[j] = expected[i] + 1
                    nxt.append(j)
        frontier = nxt
    assert hops == expected
    assert max(h for h in hops if h < 1000) >= 4      # a real gradient, several hops deep


def test_python_aggregation_gathers_robots():
    sim = _sim("epuck2_rab_aggregation.toml")
    b = sim.world.bodies
    before = (_distances(b) < 0.2).sum(axis=1).mean()
    sim.run(600)
    after = (_distances(b) < 0.2).sum(axis=1).mean()
    assert after > 3 * before and after > 1.5


def test_mixed_swarm_followers_reach_the_buzz_beacons():
    sim = _sim("mixed_swarm.toml")
    sim.run(600)
    b = sim.world.bodies
    beacons = np.column_stack([b.x[:3], b.y[:3]])
    followers = np.column_stack([b.x[3:], b.y[3:]])
    gap = np.hypot(followers[:, None, 0] - beacons[None, :, 0],
                   followers[:, None, 1] - beacons[None, :, 1]).min(axis=1)
    assert (gap < 0.35).mean() >= 0.8
    # the beacons' Buzz listeners heard the Python robots' Buzz-format frames
    counts = [sim.buzz("beacons").get_global(k, "followers") for k in range(3)]
    assert sum(counts) >= 15 and min(counts) > 0
    colours = sim.commands("beacons")["leds"][:, 0]
    assert (colours == (0, 0, 255)).all()
