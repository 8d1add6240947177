"""The Crazyflie examples do what they claim."""

from pathlib import Path

import numpy as np
import pytest

from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]


def _sim(name):
    sim = Simulation.from_file(ROOT / "examples" / name)
    sim.start()
    return sim


def test_hover_takes_off_moves_and_lands():
    sim = _sim("crazyflie_hover.toml")
    b = sim.world.bodies
    x0 = b.x.copy()
    sim.run(45)                                   # hovering
    assert np.allclose(b.z, 1.0, atol=5e-3) and np.allclose(b.x, x0, atol=1e-3)
    assert np.all(sim.commands("drones")["leds"][:, 0] == (0, 255, 0))
    sim.run(40)                                   # moved 50 cm forward
    assert np.allclose(b.x, x0 + 0.5, atol=0.02)
    sim.run(115)                                  # back, about to land
    assert np.allclose(b.x, x0, atol=0.02) and np.allclose(b.z, 1.0, atol=5e-3)
    sim.run(100)
    assert np.all(b.z == 0.0) and np.all(sim.world.drive[0]["mode"] == 0)
    assert np.all(sim.readings("drones")["battery"] < 1.0)


def test_formation_is_three_dimensional_and_spaced_then_lands():
    sim = _sim("crazyflie_formation.toml")
    b = sim.world.bodies
    sim.run(400)
    p = np.stack([b.x, b.y, b.z], axis=1)
    d = np.linalg.norm(p[:, None] - p[None], axis=2) + np.eye(len(p)) * 99
    nearest = d.min(axis=1)
    assert np.ptp(b.z) > 0.3                       # two layers: a 3-D formation
    assert nearest.min() > 0.4 and np.median(nearest) == pytest.approx(0.55, abs=0.1)
    sim.run(200)
    assert np.all(b.z == 0.0)                       # landed at tick 500


def test_formation_uses_the_buzz_closures_in_centimetres():
    from swarmstack.robots import base

    lengths = {h.name: h.lengths for h in base.get("crazyflie").host_api}
    assert lengths["set_velocity"] == (0, 1, 2) and lengths["takeoff"] == (0,)
    sim = _sim("crazyflie_formation.toml")
    sim.run(60)
    v = sim.world.drive[0]["velocity_cmd"][:, :3]
    # MAX_SPEED = 25 cm/s reaches the drones as at most 0.25 m/s
    assert np.all(np.linalg.norm(v, axis=1) <= 0.25 + 1e-9)
    assert np.any(np.linalg.norm(v, axis=1) > 0.01)
