"""The batched PFSM controller in simulations: behaviours, conditions, per-run PFSMs,
determinism, and the experiment file's ``pfsm`` / ``pfsm_file`` keys."""


import numpy as np
import pytest

from swarmstack.design.chocolate import CHOCOLATE_KIT, DRAWS, Inputs, Memory, step
from swarmstack.design import grammar
from swarmstack.design.pfsm import pack
from swarmstack.experiments.config import ConfigError, load_experiment
from swarmstack.sim.simulation import Simulation

STOP = "--nstates 1 --s0 1"
EXPLORE = "--nstates 1 --s0 0 --rwm0 20"
# explore until the floor is black, then stop for good
STOP_ON_BLACK = "--nstates 2 --s0 0 --rwm0 20 --n0 1 --n0x0 0 --c0x0 0 --p0x0 1 --s1 1 --n1 0"


def experiment(pfsm=STOP, count=10, duration=20.0):
    return {
        "simulation": {"ticks_per_second": 10, "duration": duration, "seed": 3},
        "arena": {"size": [1.5, 1.5], "walls": True},
        "floor": {"background": [255, 255, 255], "resolution": 0.01,
                  "regions": [{"color": [0, 0, 0], "circle": [0.0, 0.0, 0.35]}]},
        "robots": [{"name": "s", "count": count, "controller": {"pfsm": pfsm},
                    "sensors": {"proximity": True, "ground": True}, "radio": {"range": 0.5}}],
    }


def poses(sim):
    b = sim.world.bodies
    return np.stack([b.x, b.y, b.yaw], axis=1).copy()


def test_stop_stays_and_exploration_moves():
    sim = Simulation.from_dict(experiment(STOP))
    start = poses(sim)
    sim.run(50)
    assert np.array_equal(poses(sim), start)
    sim = Simulation.from_dict(experiment(EXPLORE))
    sim.run(50)
    moved = np.hypot(*(poses(sim)[:, :2] - start[:, :2]).T)
    assert (moved > 0.01).all() and np.median(moved) > 0.2   # 5 s at 0.12 m/s, with turns


def test_black_floor_condition_stops_robots_on_black_only():
    sim = Simulation.from_dict(experiment(STOP_ON_BLACK, count=12, duration=120))
    sim.run(1200)
    ctrl = sim.group("s").controllers[0]
    stopped = ctrl.memory.state == 1
    assert stopped.sum() >= 6     # most found the black disc in two minutes
    b = sim.world.bodies
    # a stopped robot stopped where its ground sensor saw black (explorers bumping into it
    # may push it a little)
    r = np.hypot(b.x[stopped], b.y[stopped])
    assert (r < 0.35 + 0.05).all()
    assert (np.hypot(b.x[~stopped], b.y[~stopped]) > 0.3).all()


def test_each_run_runs_its_own_pfsm_and_matches_the_run_alone():
    data = experiment(STOP_ON_BLACK)
    runs = [{"s": {"pfsm": STOP}}, {"s": {"pfsm": EXPLORE}}, {"s": {"pfsm": STOP_ON_BLACK}}]
    sim = Simulation.from_dict(data, runs=3, params=runs)
    start = poses(sim)
    sim.run(100)
    end = poses(sim)
    b = sim.world.bodies
    assert np.array_equal(end[b.run == 0], start[b.run == 0])
    assert (np.hypot(*(end[b.run == 1, :2] - start[b.run == 1, :2]).T) > 0.01).all()
    for r in (1, 2):
        alone = Simulation.from_dict(data, seed=3 + r, params=[runs[r]])
        alone.run(100)
        assert np.array_equal(poses(alone), end[b.run == r])


def test_same_seed_same_trajectory():
    a = Simulation.from_dict(experiment(STOP_ON_BLACK))
    b = Simulation.from_dict(experiment(STOP_ON_BLACK))
    a.run(150)
    b.run(150)
    assert np.array_equal(poses(a), poses(b))


def _inputs(n, neighbours, ground=0.5):
    return Inputs(prox=np.zeros((n, 8)), prox_angle=np.linspace(0, 6, 8),
                  light=np.zeros((n, 8)), light_angle=np.linspace(0, 6, 8),
                  ground=np.full(n, ground), neighbours=np.asarray(neighbours),
                  pull=np.zeros((n, 2)))


