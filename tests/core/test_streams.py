"""Random streams are keyed by name: the names of the frozen table keep their word of each
robot's state, any other name gets a key of its own from a stable hash of the name, and a run
has the same keys in a batch as alone."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
from hypothesis import given, settings, strategies as st

from swarmstack.sim.simulation import Simulation
from swarmstack.world import rng

CFG = {"arena": {"size": [1.0, 1.0]}, "robots": [{"name": "a", "count": 3},
                                                  {"name": "b", "count": 2}]}


def test_the_frozen_names_take_their_word_of_each_robots_state():
    for seed, run, n in ((0, 0, 1), (7, 3, 5)):
        words = np.array([r.generate_state(11, np.uint64)
                          for r in rng.robot_seeds(seed, run, n)])
        for name, word in rng.FIXED_WORDS.items():
            assert np.array_equal(rng.stream_keys(seed, run, n, name), words[:, word]), name


@settings(max_examples=30, deadline=None)
@given(st.text(min_size=1, max_size=24).filter(lambda s: s not in rng.FIXED_WORDS))
def test_any_other_name_has_keys_of_its_own(name):
    keys = rng.stream_keys(3, 1, 4, name)
    fixed = np.concatenate([rng.stream_keys(3, 1, 4, f) for f in rng.FIXED_WORDS])
    assert keys.dtype == np.uint64 and len(set(keys.tolist())) == 4
    assert not np.isin(keys, fixed).any()
    assert not np.array_equal(keys, rng.stream_keys(3, 1, 4, name + "_"))


def test_a_names_keys_are_the_same_in_every_process():
    code = ("from swarmstack.world import rng; "
            "print(rng.stream_keys(5, 2, 3, 'gyroscope').tolist())")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": s}).stdout
            for s in ("1", "2")}
    assert len(outs) == 1


def test_a_tuple_of_names_gives_one_column_per_name():
    s = rng.Streams(rng.robot_seeds(4, 0, 3))
    both = s.keys(("light", "velocity"))
    assert both.shape == (3, 2)
    assert np.array_equal(both[:, 0], s.keys("light"))
    assert np.array_equal(both[:, 1], s.keys("velocity"))


def test_a_run_has_the_same_keys_in_a_batch_as_alone_and_after_seed_runs():
    names = ("controller", "radio", "wheels", "gyroscope")
    batch = Simulation.from_dict(CFG, seed=10, runs=3)
    alone = [Simulation.from_dict(CFG, seed=10 + k) for k in range(3)]
    for g in batch.groups:
        n = g.slice.per_run
        for name in names:
            keys = g.streams.keys(name)
            for k, sim in enumerate(alone):
                assert np.array_equal(keys[k * n:(k + 1) * n], sim.group(g.name).streams.keys(name))
    batch.seed_runs([12, 10, 11])
    batch.reset()
    for g in batch.groups:
        n = g.slice.per_run
        for k, sim in enumerate((alone[2], alone[0], alone[1])):
            for name in names:
                assert np.array_equal(g.streams.keys(name)[k * n:(k + 1) * n],
                                      sim.group(g.name).streams.keys(name))
