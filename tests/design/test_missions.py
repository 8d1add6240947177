"""Mission objectives score what happened in each run of a batch."""

import copy
import tomllib

import numpy as np
import pytest

from swarmstack.design.missions import EXAMPLES, run_scores
from swarmstack.experiments.config import parse_experiment
from swarmstack.sim.simulation import Simulation

STOP = "--nstates 1 --s0 1"


def mission(name, poses=None, pfsm=STOP, **sim):
    data = tomllib.loads((EXAMPLES / f"{name}.toml").read_text())
    data["simulation"].update(sim)
    group = data["robots"][0]
    group["controller"] = {"pfsm": pfsm}
    if poses is not None:
        group.pop("count")
        group["placement"] = {"kind": "explicit", "poses": poses}
    return Simulation(parse_experiment(data), base_dir=EXAMPLES)


def test_aggregation_is_the_fraction_of_robot_time_on_black():
    # black disc at (-0.45, 0) r 0.3; two of four robots on it, all stopped
    sim = mission("aggregation", [[-0.45, 0.0, 0], [-0.4, 0.1, 0], [0.45, 0.0, 0], [0, 0.8, 0]],
                  duration=5)
    assert run_scores(sim, "aggregation", "swarm") == pytest.approx([0.5])


def test_shelter_counts_robots_inside_the_white_shelter():
    sim = mission("shelter", [[0.0, 0.2, 0], [0.6, -0.6, 0]], duration=5)
    assert run_scores(sim, "shelter", "swarm") == pytest.approx([0.5])


def test_foraging_counts_an_item_carried_from_a_source_to_the_nest():
    # on a source, facing the nest (+y) with the light above the nest: phototaxis delivers
    poses = [[-0.5, -0.4, np.pi / 2]]
    sim = mission("foraging", poses, pfsm="--nstates 1 --s0 2", duration=20)
    assert run_scores(sim, "foraging", "swarm") == pytest.approx([1.0])
    sim = mission("foraging", poses, pfsm=STOP, duration=20)
    assert run_scores(sim, "foraging", "swarm") == pytest.approx([0.0])


def test_coverage_prefers_spread_robots_and_ignores_forbidden_ones():
    spread = [[x, y, 0] for x in (-0.7, 0.0, 0.7) for y in (-0.8, 0.0, 0.8)]
    clustered = [[-0.8 + 0.08 * i, -0.85, 0] for i in range(9)]
    s_spread = run_scores(mission("coverage", spread, duration=1), "coverage", "swarm")
    s_clust = run_scores(mission("coverage", clustered, duration=1), "coverage", "swarm")
    assert s_spread[0] > s_clust[0]
    # moving one robot from allowed floor into a forbidden (black) area makes it worse
    moved = copy.deepcopy(spread)
    moved[4] = [0.0, -0.5, 0]     # centre of the black disc at (0, -0.5)
    s_moved = run_scores(mission("coverage", moved, duration=1), "coverage", "swarm")
    assert s_moved[0] < s_spread[0]
