"""Same seed and config → identical results; a batch of runs equals the runs simulated alone."""

import numpy as np

from swarmstack.experiments.config import parse_experiment
from swarmstack.experiments.results_writer import read_table
from swarmstack.experiments.runner import run_experiment

CFG = {
    "simulation": {"ticks": 150},
    "arena": {"size": [1.2, 1.2], "walls": True},
    "cylinders": [{"center": [0.2, 0.2], "radius": 0.08}],
    "lights": [{"position": [0, 0, 0.1], "intensity": 2.0}],
    "robots": [
        {"name": "a", "count": 12,
         "sensors": {"proximity": {"noise": "uniform", "level": 0.05}, "light": True,
                     "encoders": True, "battery": {"model": "linear"}},
         "controller": {"python": "examples/controllers/diffusion.py:Diffusion"}},
        {"name": "b", "count": 6, "sensors": {"proximity": True},
         "controller": {"python": "examples/controllers/diffusion.py:DiffusionBatched"}},
    ],
    "output": {"sensors": ["proximity", "light", "encoders", "battery"], "chunk_ticks": 40},
}


def _run(tmp_path, name, seed, runs):
    cfg = parse_experiment(CFG)
    out = tmp_path / name
    run_experiment(cfg, out, seed=seed, runs=runs, base_dir=__import__("pathlib").Path("."))
    return read_table(out / "trajectories"), read_table(out / "sensors" / "a")


def test_same_seed_identical(tmp_path):
    t1, s1 = _run(tmp_path, "one", 7, 1)
    t2, s2 = _run(tmp_path, "two", 7, 1)
    for k in t1:
        assert np.array_equal(t1[k], t2[k]), k
    for k in s1:
        assert np.array_equal(s1[k], s2[k]), k
    t3, _ = _run(tmp_path, "three", 8, 1)
    assert not np.array_equal(t1["x"], t3["x"])


def test_batch_equals_single(tmp_path):
    tb, sb = _run(tmp_path, "batch", 11, 3)
    for r in range(3):
        ts, ss = _run(tmp_path, f"single{r}", 11 + r, 1)
        mask = tb["run"] == r
        for k in ("tick", "robot"):
            assert np.array_equal(tb[k][mask], ts[k])
        for k in ("x", "y", "yaw"):
            assert np.max(np.abs(tb[k][mask] - ts[k])) <= 1e-9, k
        smask = sb["run"] == r
        for k in ss:
            if k != "run":
                assert np.array_equal(sb[k][smask], ss[k]), k
