"""docs/extending.md's two worked examples run from their experiment files and do what the
document says: the compass (a new sensor kind, on an E-Puck2) reads each robot's heading with
noise from its own stream, and the rover (a new robot type) drives north among E-Puck2s."""

import json
import math
import shutil
from pathlib import Path

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack import Simulation
from swarmstack.cli import app
from swarmstack.experiments.config import ConfigError, load_experiment

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "extending"
runner = CliRunner()


def _wrap(a):
    return np.arctan2(np.sin(a), np.cos(a))


@pytest.fixture
def folder(tmp_path):
    """A copy of the example folder (experiment files are edited in some tests)."""
    dest = tmp_path / "extending"
    shutil.copytree(EXAMPLE, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def test_compass_reads_the_heading_and_the_pucks_face_north():
    sim = Simulation.from_file(EXAMPLE / "compass.toml")
    g = sim.groups[0]
    assert g.robot_type.name == "epuck2_compass"
    assert {"compass", "proximity"} <= set(g.readings)
    yaw = sim.world.bodies.yaw[g.slice.start:g.slice.stop]
    errors = []
    for _ in range(200):
        sim.step()
        errors.append(_wrap(g.readings["compass"] - yaw))
    errors = np.concatenate(errors)
    # gaussian noise of level 0.02 rad around the true heading
    assert abs(errors.mean()) < 0.005 and errors.std() == pytest.approx(0.02, rel=0.15)
    # FaceNorth stops within its tolerance (0.1 rad) of north, as read through the noise
    assert np.all(np.abs(_wrap(yaw - math.pi / 2)) < 0.1 + 4 * 0.02)
    # a per-robot reading is a 0-d view of the group's array
    robot = g.views[0]
    assert robot.compass.shape == () and float(robot.compass) == g.readings["compass"][0]


def test_compass_noise_is_each_robots_own(folder):
    """A run in a batch reads what it reads alone, and noise-free the compass is the yaw."""
    path = folder / "compass.toml"
    alone = Simulation.from_file(path, seed=4)
    batch = Simulation.from_file(path, seed=3, runs=2)
    alone.run(20)
    batch.run(20)
    n = alone.groups[0].slice.n
    assert np.array_equal(batch.groups[0].readings["compass"][n:],
                          alone.groups[0].readings["compass"])
    path.write_text(path.read_text().replace('{ noise = "gaussian", level = 0.02 }', "true"))
    sim = Simulation.from_file(path)
    sim.run(5)
    g = sim.groups[0]
    assert np.array_equal(g.readings["compass"],
                          _wrap(sim.world.bodies.yaw[g.slice.start:g.slice.stop]))


def test_compass_options_are_checked(folder):
    path = folder / "compass.toml"
    path.write_text(path.read_text().replace('level = 0.02', 'level = -1'))
    with pytest.raises(ConfigError) as info:
        load_experiment(path)
    assert f"{path}: robots[0].sensors.compass.level:" in info.value.problems[0]


def test_rovers_drive_north_among_pucks():
    sim = Simulation.from_file(EXAMPLE / "rover.toml")
    rovers, pucks = sim.groups
    assert rovers.robot_type.name == "rover" and pucks.robot_type.name == "epuck2"
    b = sim.world.bodies
    r = slice(rovers.slice.start, rovers.slice.stop)
    assert np.all(b.is_box[r])
    y0 = b.y[r].copy()
    sim.run(200)
    assert np.all(np.abs(_wrap(b.yaw[r] - math.pi / 2)) < 1e-3)
    # 20 s at 0.05 m/s, part of it spent turning (at most 0.8 rad/s): between 0.5 and 1 m
    assert np.all((b.y[r] - y0 > 0.5) & (b.y[r] - y0 <= 1.0 + 1e-9))
    assert np.array_equal(rovers.readings["pose"][:, 1], b.y[r])


def test_rover_turn_is_clamped_by_its_drive_options(folder):
    path = folder / "rover.toml"
    path.write_text(path.read_text().replace("max_turn = 0.8", "max_turn = 0.1"))
    sim = Simulation.from_file(path)
    rovers = sim.groups[0]
    yaw0 = sim.world.bodies.yaw[rovers.slice.start:rovers.slice.stop].copy()
    sim.step()
    turned = _wrap(sim.world.bodies.yaw[rovers.slice.start:rovers.slice.stop] - yaw0)
    # the rover facing south (yaw π) has the largest error: it turns at most 0.1 rad/s × 0.1 s
    assert np.max(np.abs(turned)) == pytest.approx(0.01)


@pytest.mark.parametrize("name, group, sensor", [("compass.toml", "pucks", "compass"),
                                                 ("rover.toml", "rovers", "compass")])
def test_examples_run_from_the_command_line(tmp_path, name, group, sensor):
    path = EXAMPLE / name
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--ticks", "20",
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    assert json.loads((out / "summary.json").read_text())["status"] == "completed"
    columns = duckdb.sql(f"SELECT * FROM read_parquet('{out}/sensors/{group}/*.parquet') "
                         "LIMIT 1").columns
    assert sensor in columns or any(c.startswith(sensor) for c in columns), columns


def test_robot_reference_page_of_the_rover(monkeypatch):
    monkeypatch.chdir(EXAMPLE)
    page = runner.invoke(app, ["robot", "mybots.rover:ROVER"])
    assert page.exit_code == 0, page.output
    assert "set_drive" in page.output and "compass" in page.output
