"""Every example runs, and each one does what it claims."""

import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
runner = CliRunner()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_runs_from_the_cli(path, tmp_path):
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path), "--ticks", "50",
                                 "--quiet"])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "summary.json").is_file()


def _sim(name, **kw):
    return Simulation.from_file(ROOT / "examples" / name, **kw)


def test_diffusion_keeps_robots_apart_and_moving():
    sim = _sim("epuck2_diffusion.toml")
    b = sim.world.bodies
    start = np.column_stack([b.x, b.y]).copy()
    sim.run(600)
    moved = np.hypot(b.x - start[:, 0], b.y - start[:, 1])
    assert np.median(moved) > 0.2


def test_phototaxis_brings_robots_to_the_light():
    sim = _sim("epuck2_phototaxis.toml")
    b = sim.world.bodies
    before = np.hypot(b.x, b.y).mean()
    sim.run(1800)
    after = np.hypot(b.x, b.y)
    assert after.mean() < 0.5 * before
    assert np.sum(after < 0.25) >= 8


def test_line_follower_stays_on_the_ring():
    sim = _sim("epuck2_line_following.toml")
    b = sim.world.bodies
    start_angle = np.arctan2(b.y, b.x).copy()
    errors = []
    for _ in range(1200):
        sim.step()
        # the ground sensors sit 3 cm ahead of the centre; the ring has radius 0.40 m
        fx = b.x + 0.03 * np.cos(b.yaw)
        fy = b.y + 0.03 * np.sin(b.yaw)
        errors.append(np.abs(np.hypot(fx, fy) - 0.40))
    assert np.max(errors[100:]) < 0.05
    travelled = np.unwrap(np.arctan2(b.y, b.x) - start_angle)
    assert np.all(np.abs(travelled) > 0.5)  # they went round, not just sat on the line


def test_odometry_estimate_tracks_the_true_pose():
    sim = _sim("epuck2_odometry.toml")
    g = sim.groups[0]
    b = sim.world.bodies
    x0, y0, yaw0 = b.x.copy(), b.y.copy(), b.yaw.copy()
    sim.run(600)
    for k, ctrl in enumerate(g.controllers):
        c, s = math.cos(yaw0[k]), math.sin(yaw0[k])
        ex = x0[k] + c * ctrl.x - s * ctrl.y
        ey = y0[k] + s * ctrl.x + c * ctrl.y
        assert math.hypot(ex - b.x[k], ey - b.y[k]) < 0.01
    # and it really drove squares: at least 3 corners turned
    assert all(ctrl.yaw > 1.5 * math.pi for ctrl in g.controllers)
