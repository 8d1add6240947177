"""Robot types defined outside swarmstack: named by an experiment file as a module reference
(``"skimmer.robot:SKIMMER"``, found next to the file or on the Python path), as a file
(``"skimmer/robot.py:SKIMMER"``) or as an installed plug-in's entry point (group
``swarmstack.robot_types``); they run, take sensor and actuator options, and are listed and
validated by the command line like the built-in types."""

import shutil
import sys
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from swarmstack import Simulation
from swarmstack.cli import app
from swarmstack.experiments.config import ConfigError, load_experiment, parse_experiment
from swarmstack.robots import base

HERE = Path(__file__).resolve().parent
runner = CliRunner()

EXPERIMENT = """
[simulation]
ticks = 20
ticks_per_second = 10
seed = 3

[arena]
size = [2.0, 2.0]

[[robots]]
name = "s"
type = "{type}"
drive = {{ max_speed = 0.05 }}
placement = {{ kind = "explicit", poses = [[0, 0, 0], [0, 0.5, 1.5707963267948966]] }}
controller = {{ python = "skimmer/controllers.py:Cruise", params = {{ speed = 0.1 }} }}
sensors = {{ positioning = {{ position_noise = 0.0 }} }}

[[robots]]
name = "pucks"
type = "epuck2"
count = 2
sensors = {{ proximity = true }}

[output]
sensors = ["positioning"]
"""


@pytest.fixture
def clean():
    """Forget the types and modules a test loads (the registry and sys.modules are global)."""
    types, modules = set(dict.keys(base.ROBOT_TYPES)), set(sys.modules)
    yield
    for name in set(dict.keys(base.ROBOT_TYPES)) - types - set(base.BUILT_IN):
        dict.__delitem__(base.ROBOT_TYPES, name)
    for name in set(sys.modules) - modules:
        if name == "skimmer" or name.startswith(("skimmer.", "swarmstack_robot_type_")):
            del sys.modules[name]
    base.ROBOT_TYPES.broken.clear()


