"""Each run of a batch equals the same seed simulated alone, bit for bit, whatever its companions
do: a companion that needs many sub-steps (a drone at 5–10 m/s) never changes how the drones
of another run are integrated, how their contacts are resolved or how their collisions are
counted."""

import functools
import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.sim.simulation import Simulation

TICKS = 40
SEED = 7


SUBJECT = {"at": 10, "goal": (2.5, 0.3, 1.0)}  # 2.5–4.5 m away: up to 6 m/s, contacts at the goal


def _config(pucks: bool) -> dict:
    groups = [{"name": "cf", "type": "crazyflie", "count": 3,
               "placement": {"kind": "uniform", "min": [-2.0, -1.0], "max": [-1.0, 1.0]},
               "controller": {"python": "tests.crazyflie.controllers:Fly"}}]
    if pucks:  # a second group (a diff drive under the drones): the general physics path
        groups.append({"name": "pucks", "type": "epuck2", "count": 4,
                       "controller": {"python": "tests.core.controllers:RandomWheels"}})
    return {"simulation": {"ticks_per_second": 10}, "arena": {"size": [8.0, 8.0]},
            "robots": groups}


def _trace(sim, run: int) -> dict:
    """Every pose of the bodies of ``run`` at every tick, its collisions and drive counters."""
    rows = sim.world.bodies.run == run
    poses = []
    for _ in range(TICKS):
        sim.step()
        poses.append(sim.world.bodies.pose[:, rows].copy())
    counters = {g: {k: v[run] for k, v in c.items()} for g, c in sim.drive_counters().items()}
    return {"pose": np.array(poses), "collisions": sim.collisions()[run], "counters": counters}


@functools.lru_cache(maxsize=None)
def _alone(seed: int, pucks: bool) -> dict:
    sim = Simulation.from_dict(_config(pucks), seed=seed, params=[{"cf": SUBJECT}])
    return _trace(sim, 0)


def _assert_same(batch: dict, alone: dict) -> None:
    assert np.array_equal(batch["pose"], alone["pose"]), \
        f"largest difference {np.abs(batch['pose'] - alone['pose']).max():.3g} m"
    assert batch["collisions"] == alone["collisions"]
    assert batch["counters"] == alone["counters"]


companion = st.one_of(
    st.fixed_dictionaries({"at": st.integers(1, 30),
                           "velocity": st.tuples(st.floats(-10.0, 10.0), st.floats(-10.0, 10.0),
                                                 st.floats(-1.0, 1.0))}),
    st.fixed_dictionaries({"at": st.integers(1, 30),
                           "goal": st.tuples(st.floats(-3.9, 3.9), st.floats(-3.9, 3.9),
                                             st.floats(0.0, 3.0)),
                           "spread": st.sampled_from([0.0, 0.2])}))


@settings(max_examples=25, deadline=None)
@given(companions=st.lists(companion, min_size=1, max_size=2), data=st.data(),
       pucks=st.booleans())
def test_a_run_of_a_batch_equals_its_seed_alone_whatever_its_companions_do(companions, data,
                                                                           pucks):
    k = data.draw(st.integers(0, len(companions)), label="place of the run in the batch")
    params = [{"cf": c} for c in companions]
    params.insert(k, {"cf": SUBJECT})
    sim = Simulation.from_dict(_config(pucks), seed=SEED - k, runs=len(params), params=params)
    _assert_same(_trace(sim, k), _alone(SEED, pucks))


def test_a_companion_at_5_m_s_leaves_run_0_as_alone():
    fast = {"at": 5, "velocity": (5.0, 0.0, 0.0)}
    sim = Simulation.from_dict(_config(False), seed=SEED, runs=2,
                               params=[{"cf": SUBJECT}, {"cf": fast}])
    _assert_same(_trace(sim, 0), _alone(SEED, False))


CF_TOML = """\
[simulation]
ticks_per_second = 10
duration = "6 s"
seed = 4

[arena]
size = [8.0, 8.0]
walls = true

[[robots]]
name = "cf"
type = "crazyflie"
count = 4
placement = { kind = "uniform", min = [-3.5, -3.5], max = [3.5, 3.5] }

[robots.controller]
python = "tests.crazyflie.controllers:Fly"
params = { at = 5, goal = [3.0, 0.0, 1.2] }
"""


def test_swarmstack_run_with_runs_2_gives_run_0_of_the_same_seed_alone(tmp_path):
    # the drones of each run leave from random places for one goal: runs need different
    # sub-steps (the farther, the faster), and meet there
    from typer.testing import CliRunner

    from swarmstack.cli import app
    from swarmstack.experiments.results_writer import read_table

    (tmp_path / "cf.toml").write_text(CF_TOML)
    rows = {}
    for runs in (1, 2):
        out = tmp_path / f"out{runs}"
        res = CliRunner().invoke(app, ["run", str(tmp_path / "cf.toml"), "--out", str(out),
                                       "--runs", str(runs), "--quiet"])
        assert res.exit_code == 0, res.output
        table = read_table(out / "trajectories")
        rows[runs] = {k: table[k][table["run"] == 0] for k in ("tick", "robot", "x", "y", "z",
                                                                "yaw")}
        summary = json.loads((out / "summary.json").read_text())
        rows[runs]["collisions"] = summary["collisions_per_run"][0]
    assert len(rows[1]["tick"]) == 4 * 61
    for k in rows[1]:
        assert np.array_equal(rows[2][k], rows[1][k]), k
