"""Controllers written by someone new to swarmstack (or coming from ARGoS) get guided: a typo
names the closest attribute and lists what the view has, a sensor that is off says how to turn
it on, wheel speeds above the maximum are clamped, counted and warned about, and parameters
take units like the rest of the experiment file."""

import json
import textwrap

import pytest
from typer.testing import CliRunner

from swarmstack import Simulation
from swarmstack.cli import app
from swarmstack.experiments.config import ConfigError, parse_experiment

runner = CliRunner()

EXP = """
[simulation]
ticks = 20

[arena]
size = [1.0, 1.0]

[[robots]]
name = "e"
count = 3
controller = {{ python = "ctl.py:{cls}", params = {params} }}
sensors = {{ proximity = true }}
"""

CONTROLLERS = textwrap.dedent("""
    from swarmstack import BatchedController, Controller

    class Typo(Controller):
        def step(self, robot):
            robot.set_wheel(0.1, 0.1)

    class SensorOff(Controller):
        def step(self, robot):
            robot.tof_mm

    class GroupTypo(BatchedController):
        def step(self, group):
            group.wheel[:] = 0.1

    class CentimetresPerSecond(Controller):
        def step(self, robot):
            robot.set_wheels(10.0, 10.0)      # an ARGoS habit: cm/s

    class Params(Controller):
        def init(self, robot, params):
            self.params = params

        def step(self, robot):
            robot.set_wheels(self.params["speed"], self.params["speed"])
""")


def _run(tmp_path, cls, params="{}", out="out"):
    (tmp_path / "ctl.py").write_text(CONTROLLERS)
    path = tmp_path / "exp.toml"
    path.write_text(EXP.format(cls=cls, params=params))
    out = tmp_path / out
    return runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"]), out


def test_a_typo_names_the_closest_method_and_lists_readings_and_commands(tmp_path):
    result, _ = _run(tmp_path, "Typo")
    assert result.exit_code == 1
    assert ("robot 0 of group 'e' has no attribute 'set_wheel'; did you mean set_wheels? "
            "readings: proximity; commands: set_wheels, set_led, set_leds, goto") in result.output


def test_a_sensor_that_is_off_says_how_to_turn_it_on(tmp_path):
    result, _ = _run(tmp_path, "SensorOff")
    assert result.exit_code == 1
    assert "robot 0 of group 'e' has no reading 'tof_mm': its sensor is off; turn it on under " \
           "the group's sensors in the experiment file (sensors = { tof = true })" \
           in result.output


def test_a_typo_in_a_batched_controller(tmp_path):
    result, _ = _run(tmp_path, "GroupTypo")
    assert result.exit_code == 1
    assert "group 'e' has no attribute 'wheel'; did you mean wheels?" in result.output
    assert "commands: wheels, leds" in result.output


def test_speeds_above_the_maximum_are_clamped_counted_and_warned_once(tmp_path):
    result, out = _run(tmp_path, "CentimetresPerSecond")
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["drive_counters"]["e"]["wheels_clamped"] == [3 * 20]
    assert result.output.count("warning: group 'e': wheel speeds above the robot's maximum "
                               "were clamped in 60 robot-ticks") == 1
    assert "ARGoS controllers write cm/s" in result.output
    # within the maximum: counted as zero, no warning
    result, out = _run(tmp_path, "Params", '{ speed = 0.1 }', out="out2")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["drive_counters"]["e"]["wheels_clamped"] == [0]
    assert "clamped" not in result.output


def test_clamped_wheels_do_not_move_faster_than_the_maximum(tmp_path):
    (tmp_path / "ctl.py").write_text(CONTROLLERS)
    (tmp_path / "exp.toml").write_text(EXP.format(cls="CentimetresPerSecond", params="{}"))
    sim = Simulation.from_file(tmp_path / "exp.toml")
    b = sim.world.bodies
    x0, y0 = b.x.copy(), b.y.copy()
    sim.run(10)
    travelled = ((b.x - x0) ** 2 + (b.y - y0) ** 2) ** 0.5
    assert travelled.max() > 0.9 * 0.154 * 10 * sim.world.dt
    assert (travelled <= 0.154 * 10 * sim.world.dt + 1e-9).all()


@pytest.mark.parametrize("params, speed", [
    ('{ speed = "10 cm/s" }', 0.1), ('{ speed = "100 mm/s" }', 0.1), ("{ speed = 0.1 }", 0.1)])
def test_params_take_units(tmp_path, params, speed):
    (tmp_path / "ctl.py").write_text(CONTROLLERS)
    (tmp_path / "exp.toml").write_text(EXP.format(cls="Params", params=params))
    sim = Simulation.from_file(tmp_path / "exp.toml")
    sim.run(2)
    assert sim.groups[0].params[0]["speed"] == pytest.approx(speed, rel=1e-12)


def test_param_units_everywhere_in_a_table_and_strings_stay_strings():
    cfg = parse_experiment({"arena": {"size": [1, 1]}, "robots": [{
        "name": "e", "count": 1, "controller": {"python": "m:C", "params": {
            "turn": "90 deg", "wait": "2 min", "gains": ["1 cm", 2], "side": "left",
            "nested": {"d": "5 mm"}}}}]})
    p = cfg.robots[0].controller.params
    assert p["turn"] == pytest.approx(1.5707963267948966)
    assert p["wait"] == 120.0 and p["gains"] == [0.01, 2] and p["side"] == "left"
    assert p["nested"]["d"] == pytest.approx(0.005)


def test_buzz_params_are_in_the_scripts_distance_unit(tmp_path):
    def params(unit=None):
        ctl = {"buzz": "x.bzz", "params": {"D": "30 cm", "V": "5 cm/s", "A": "180 deg"}}
        if unit:
            ctl["distance_unit"] = unit
        return parse_experiment({"arena": {"size": [1, 1]},
                                 "robots": [{"name": "e", "count": 1, "controller": ctl}]}
                                ).robots[0].controller.params

    assert params() == pytest.approx({"D": 30.0, "V": 5.0, "A": 3.141592653589793})
    assert params("m") == pytest.approx({"D": 0.3, "V": 0.05, "A": 3.141592653589793})
    assert params("mm")["D"] == pytest.approx(300.0)


def test_a_quantity_out_of_bounds_in_params_is_a_config_error():
    with pytest.raises(ConfigError) as err:
        parse_experiment({"arena": {"size": [1, 1]}, "robots": [{
            "name": "e", "count": 1,
            "controller": {"python": "m:C", "params": {"d": "1e300 km"}}}]})
    assert "robots[0].controller" in err.value.problems[0]
