"""Policies as controllers: ``controller = { policy = "file.npz" }`` (an MLP) or a callable run
by ``swarmstack run`` give the trajectories the environment gives, bit for bit."""

import subprocess
import sys
from pathlib import Path

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack import learn
from swarmstack.cli import app
from swarmstack.experiments.config import ConfigError, load_experiment

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "learning" / "aggregation.toml"
TICKS = 25
CALLABLE = '''import numpy as np

def act(x):   # x: float64[robots, 11] (ground 0-1023, then proximity 0-4095)
    return np.stack([0.12 - x[:, 3] / 20000, 0.12 - x[:, 10] / 20000 + x[:, 0] / 1e5], axis=1)
'''


def experiment_with(tmp_path, controller: str, extra: str = "") -> Path:
    path = tmp_path / "mission.toml"
    path.write_text(EXAMPLE.read_text() + extra + f"controller = {controller}\n")
    return path


def env_trajectory(policy, seed, experiment=EXAMPLE, **kw):
    """Poses (tick, robot id) -> (x, y, yaw) through the vector environment."""
    kw = {"commands": ["wheels"], **kw}
    env = learn.vector_env(experiment, num_envs=1, flat=True, **kw)
    obs, _ = env.reset(seed=seed)
    b = env.sim.world.bodies
    out = []
    for tick in range(TICKS + 1):
        out += [(tick, int(b.robot_id[i]), b.x[i], b.y[i], b.yaw[i]) for i in range(b.n)]
        if tick < TICKS:
            obs = env.step(policy(obs[0])[None])[0]
    return np.array(out)


def run_trajectory(path, out, seed):
    result = CliRunner().invoke(app, ["run", str(path), "--out", str(out), "--seed", str(seed),
                                      "--ticks", str(TICKS)])
    assert result.exit_code == 0, result.output
    rows = duckdb.sql(f"select tick, robot, x, y, yaw from read_parquet('{out}/trajectories/"
                      "*.parquet') order by tick, robot").fetchall()
    return np.array(rows, dtype=np.float64)


def test_mlp_policy_runs_as_in_the_environment(tmp_path):
    env = learn.vector_env(EXAMPLE, flat=True, commands=["wheels"])
    mlp = learn.MLP.random(env.batch.spaces["swarm"], hidden=(6,), seed=3, scale=3.0)
    mlp.save(tmp_path / "pol.npz")
    with np.load(tmp_path / "pol.npz") as f:   # the documented layout
        assert sorted(f.files) == ["W0", "W1", "b0", "b1", "commands", "inbox", "observe"]
        assert f["W0"].shape == (11, 6) and f["W1"].shape == (6, 2)
        assert list(f["observe"]) == ["ground", "proximity"]
    ours = env_trajectory(mlp, seed=4)
    theirs = run_trajectory(experiment_with(tmp_path, '{ policy = "pol.npz" }'),
                            tmp_path / "out", seed=4)
    assert ours.shape == theirs.shape
    assert np.array_equal(ours, theirs)
    assert np.ptp(ours[:, 2]) > 0.01   # the robots moved


def test_a_policy_that_hears_and_sends_runs_as_in_the_environment(tmp_path):
    radio = "radio = { range = 0.4 }\n"
    path = experiment_with(tmp_path, '{ policy = "pol.npz" }', radio)
    plain = tmp_path / "plain.toml"
    plain.write_text(EXAMPLE.read_text() + radio)
    kw = {"inbox": 3, "commands": ["wheels", "radio"]}
    env = learn.vector_env(plain, flat=True, **kw)
    mlp = learn.MLP.random(env.batch.spaces["swarm"], hidden=(5,), seed=8, scale=3.0)
    assert mlp.inputs == 11 + 3 * 5 and mlp.inbox == 3
    mlp.save(tmp_path / "pol.npz")
    ours = env_trajectory(mlp, 2, plain, **kw)
    assert np.array_equal(ours, run_trajectory(path, tmp_path / "out", seed=2))


def test_callable_policy_runs_as_in_the_environment(tmp_path):
    (tmp_path / "pol.py").write_text(CALLABLE)
    namespace = {}
    exec(CALLABLE, namespace)
    ours = env_trajectory(namespace["act"], seed=9)
    path = experiment_with(tmp_path, '{ policy = "pol.py:act", params = { commands = '
                                     '["wheels"] } }')
    assert np.array_equal(ours, run_trajectory(path, tmp_path / "out", seed=9))
    assert np.ptp(ours[:, 2]) > 0.01


def test_policy_errors_are_named(tmp_path):
    with pytest.raises(ConfigError, match=r"robots\[0\]\.controller\.policy: policy file "
                                          r".*missing\.npz' does not exist"):
        load_experiment(experiment_with(tmp_path, '{ policy = "missing.npz" }'))
    with pytest.raises(ConfigError, match="exactly one of.*policy.*found python and policy"):
        load_experiment(experiment_with(tmp_path, '{ policy = "a.npz", python = "a.py:A" }'))
    np.savez(tmp_path / "wrong.npz", W0=np.zeros((5, 2)), b0=np.zeros(2),
             observe=np.array(["ground"]), commands=np.array(["wheels"]))
    with pytest.raises(ConfigError, match="wrong.npz: W0 reads 5 numbers; the observation "
                                          r"\(ground\) has 3"):
        load_experiment(experiment_with(tmp_path, '{ policy = "wrong.npz" }'))
    (tmp_path / "p.py").write_text("def act(x):\n    return x\n")
    with pytest.raises(ConfigError, match="policy 'p.py:nothing': p.py has no callable 'nothing'"):
        load_experiment(experiment_with(tmp_path, '{ policy = "p.py:nothing" }'))
    result = CliRunner().invoke(app, ["run", str(experiment_with(tmp_path,
                                                                 '{ policy = "p.py:act" }')),
                                      "--out", str(tmp_path / "o"), "--ticks", "2"])
    assert result.exit_code != 0
    assert "the policy returned shape (6, 11); expected (6, 32)" in str(result.exception) + \
        result.output


def test_a_policy_controller_runs_without_the_learning_libraries(tmp_path):
    """``swarmstack run`` of a policy imports neither gymnasium nor pettingzoo."""
    env = learn.vector_env(EXAMPLE, flat=True, commands=["wheels"])
    learn.MLP.random(env.batch.spaces["swarm"]).save(tmp_path / "pol.npz")
    path = experiment_with(tmp_path, '{ policy = "pol.npz" }')
    code = ("import sys; from swarmstack import Simulation; "
            f"Simulation.from_file({str(path)!r}).run(3); "
            "print(sorted(m for m in ('gymnasium', 'pettingzoo') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"
