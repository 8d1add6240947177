"""What makes a design batch fast changes none of its numbers: PFSM groups hear their
neighbours as sums straight from the bodies (not through the full inbox), and objectives count
robots on a zone through a mask of the floor's texels — both give bit-identical runs."""

from __future__ import annotations

import numpy as np
import pytest

from swarmstack.design.chocolate import CHOCOLATE
from swarmstack.design.irace import sample_uniform
from swarmstack.design.missions import EXAMPLES, OBJECTIVES, grey_at, rgb_at, run_scores
from swarmstack.design.space import pfsm_space, to_text
from swarmstack.design.watermelon import COLOURS, colour_index
from swarmstack.sim.simulation import Simulation
from swarmstack.media import Inbox, SummedInbox

# attraction and repulsion follow the summed vector; neighbour counts guard the transitions
SOCIAL = ("--nstates 3 --s0 4 --att0 4.5 --n0 2 --n0x0 0 --c0x0 3 --p0x0 3 --w0x0 9 "
          "--n0x1 1 --c0x1 5 --p0x1 0.05 --s1 5 --rep1 2 --n1 1 --n1x0 0 --c1x0 4 --p1x0 2 "
          "--w1x0 5 --s2 0 --rwm2 30 --n2 1 --n2x0 0 --c2x0 5 --p2x0 0.1")


def _run(texts, keep_inbox: bool, ticks: int = 120):
    sim = Simulation.from_file(EXAMPLES / "aggregation.toml", runs=len(texts))
    sim.seed_runs(list(range(11, 11 + len(texts))))
    base = dict(sim.cfg.robots[0].controller.params)
    sim.reset(params=[{"swarm": {**base, "pfsm": t}} for t in texts])
    sim.medium.keep_inbox = keep_inbox
    scores = run_scores(sim, "aggregation", "swarm", ticks)
    return scores, sim.world.bodies.pose.copy(), sim.medium


def test_a_pfsm_batch_runs_bit_identically_with_summed_or_listed_neighbours():
    rng = np.random.default_rng(7)
    space = pfsm_space(CHOCOLATE)
    texts = [SOCIAL] + [to_text(sample_uniform(space, rng), CHOCOLATE) for _ in range(3)]
    fast, pose_fast, m_fast = _run(texts, keep_inbox=False)
    full, pose_full, m_full = _run(texts, keep_inbox=True)
    assert isinstance(m_fast.inbox, SummedInbox) and isinstance(m_full.inbox, Inbox)
    assert np.array_equal(pose_fast, pose_full)
    assert np.array_equal(fast, full)
    assert np.array_equal(m_fast.stats.delivered, m_full.stats.delivered)
    assert m_fast.stats.delivered.min() > 0


@pytest.mark.parametrize("mission,objective", [("aggregation", "aggregation"),
                                               ("shelter", "shelter"),
                                               ("rvr_mission", "rvr_mission")])
def test_zone_objectives_count_what_the_floor_shows_at_each_robot(mission, objective):
    sim = Simulation.from_file(EXAMPLES / f"{mission}.toml", runs=2)
    group = sim.cfg.robots[0].name
    obj = OBJECTIVES[objective](sim, group)
    b = sim.world.bodies
    rng = np.random.default_rng(3)
    x0, y0, x1, y1 = sim.world.scene.arena.bounds
    want = np.zeros(sim.runs)
    for _ in range(40):   # robots anywhere, on zone edges and outside the floor too
        b.x[obj.rows] = rng.uniform(x0 - 0.1, x1 + 0.1, obj.run.shape[0])
        b.y[obj.rows] = rng.uniform(y0 - 0.1, y1 + 0.1, obj.run.shape[0])
        x, y = obj.positions()
        if objective == "aggregation":
            on = grey_at(sim, x, y) <= 0.1
        elif objective == "shelter":
            on = grey_at(sim, x, y) >= 0.95
        else:
            on = colour_index(rgb_at(sim, x, y)) == COLOURS.index("red")
        want += np.bincount(obj.run[on], minlength=sim.runs)
        obj.observe()
    assert want.sum() > 0
    assert np.array_equal(obj.total, want)
