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