@pytest.mark.parametrize("cond, eta, xi, expected", [
    (3, 2.0, 3, lambda n: 1 / (1 + np.exp(2.0 * (3 - n)))),
    (4, 2.0, 3, lambda n: 1 - 1 / (1 + np.exp(2.0 * (3 - n)))),
])
def test_neighbour_count_fires_with_the_logistic_probability(cond, eta, xi, expected):
    text = (f"--nstates 2 --s0 1 --n0 1 --n0x0 0 --c0x0 {cond} --p0x0 {xi} --w0x0 {eta} "
            "--s1 1 --n1 0")
    pk = pack([grammar.parse(text, CHOCOLATE_KIT.flavour)], CHOCOLATE_KIT.flavour)
    rng = np.random.default_rng(0)
    n = 40_000
    for count in (1, 3, 5):
        mem = Memory.fresh(n)
        mem.entering[:] = False
        step(CHOCOLATE_KIT, pk, np.zeros(n, np.int64), mem, _inputs(n, np.full(n, count)),
             rng.random((n, DRAWS)))
        rate = (mem.state == 1).mean()
        assert abs(rate - expected(count)) < 0.01


def test_no_condition_is_tested_in_the_cycle_a_state_is_entered():
    text = "--nstates 2 --s0 1 --n0 1 --n0x0 0 --c0x0 5 --p0x0 1 --s1 1 --n1 1 --n1x0 0 " \
           "--c1x0 5 --p1x0 1"
    pk = pack([grammar.parse(text, CHOCOLATE_KIT.flavour)], CHOCOLATE_KIT.flavour)
    mem = Memory.fresh(1)
    states = []
    for _ in range(6):
        step(CHOCOLATE_KIT, pk, np.zeros(1, np.int64), mem, _inputs(1, [0]),
             np.full((1, DRAWS), 0.5))
        states.append(int(mem.state[0]))
    assert states == [0, 1, 1, 0, 0, 1]


def test_pfsm_file_is_read_relative_to_the_experiment(tmp_path):

    (tmp_path / "best.txt").write_text(STOP_ON_BLACK + "\n")
    (tmp_path / "exp.toml").write_text(_toml(pfsm_file="best.txt"))
    cfg = load_experiment(tmp_path / "exp.toml")
    assert cfg.robots[0].controller.params["pfsm"] == STOP_ON_BLACK
    sim = Simulation.from_file(tmp_path / "exp.toml")
    sim.run(5)


def _toml(**controller):
    ctrl = ", ".join(f'{k} = "{v}"' for k, v in controller.items())
    return f"""
[arena]
size = [1.0, 1.0]
[[robots]]
name = "s"
count = 3
controller = {{ {ctrl} }}
sensors = {{ proximity = true, ground = true }}
radio = true
"""


@pytest.mark.parametrize("controller, message", [
    ({"pfsm": "--nstates 1 --s0 9"}, "robots[0].controller.pfsm: token 4 '9': expected a "
                                     "chocolate behaviour id"),
    ({"pfsm_file": "missing.txt"}, "robots[0].controller.pfsm_file: cannot read"),
    ({"pfsm_file": "bad.txt"}, "robots[0].controller.pfsm_file: bad.txt: token 2 '0': "
                               "expected an integer in {1, …, 4}"),
    ({"pfsm": STOP, "python": "x.py:X"}, "exactly one of"),
])
def test_bad_pfsm_is_a_located_config_error(tmp_path, controller, message):
    (tmp_path / "bad.txt").write_text("--nstates 0")
    (tmp_path / "exp.toml").write_text(_toml(**controller))
    with pytest.raises(ConfigError) as info:
        load_experiment(tmp_path / "exp.toml")
    text = str(info.value)
    assert str(tmp_path / "exp.toml") in text
    assert message in text


def test_a_pfsm_group_without_its_sensors_or_radio_is_told_what_to_add(tmp_path):
    text = _toml(pfsm=STOP).replace("sensors = { proximity = true, ground = true }",
                                   "sensors = { proximity = true }").replace("radio = true", "")
    (tmp_path / "exp.toml").write_text(text)
    with pytest.raises(ConfigError) as info:
        load_experiment(tmp_path / "exp.toml")
    assert "robots[0].sensors: a PFSM controller reads ground: add ground = true" in \
        str(info.value)
    assert "robots[0].radio: a PFSM controller counts neighbours" in str(info.value)
