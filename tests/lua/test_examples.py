"""The Lua examples run from the command line, and each does what it says."""

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.sim.simulation import Simulation

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "lua"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.toml")), ids=lambda p: p.stem)
def test_example_runs_from_the_cli(path, tmp_path):
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(tmp_path), "--ticks", "30",
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "summary.json").is_file()
    assert "failed" not in result.output
    assert "clamped" not in result.output      # the examples ask for speeds the robot has


def test_every_lua_example_has_an_experiment():
    assert {p.stem for p in EXAMPLES.glob("*.lua")} == {p.stem for p in EXAMPLES.glob("*.toml")}


def _sim(name, **kw):
    return Simulation.from_file(EXAMPLES / f"{name}.toml", **kw)


def test_obstacle_avoidance_keeps_moving_and_hits_less_than_driving_straight(tmp_path):
    sim = _sim("obstacle_avoidance")
    b = sim.world.bodies
    start = np.column_stack([b.x, b.y]).copy()
    sim.run(600)
    assert sim.robot_failures() == []
    assert np.median(np.hypot(b.x - start[:, 0], b.y - start[:, 1])) > 0.3
    avoiding = sum(sim.collisions())
    # the same robots with a script that ignores its sensors
    script = tmp_path / "straight.lua"
    script.write_text("function step() robot.wheels.set_velocity(10, 10) end\n")
    text = (EXAMPLES / "obstacle_avoidance.toml").read_text()
    exp = tmp_path / "straight.toml"
    exp.write_text(text.replace('lua = "obstacle_avoidance.lua"', f'lua = "{script.name}"'))
    blind = Simulation.from_file(exp)
    blind.run(600)
    assert avoiding < 0.5 * sum(blind.collisions())


def test_phototaxis_brings_robots_to_the_light():
    sim = _sim("phototaxis")
    b = sim.world.bodies
    before = np.hypot(b.x, b.y).mean()
    sim.run(1800)
    after = np.hypot(b.x, b.y)
    assert after.mean() < 0.6 * before
    assert np.sum(after < 0.25) >= 6
    # the ones that arrived say so with their LEDs
    yellow = np.all(sim.commands("seekers")["leds"][:, 0] == [255, 255, 0], axis=1)
    assert 6 <= yellow.sum() <= np.sum(after < 0.3)


def test_fireflies_end_up_flashing_together():
    sim = _sim("synchronisation")
    ctrl = sim.groups[0].controllers[0]
    sim.step()
    phases = {ctrl.get_global(k, "counter") for k in range(15)}
    assert len(phases) > 3                     # they start out of step
    sim.run(300)                               # ten periods
    assert len({ctrl.get_global(k, "counter") for k in range(15)}) == 1
    # and the flash is one tick where every LED is lit
    lit = []
    for _ in range(30):
        sim.step()
        lit.append(int(np.count_nonzero(sim.commands("fireflies")["leds"][:, 0, 0])))
    assert sorted(set(lit)) == [0, 15]


def test_odometry_from_the_wheels_follows_the_robots():
    sim = _sim("odometry")
    b = sim.world.bodies
    start = np.column_stack([b.x, b.y]).copy()
    sim.run(600)
    assert sim.robot_failures() == []
    assert np.all(np.hypot(b.x - start[:, 0], b.y - start[:, 1]) > 0.05)   # they went round
    ctrl = sim.groups[0].controllers[0]
    assert all(ctrl.get_global(k, "error_cm") < 0.1 for k in range(4))
    assert np.all(sim.commands("walkers")["leds"][:, 0] == [0, 255, 0])


def test_plugin_api_example_turns_away_and_shows_it_with_the_plugins_leds():
    sim = _sim("epuck2_plugin_api")
    ctrl = sim.groups[0].controllers[0]
    turned = set()
    for _ in range(400):
        sim.step()
        leds = sim.commands("ep")["leds"]
        for k in range(6):
            turning = ctrl.get_global(k, "turning")
            if turning:
                turned.add(k)
            assert leds[k, 8].tolist() == ([255, 0, 0] if turning else [0, 0, 0])   # front
            assert leds[k, 9].tolist() == ([0, 0, 0] if turning else [0, 255, 0])   # body
    assert sim.robot_failures() == []
    assert len(turned) >= 3
    assert any(text.startswith("ToF ") and " mm " in text for *_, text in sim.logs)
