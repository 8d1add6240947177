"""Sweeps end to end: batched runs with their own seeds and parameters, one folder per run,
failures recorded, the ledger resumed after SIGKILL, and the catalogue."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

import swarmstack.results as results
from swarmstack.experiments.config import load_experiment
from swarmstack.experiments.results_writer import read_table
from swarmstack.experiments.runner import run_experiment
from swarmstack.studies.ledger import StudyMismatch
from swarmstack.studies.plan import make_study, read_experiment
from swarmstack.studies.runner import run_study
from tests.studies.conftest import ROOT, cli


def study(path, params=(), **kw):
    return make_study(read_experiment(path), str(path), path.parent, list(params), **kw)


def test_a_run_in_a_mixed_batch_is_the_run_alone(experiment, tmp_path):
    path = experiment(ticks=25)
    spec = study(path, ["robots.0.controller.params.speed=0.03,0.07"], seeds=3)
    out = run_study(spec, tmp_path / "s", workers=1, batch_runs=6, progress=False)
    assert out.ok and out.done == 6
    con = results.open(tmp_path / "s")
    rows = con.execute('select run_id, seed, speed, "robots.0.controller.params.speed", status '
                   "from runs order by run_id").fetchall()
    assert [(r[1], r[2]) for r in rows] == [(3, 0.03), (4, 0.03), (5, 0.03),
                                           (3, 0.07), (4, 0.07), (5, 0.07)]
    assert {r[4] for r in rows} == {"done"}
    # run r000004 (seed 4, speed 0.07) sat in one batch with 5 others: same as alone
    cfg = load_experiment(path)
    cfg = cfg.model_copy(update={"robots": [cfg.robots[0].model_copy(update={
        "controller": cfg.robots[0].controller.model_copy(update={"params": {"speed": 0.07}})})]})
    summary = run_experiment(cfg, tmp_path / "alone", seed=4, base_dir=path.parent)
    collided = con.execute("select collisions from runs where run_id = 'r000004'").fetchone()
    assert collided == (summary["collisions"],)
    alone = read_table(tmp_path / "alone" / "trajectories")
    mine = read_table(tmp_path / "s" / "runs" / "r000004" / "trajectories")
    for k in ("tick", "robot", "x", "y", "yaw"):
        assert np.array_equal(alone[k], mine[k]), k
    sens = read_table(tmp_path / "s" / "runs" / "r000004" / "sensors" / "bots")
    sens_alone = read_table(tmp_path / "alone" / "sensors" / "bots")
    assert np.array_equal(sens["proximity_3"], sens_alone["proximity_3"])
    # the views join by run id
    n = con.execute("select count(*) from trajectories t join runs using (run_id) "
                "where runs.seed = 4").fetchone()[0]
    assert n == 2 * 4 * 26
    assert con.execute("select distinct group_name from sensors").fetchall() == [("bots",)]


def test_failed_runs_are_recorded_and_strict_stops(experiment, tmp_path):
    path = experiment(ticks=20)
    spec = study(path, ["robots.0.controller.params.fail_at=5,-1",
                        "robots.0.controller.params.speed=0.02,0.04"], seeds=2)
    out = run_study(spec, tmp_path / "s", workers=1, progress=False)
    assert (out.done, out.failed) == (4, 4) and not out.stopped
    con = results.open(tmp_path / "s")
    failed = con.execute("select fail_at, status, ticks_done, error from runs "
                     "where status = 'failed'").fetchall()
    assert {f[0] for f in failed} == {5} and all(f[2] == 5 for f in failed)
    assert all("deliberate failure" in f[3] for f in failed)
    summary = json.loads((tmp_path / "s" / "runs" / "r000000" / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["error"]["tick"] == 5
    strict = run_study(spec, tmp_path / "t", workers=1, progress=False, strict=True,
                       batch_runs=1)
    assert strict.stopped and strict.failed >= 1 and strict.done + strict.failed < 8


def test_a_changed_study_is_refused(experiment, tmp_path):
    path = experiment(ticks=5)
    run_study(study(path, ["robots.0.count=2,3"]), tmp_path / "s", workers=1, progress=False)
    with pytest.raises(StudyMismatch, match="differs in: params"):
        run_study(study(path, ["robots.0.count=2,4"]), tmp_path / "s", workers=1,
                  progress=False)
    p = cli("sweep", str(path), "--param", "robots.0.count=2,4", "--out", str(tmp_path / "s"),
            check=False)
    assert p.returncode == 1 and "different study" in p.stderr and "Traceback" not in p.stderr
    p = cli("results", str(tmp_path), "select 1", check=False)
    assert p.returncode == 1 and "not a study folder" in p.stderr
    p = cli("results", str(tmp_path / "s"), "select nope from runs", check=False)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    p = cli("results", str(tmp_path / "s"), 'select "robots.0.count", status from runs '
            "order by 1", "--csv")
    assert p.stdout.splitlines() == ["robots.0.count,status", "2,done", "3,done"]


def _done(ledger):
    try:
        con = sqlite3.connect(f"file:{ledger}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("select count(*) from runs where status = 'done'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


def test_a_killed_driver_resumes_with_nothing_lost_or_repeated(experiment, tmp_path):
    path = experiment(ticks=12, controller="Slow")
    args = ["sweep", str(path), "--param", "robots.0.controller.params.speed=0.02:0.05:4",
            "--param", "robots.0.controller.params.sleep_s=0.03", "--seeds", "2",
            "--workers", "1", "--batch-runs", "1", "--quiet"]
    killed = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", "from swarmstack.cli import main; main()",
                             *args, "--out", str(killed)], env=env, cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while _done(killed / "study.sqlite") < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert 2 <= _done(killed / "study.sqlite") < 8
    cli(*args, "--out", str(killed))                    # the same command continues
    cli(*args, "--out", str(tmp_path / "whole"))        # an uninterrupted sweep
    a = results.open(killed)
    b = results.open(tmp_path / "whole")
    assert a.execute("select count(*), count(distinct run_id) from runs where status = 'done'"
                 ).fetchone() == (8, 8)
    assert a.execute("select max(attempts) from runs").fetchone()[0] <= 2
    assert not list((killed / "runs").glob(".tmp-*"))
    q = "select run_id, tick, robot, x, y, yaw from trajectories order by all"
    assert a.execute(q).fetchall() == b.execute(q).fetchall()
    assert a.execute("select count(*) from trajectories").fetchone()[0] == 8 * 4 * 13
    again = cli("sweep", "--resume", "--out", str(killed), "--quiet")
    assert "8 of 8 runs done" in again.stdout and "(0 run now)" in again.stdout


def test_local_process_pool(experiment, tmp_path):
    path = experiment(ticks=10)
    spec = study(path, ["robots.0.count=2,3", "robots.0.controller.params.speed=0.02,0.04"],
                 seeds=2)
    out = run_study(spec, tmp_path / "pool", workers=2, progress=False)
    assert out.ok and out.done == 8
    one = run_study(spec, tmp_path / "one", workers=1, progress=False)
    q = "select run_id, tick, robot, x, y from trajectories order by all"
    assert results.open(tmp_path / "pool").execute(q).fetchall() == \
        results.open(tmp_path / "one").execute(q).fetchall()
    assert one.ok


def test_progress_and_command_line_mistakes(experiment, tmp_path):
    import io

    from swarmstack.studies.progress import SweepProgress

    stream = io.StringIO()   # not a terminal: plain lines
    bar = SweepProgress(4, 4000.0, stream=stream)
    bar.update(2, 2000.0, failed=1)
    bar.update(2, 2000.0)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert lines and lines[-1].startswith("sweep: 4/4 runs, 1 failed, ")
    assert "robot-ticks/s" in lines[-1] and "left" in lines[-1]
    path = experiment(ticks=5)
    for args, said in [(["--workers", "2", "--ray", "auto"], "choose one"),
                       (["--resume"], "no study to resume"),
                       (["--param", "robots.0.count"], "expected KEY.PATH=VALUES"),
                       (["--param", "sweep.seeds=3"], "cannot be swept")]:
        p = cli("sweep", *([] if args == ["--resume"] else [str(path)]), *args,
                "--out", str(tmp_path / "s"), check=False)
        assert p.returncode == 1 and said in p.stderr and "Traceback" not in p.stderr, p.stderr
    p = cli("sweep", str(path), "--param", "robots.0.count=1,2", "--out", str(tmp_path / "s"))
    assert "2 of 2 runs done" in p.stdout and "sweep: 2/2 runs" in p.stderr


def test_a_pool_worker_killed_mid_run_has_its_runs_redone(experiment, tmp_path):
    path = experiment(ticks=10, controller="DieOnce")
    marker = tmp_path / "died"
    spec = study(path, [f"robots.0.controller.params.marker={marker}",
                        "robots.0.controller.params.speed=0.02,0.04"], seeds=3)
    out = run_study(spec, tmp_path / "s", workers=2, batch_runs=2, progress=False)
    assert marker.exists() and out.ok and out.done == 6
    con = results.open(tmp_path / "s")
    assert con.execute("select max(attempts), count(distinct run_id) from runs "
                       "where status = 'done'").fetchone() == (2, 6)
    assert con.execute("select count(distinct run_id), count(*) from trajectories"
                       ).fetchone() == (6, 6 * 4 * 11)


def test_a_worker_that_dies_between_hand_outs_is_replaced(experiment, tmp_path, monkeypatch):
    """A worker dies while idle, after the driver last looked and before it hands out the next
    batch: the pool replaces it, the sweep goes on and no run is tried twice."""
    import swarmstack.studies.runner as runner
    from swarmstack.studies.executors import make_executor

    replaced = []

    def make(workers=None, ray=None):
        ex = make_executor(workers, ray)
        submit = ex.submit

        def kill_before_second(fn, *args, **kwargs):
            if len(replaced) == 0 and getattr(ex, "hand_outs", 0) == 1:
                victim = ex.pids[-1]
                os.kill(victim, signal.SIGKILL)
                while victim in ex.pids:
                    time.sleep(0.01)
                replaced.append(victim)
            ex.hand_outs = getattr(ex, "hand_outs", 0) + 1
            return submit(fn, *args, **kwargs)

        ex.submit = kill_before_second
        return ex

    monkeypatch.setattr(runner, "make_executor", make)
    path = experiment(ticks=10)
    spec = study(path, ["robots.0.controller.params.speed=0.02,0.04"], seeds=2)
    out = run_study(spec, tmp_path / "s", workers=2, batch_runs=1, progress=False)
    assert replaced and out.ok and out.done == 4
    con = results.open(tmp_path / "s")
    assert con.execute("select max(attempts) from runs").fetchone() == (1,)
    assert con.execute("select count(distinct run_id), count(*) from trajectories"
                       ).fetchone() == (4, 4 * 4 * 11)


def test_workers_forked_from_a_driver_holding_duckdb_garbage_run(experiment, tmp_path):
    """Garbage of the driver's (an unreachable cycle holding a DuckDB connection, whose
    threads a forked worker does not have) must not be freed in a worker: it crashed it."""
    import gc

    import duckdb

    class Holder:
        pass

    held = Holder()
    held.itself, held.con = held, duckdb.connect()
    held.con.execute("select 42").fetchall()
    keep = [held]
    gc.collect()           # the cycle grows old while it is still reachable ...
    del held
    keep.clear()           # ... then is dropped: only a full collection would free it
    spec = study(experiment(ticks=5, controller="Collects"),
                 ["robots.0.controller.params.speed=0.02,0.04"])
    out = run_study(spec, tmp_path / "s", workers=2, batch_runs=1, progress=False)
    assert out.ok and out.done == 2
    con = results.open(tmp_path / "s")
    assert con.execute("select max(attempts) from runs").fetchone() == (1,)


def test_unusable_folders_are_errors_not_tracebacks(experiment, tmp_path):
    import sqlite3 as sq

    bad = tmp_path / "half"
    bad.mkdir()
    sq.connect(bad / "study.sqlite").executescript(
        "create table study (key text primary key, value text not null);")
    p = cli("results", str(bad), check=False)
    assert p.returncode == 1 and "never planned" in p.stderr and "Traceback" not in p.stderr
    (tmp_path / "file").write_text("x")
    p = cli("sweep", str(experiment(ticks=2)), "--out", str(tmp_path / "file"), check=False)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    p = cli("sweep", str(experiment(ticks=2)), "--out", str(tmp_path / "other"), check=False)
    assert p.returncode == 1 and "notes.txt" in p.stderr
