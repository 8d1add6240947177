"""The example .argos files and the ARGoS anchor files (the E-Puck2 workloads timed against
ARGoS) import, validate and run; `swarmstack run FILE.argos` is deterministic."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack.argos import import_argos
from swarmstack.cli import app
from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "argos").glob("*.argos"))
ANCHORS = sorted((Path(__file__).parent / "anchors").glob("*.argos"))
BENCHMARKS = sorted((ROOT / "benchmarks" / "argos").glob("*.argos"))   # run by ARGoS too
runner = CliRunner()


@pytest.mark.parametrize("path", EXAMPLES + ANCHORS + BENCHMARKS, ids=lambda p: p.stem)
def test_imports_to_a_valid_experiment(path, tmp_path):
    out = tmp_path / "sub" / f"{path.stem}.toml"
    out.parent.mkdir()
    result = runner.invoke(app, ["import", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert text.startswith(f"# Imported from {path.name}")
    data = tomllib.loads(text)
    assert data["robots"]
    for group in data["robots"]:   # scripts, relative to the TOML file, where the .argos said
        for key in ("lua", "buzz"):
            if key in group.get("controller", {}):
                assert (out.parent / group["controller"][key]).resolve().is_file()
    result = runner.invoke(app, ["validate", str(out)])
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("path", EXAMPLES + ANCHORS + BENCHMARKS, ids=lambda p: p.stem)
def test_runs_from_the_cli(path, tmp_path):
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path), "--ticks", "20",
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "summary.json").is_file()


def test_anchor_lists_the_cpp_controller_and_keeps_its_sensor():
    im = import_argos(ANCHORS[-1])   # 50 robots, proximity
    (group,) = im.data()["robots"]
    assert group["count"] == 50 and group["sensors"] == {"proximity": True}
    assert "controller" not in group
    assert any(n.startswith("/argos-configuration/controllers/bench_controller[@id='bench']: "
                            "a C++ controller") for n in im.notes)


def test_running_an_argos_file_is_deterministic():
    path = ROOT / "examples" / "argos" / "epuck2_buzz_flocking.argos"
    poses = []
    for _ in range(2):
        sim = Simulation.from_file(path)
        sim.run(30)
        b = sim.world.bodies
        poses.append(np.column_stack([b.x, b.y, b.yaw]).copy())
    assert np.array_equal(poses[0], poses[1])
    other = Simulation.from_file(path, seed=8)
    b = other.world.bodies
    assert not np.array_equal(poses[0][:, :2], np.column_stack([b.x, b.y]))


def test_sweeps_an_argos_file(tmp_path):
    path = ROOT / "examples" / "argos" / "epuck2_lua_diffusion.argos"
    out = tmp_path / "study"
    result = runner.invoke(app, ["sweep", str(path), "--out", str(out), "--seeds", "2", "--workers", "1",
                                 "--ticks", "15", "--quiet"])
    assert result.exit_code == 0, result.output
    assert len(list(out.glob("runs/*/summary.json"))) == 2
