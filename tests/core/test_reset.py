"""Simulation.reset() replays the same run: poses, sensor state, random streams, controllers."""

import numpy as np
import pytest

from swarmstack import Simulation


@pytest.mark.parametrize("controller", ["tests.core.controllers:Wanderer",
                                        "tests.core.controllers:RandomWheels"])
def test_reset_replays_the_run(controller):
    cfg = {"arena": {"size": [1.0, 1.0], "walls": True},
           "robots": [{"name": "r", "count": 8, "controller": {"python": controller},
                       "sensors": {"proximity": True, "encoders": True,
                                   "battery": {"model": "cubic"}}}]}
    sim = Simulation.from_dict(cfg, seed=4, runs=2)
    b = sim.world.bodies

    def trace():
        rows = []
        for _ in range(80):
            sim.step()
            r = sim.readings("r")
            rows.append(np.concatenate([b.x, b.y, b.yaw, r["encoders"].ravel(),
                                        r["battery"], r["proximity"].ravel()]))
        return np.array(rows)

    first = trace()
    sim.reset()
    assert sim.world.tick == 0
    assert np.all(sim.readings("r")["encoders"] == 0)
    assert np.all(sim.readings("r")["battery"] == 1.0)
    second = trace()
    assert np.array_equal(first, second)
    if controller.endswith("Wanderer"):
        assert all(c.steps == 80 for c in sim.groups[0].controllers)


def _wanderers(**kw):
    cfg = {"arena": {"size": [1.0, 1.0], "walls": True},
           "robots": [{"name": "r", "count": 6,
                       "controller": {"python": "tests.core.controllers:Wanderer"},
                       "sensors": {"proximity": True, "encoders": True}}]}
    return Simulation.from_dict(cfg, **kw)


def _trace(sim, ticks=60):
    b = sim.world.bodies
    rows = []
    for _ in range(ticks):
        sim.step()
        rows.append(np.concatenate([b.x, b.y, b.yaw, sim.readings("r")["encoders"].ravel()]))
    return np.array(rows)


def test_reset_with_a_seed_starts_new_runs():
    sim = _wanderers(seed=4, runs=2)
    first = _trace(sim)
    b = sim.world.bodies
    sim.reset(seed=9)
    assert sim.world.bodies is b and sim.tick == 0
    again = _trace(sim)
    fresh = _trace(_wanderers(seed=9, runs=2))
    assert np.array_equal(again, fresh)          # exactly as if built with seed 9
    assert not np.array_equal(again, first)      # new placement, new streams
    assert all(c.steps == 60 for c in sim.groups[0].controllers)  # fresh controllers, init ran


def _speed_runs(**kw):
    cfg = {"arena": {"size": [3.0, 3.0]},
           "robots": [{"name": "r", "count": 2, "controller": {
               "python": "tests.core.controllers:ParamSpeed", "params": {"speed": 0.01}}},
                      {"name": "q", "count": 2, "controller": {
                          "python": "tests.core.controllers:ParamSpeedBatched",
                          "params": {"speed": 0.01}}}]}
    return Simulation.from_dict(cfg, **kw)


def test_params_may_differ_by_run():
    per_run = [{"r": {"speed": 0.02}, "q": {"speed": 0.03}},
               {"r": {"speed": 0.05}, "q": {"speed": 0.07}},
               {}]                                       # run 2 keeps the file's
    sim = _speed_runs(seed=3, runs=3, params=per_run)
    b = sim.world.bodies
    x0, y0 = b.x.copy(), b.y.copy()
    sim.run(10)
    moved = np.hypot(b.x - x0, b.y - y0)
    expected = {("r", 0): 0.02, ("r", 1): 0.05, ("r", 2): 0.01,
                ("q", 0): 0.03, ("q", 1): 0.07, ("q", 2): 0.01}
    for g in sim.groups:
        sl = g.slice.slice
        for run in range(3):
            mask = b.run[sl] == run
            assert np.allclose(moved[sl][mask], expected[(g.name, run)] * 1.0), (g.name, run)
    # run 1 of the batch is the same run simulated alone with its parameters
    alone = _speed_runs(seed=4, runs=1, params=[per_run[1]])
    alone.run(10)
    batch_run1 = b.run == 1
    assert np.array_equal(alone.world.bodies.x, b.x[batch_run1])


def test_reset_with_params_reinitialises_controllers():
    sim = _speed_runs(seed=3, runs=2)
    sim.run(5)
    sim.reset(params=[{"r": {"speed": 0.04}}, {"r": {"speed": 0.06}}])
    assert [c.speed for c in sim.groups[0].controllers] == [0.04, 0.04, 0.06, 0.06]
    with pytest.raises(ValueError, match="one entry per run"):
        sim.reset(params=[{}])