def _folder(tmp_path, type_):
    """An experiment folder holding the skimmer package and an experiment naming ``type_``."""
    folder = tmp_path / "exp"
    shutil.copytree(HERE / "skimmer", folder / "skimmer",
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "exp.toml"
    path.write_text(EXPERIMENT.format(type=type_))
    return path


def _moved_at_max_speed(sim):
    x0, y0 = sim.world.bodies.x[:2].copy(), sim.world.bodies.y[:2].copy()
    sim.run(10)
    b = sim.world.bodies
    # 0.1 m/s asked, clamped to the group's max_speed 0.05 m/s: 5 cm along each heading in 1 s
    assert b.x[:2] - x0 == pytest.approx([0.05, 0.0], abs=1e-9)
    assert b.y[:2] - y0 == pytest.approx([0.0, 0.05], abs=1e-9)
    # the shared positioning device reads the new type's poses
    pose = sim.groups[0].readings["pose"]
    assert pose[:, 0] == pytest.approx(b.x[:2]) and pose[:, 1] == pytest.approx(b.y[:2])


def test_module_next_to_the_experiment_file_runs(tmp_path, clean):
    path = _folder(tmp_path, "skimmer.robot:SKIMMER")
    sim = Simulation.from_file(path)
    assert sim.groups[0].robot_type.name == "skimmer"
    assert sim.groups[1].robot_type.name == "epuck2"
    _moved_at_max_speed(sim)


def test_file_reference_from_a_dict_with_base_dir(tmp_path, clean):
    import tomllib

    path = _folder(tmp_path, "skimmer/robot.py:SKIMMER")
    sim = Simulation.from_dict(tomllib.loads(path.read_text()), base_dir=path.parent)
    assert sim.groups[0].robot_type.name == "skimmer"
    _moved_at_max_speed(sim)


def test_module_on_the_python_path(clean):
    data = {"simulation": {"ticks": 5}, "arena": {"size": [1, 1]},
            "robots": [{"name": "s", "type": "tests.extension.skimmer.robot:SKIMMER",
                        "count": 3, "sensors": {"positioning": True}}]}
    from tests.extension.skimmer.robot import SKIMMER

    sim = Simulation.from_dict(data)
    assert sim.groups[0].robot_type is SKIMMER
    sim.run(5)


def test_swarmstack_run_and_validate_take_the_file(tmp_path, clean):
    path = _folder(tmp_path, "skimmer.robot:SKIMMER")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    rows = duckdb.sql(f"SELECT count(*), max(tick) FROM "
                      f"read_parquet('{out}/trajectories/*.parquet')").fetchall()[0]
    assert rows == (4 * 21, 20)   # two skimmers and two E-Puck2s, ticks 0 … 20


def _problems(path) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_experiment(path)
    return info.value.problems


def test_errors_name_file_key_and_what_was_expected(tmp_path, clean):
    path = _folder(tmp_path, "skimmer.robot:NOT_A_TYPE")
    [problem] = _problems(path)
    assert problem.startswith(f"{path}: robots[0].type: 'skimmer.robot:NOT_A_TYPE' is not a "
                              "RobotType (it is a dict)")
    assert "(line 12)" in problem

    path.write_text(EXPERIMENT.format(type="nosuchpkg.robots:HOVER"))
    [problem] = _problems(path)
    assert problem.startswith(f"{path}: robots[0].type: cannot import module "
                              "'nosuchpkg.robots': no module named 'nosuchpkg'")
    assert str(path.parent) in problem

    path.write_text(EXPERIMENT.format(type="skimmer.robot:HOVER"))
    assert "'skimmer.robot' has no 'HOVER'" in _problems(path)[0]
    path.write_text(EXPERIMENT.format(type="missing.py:HOVER"))
    assert "robots[0].type: robot type file" in _problems(path)[0]
    assert "does not exist" in _problems(path)[0]

    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1 and "robots[0].type" in result.output


def test_sensor_and_actuator_options_are_checked_against_the_new_type(tmp_path, clean):
    path = _folder(tmp_path, "skimmer.robot:SKIMMER")
    text = path.read_text()
    path.write_text(text.replace("sensors = { positioning = { position_noise = 0.0 } }",
                                 "sensors = { proximity = true, positioning = "
                                 "{ position_noise = -1 } }")
                    .replace("max_speed = 0.05", "max_speed = 0"))
    problems = _problems(path)
    assert any("robots[0].sensors.proximity: skimmer has no proximity; it has positioning"
               in p for p in problems), problems
    assert any("robots[0].sensors.positioning.position_noise:" in p for p in problems)
    assert any("robots[0].drive.max_speed:" in p for p in problems)


def _plugin(tmp_path, monkeypatch, value="skimmer.robot:SKIMMER"):
    """An installed distribution declaring ``skimmer = VALUE`` in swarmstack.robot_types."""
    site = tmp_path / "site"
    shutil.copytree(HERE / "skimmer", site / "skimmer",
                    ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "skimmer_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: skimmer-plugin\n"
                                   "Version: 1.0\n")
    (info / "entry_points.txt").write_text(f"[swarmstack.robot_types]\nskimmer = {value}\n")
    monkeypatch.syspath_prepend(str(site))


def test_installed_plugin_is_a_type_by_name(tmp_path, monkeypatch, clean):
    _plugin(tmp_path, monkeypatch)
    data = {"simulation": {"ticks": 5}, "arena": {"size": [1, 1]},
            "robots": [{"name": "s", "type": "skimmer", "count": 2,
                        "drive": {"max_speed": 0.1}, "sensors": {"positioning": True}}]}
    cfg = parse_experiment(data)
    assert cfg.robots[0].actuators["drive"].max_speed == 0.1
    sim = Simulation(cfg)
    assert sim.groups[0].robot_type.name == "skimmer"
    sim.run(5)
    listed = runner.invoke(app, ["robot"])
    assert listed.exit_code == 0 and "skimmer" in listed.output.split()
    page = runner.invoke(app, ["robot", "skimmer"])
    assert page.exit_code == 0 and "set_drive" in page.output


def test_broken_plugin_is_reported_by_name(tmp_path, monkeypatch, clean):
    _plugin(tmp_path, monkeypatch, "skimmer.robot:NOT_A_TYPE")
    data = {"arena": {"size": [1, 1]}, "robots": [{"name": "s", "type": "skimmer", "count": 1}]}
    with pytest.raises(ConfigError) as info:
        parse_experiment(data, "x.toml")
    assert info.value.problems == [
        "x.toml: robots[0].type: robot type 'skimmer': plug-in entry point "
        "'skimmer.robot:NOT_A_TYPE' is not a RobotType (it is a dict)"]
    listed = runner.invoke(app, ["robot"])
    assert listed.exit_code == 0 and "epuck2" in listed.output
    assert "skimmer" in listed.output and "not a RobotType" in listed.output


def test_robot_command_shows_a_reference(clean):
    page = runner.invoke(app, ["robot", "tests.extension.skimmer.robot:SKIMMER"])
    assert page.exit_code == 0, page.output
    assert "set_drive" in page.output and "positioning" in page.output
    bad = runner.invoke(app, ["robot", "tests.extension.skimmer.robot:NOT_A_TYPE"])
    assert bad.exit_code == 2 and "is not a RobotType" in bad.output
