"""Collisions per run: counted when the contacts push a robot back, one per run of ticks in
contact; in run summaries, study summaries and the catalogue's `runs` view."""

import json

import numpy as np

from swarmstack import BatchedController
from swarmstack.sim.simulation import Simulation


class Forward(BatchedController):
    def init(self, group, params):
        self.speed = float(params.get("speed", 0.1))

    def step(self, group):
        group.wheels[:] = self.speed


def _exp(poses, speed, runs_arena=0.6):
    return {"simulation": {"ticks_per_second": 10, "duration": 4},
            "arena": {"size": [runs_arena, runs_arena]},
            "robots": [{"name": "g", "type": "epuck2", "count": len(poses),
                        "placement": {"kind": "explicit", "poses": poses},
                        "controller": {"python": f"{__name__}:Forward",
                                       "params": {"speed": speed}}}]}


def test_driving_into_a_wall_is_one_collision_however_long_it_pushes():
    sim = Simulation.from_dict(_exp([[0.0, 0.0, 0.0]], 0.1), seed=1)
    sim.run(40)   # 0.25 m to the wall at 10 cm/s: contact after ~2.5 s, then pushing on
    assert sim.collisions() == [1]


def test_no_contact_no_collision():
    sim = Simulation.from_dict(_exp([[0.0, 0.0, 0.0]], 0.0), seed=1)
    sim.run(40)
    assert sim.collisions() == [0]


def test_two_robots_driving_into_each_other_collide_once_each():
    sim = Simulation.from_dict(_exp([[-0.1, 0.0, 0.0], [0.1, 0.0, np.pi]], 0.05, 2.0), seed=1)
    sim.run(30)
    assert sim.collisions() == [2]


def test_batched_runs_count_like_runs_alone_and_reset_clears():
    alone = []
    for seed in (5, 6, 7):
        d = _exp([[0.0, 0.0, 0.0]], 0.1)
        d["robots"][0].pop("placement")
        d["robots"][0]["count"] = 6
        sim = Simulation.from_dict(d, seed=seed)
        sim.run(40)
        alone.append(sim.collisions()[0])
    d = _exp([[0.0, 0.0, 0.0]], 0.1)
    d["robots"][0].pop("placement")
    d["robots"][0]["count"] = 6
    batch = Simulation.from_dict(d, seed=5, runs=3)
    batch.run(40)
    assert batch.collisions() == alone and sum(alone) > 0
    batch.reset()
    assert batch.collisions() == [0, 0, 0]
    batch.run(40)
    assert batch.collisions() == alone


def test_run_summary_has_collisions(tmp_path):
    from swarmstack.experiments.config import parse_experiment
    from swarmstack.experiments.runner import run_experiment

    cfg = parse_experiment(_exp([[0.0, 0.0, 0.0]], 0.1))
    summary = run_experiment(cfg, tmp_path / "out", runs=2)
    on_disk = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["collisions_per_run"] == on_disk["collisions_per_run"] == [1, 1]
    assert on_disk["collisions"] == 2
