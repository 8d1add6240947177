"""A design end to end: ledger, resume after SIGKILL, best.txt usable as pfsm_file, CLI."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swarmstack.design.evaluate import Batch, Mission, run_batch
from swarmstack.design.missions import EXAMPLES
from swarmstack.design.run import DesignError, design
from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[2]
AGG = EXAMPLES / "aggregation.toml"
A = "--nstates 2 --s0 0 --rwm0 30 --n0 1 --n0x0 0 --c0x0 0 --p0x0 1 --s1 1 --n1 0"
B = "--nstates 1 --s0 4 --att0 3"


def test_a_run_in_a_batch_scores_as_that_seed_alone():
    mission = Mission(str(AGG), "aggregation", "swarm", ticks=60)
    both = run_batch(Batch(mission, (A, B, A), (11, 12, 13)))
    alone = [run_batch(Batch(mission, (t,), (s,))) [0] for t, s in ((A, 11), (B, 12), (A, 13))]
    assert both == alone
    sim = Simulation.from_file(AGG, seed=12, params=[{"swarm": {"pfsm": B}}])
    from swarmstack.design.missions import run_scores
    assert run_scores(sim, "aggregation", "swarm", 60)[0] == both[1]


SCRIPT = """
import sys
from swarmstack.design.run import design
design(sys.argv[1], "aggregation", 150, 5, sys.argv[2], workers=1, resume=True, ticks=40,
       n_fresh=4, n_random=3)
"""


def _design(out, resume=False):
    return subprocess.Popen([sys.executable, "-c", SCRIPT, str(AGG), str(out)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


def _rows(path):
    try:
        with sqlite3.connect(path) as db:
            return db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_killed_design_resumes_to_the_same_result(tmp_path):
    whole = tmp_path / "whole"
    assert _design(whole).wait(timeout=600) == 0
    killed = tmp_path / "killed"
    proc = _design(killed)
    deadline = time.time() + 300
    while _rows(killed / "ledger.sqlite") < 40 and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 0 < _rows(killed / "ledger.sqlite") < _rows(whole / "ledger.sqlite")
    assert not (killed / "best.txt").exists()
    assert _design(killed).wait(timeout=600) == 0
    assert (killed / "best.txt").read_text() == (whole / "best.txt").read_text()
    a = json.loads((whole / "scores.json").read_text())
    b = json.loads((killed / "scores.json").read_text())
    assert a == b


def test_design_refuses_an_occupied_folder_and_another_designs_ledger(tmp_path):
    kw = dict(ticks=20, n_fresh=3, n_random=2)
    best, a = design(AGG, "aggregation", 120, 1, tmp_path, **kw)
    with pytest.raises(DesignError, match="--resume"):
        design(AGG, "aggregation", 120, 1, tmp_path, **kw)
    with pytest.raises(ValueError, match="seed"):
        design(AGG, "aggregation", 120, 2, tmp_path, resume=True, **kw)
    # best.txt runs as a controller file
    exp = tmp_path / "exp.toml"
    exp.write_text(AGG.read_text().replace(
        AGG.read_text().split("controller = ")[1].split("\n")[0],
        '{ pfsm_file = "best.txt" }'))
    sim = Simulation.from_file(exp)
    assert sim.cfg.robots[0].controller.params["pfsm"] == best
    sim.run(10)
    assert (tmp_path / "scores.png").stat().st_size > 0


def test_cli_design_writes_best_and_scores(tmp_path):
    out = tmp_path / "d"
    cmd = [sys.executable, "-c", "from swarmstack.cli import main; main()", "design",
           str(AGG), "--budget", "100", "--seed", "3", "--out", str(out), "--fresh-seeds", "3",
           "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "best PFSM: --nstates" in done.stdout
    assert (out / "best.txt").read_text().startswith("--nstates")
    again = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 1 and "--resume" in again.stderr
    bad = subprocess.run(cmd[:5] + ["nowhere.toml"] + cmd[6:], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and "Traceback" not in bad.stderr


def test_executor_is_any_concurrent_futures_executor():
    from swarmstack.studies.executors import make_executor

    mission = Mission(str(AGG), "aggregation", "swarm", ticks=30)
    with make_executor(2) as pool:
        a = pool.submit(run_batch, Batch(mission, (A,), (4,))).result()
    b = make_executor(1).submit(run_batch, Batch(mission, (A,), (4,))).result()
    assert a == b


def test_a_design_on_ray_equals_the_local_one(tmp_path):
    pytest.importorskip("ray")
    kw = dict(ticks=30, n_fresh=3, n_random=2)
    local, _ = design(AGG, "aggregation", 150, 8, tmp_path / "a", workers=1, **kw)
    on_ray, _ = design(AGG, "aggregation", 150, 8, tmp_path / "b", ray="local", **kw)
    assert on_ray == local
    assert (tmp_path / "a" / "scores.json").read_text() == \
        (tmp_path / "b" / "scores.json").read_text()


def test_the_design_does_not_depend_on_workers_or_batch_size(tmp_path):
    kw = dict(ticks=30, n_fresh=3, n_random=2)
    one, _ = design(AGG, "aggregation", 150, 8, tmp_path / "a", workers=1, **kw)
    two, _ = design(AGG, "aggregation", 150, 8, tmp_path / "b", workers=2, runs_per_batch=7,
                    **kw)
    assert one == two
    assert (tmp_path / "a" / "scores.json").read_text() == \
        (tmp_path / "b" / "scores.json").read_text()


def test_progress_reaches_the_total_also_when_resumed(tmp_path):
    kw = dict(ticks=20, n_fresh=3, n_random=2)
    seen = []
    design(AGG, "aggregation", 120, 4, tmp_path, progress=lambda d, t: seen.append((d, t)),
           **kw)
    assert seen[-1][0] == seen[-1][1] == 120 + 3 * (1 + 2 + 1)
    assert all(a[0] <= b[0] for a, b in zip(seen, seen[1:]))
    (tmp_path / "best.txt").unlink()
    again = []
    design(AGG, "aggregation", 120, 4, tmp_path, resume=True,
           progress=lambda d, t: again.append((d, t)), **kw)
    assert again[-1] == seen[-1]
