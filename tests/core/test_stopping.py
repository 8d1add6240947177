"""How a run stops — completed, interrupted, failed — and that whatever stops it, the summary,
``ticks_done`` and the Parquet parts on disk agree.

The first tests signal the run from inside (a controller sends the signal at a known tick), so
what must be on disk is exact. The fault-injection tests at the end run ``swarmstack run`` in a
subprocess and send SIGINT at various moments, twice, SIGTERM and SIGKILL.
"""

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack import BatchedController, Controller
from swarmstack.cli import app
from swarmstack.experiments import results_writer as results
from swarmstack.experiments.config import parse_experiment
from swarmstack.experiments.results_writer import (OutputFolderError, prepare_output, read_summary,
                                            read_table, run_alive)
from swarmstack.experiments.runner import RunInterrupted, run_experiment
from swarmstack.sim.simulation import Simulation

runner = CliRunner()
HERE = "tests.core.test_stopping"


# ------------------------------------------------------------------ controllers of these tests
class SignalAt(Controller):
    """Robot 0 of run 0 sends ``times`` signals ``sig`` to its own process at tick ``tick``."""

    def init(self, robot, params):
        self.tick, self.sig, self.times = params["tick"], params["sig"], params.get("times", 1)

    def step(self, robot):
        if robot.id == 0 and robot.run == 0 and robot.tick == self.tick:
            for _ in range(self.times):
                os.kill(os.getpid(), getattr(signal, self.sig))
        robot.set_wheels(0.05, 0.03)


class CrashInRun(Controller):
    """Robot 1 of run ``run`` raises from tick ``tick`` on; the others drive."""

    def init(self, robot, params):
        self.run, self.tick = params["run"], params["tick"]
        self.calls = 0

    def step(self, robot):
        self.calls += 1
        if robot.run == self.run and robot.id == 1 and robot.tick >= self.tick:
            raise ZeroDivisionError("deliberate failure of one run")
        robot.set_wheels(0.06, 0.05)


class CrashInInitOfRun(Controller):
    def init(self, robot, params):
        if robot.run == params["run"] and robot.id == 2:
            raise ValueError("bad parameter in init")

    def step(self, robot):
        robot.set_wheels(0.05, 0.05)


class BatchedCrash(BatchedController):
    def step(self, group):
        if group.tick == 7:
            raise KeyError("deliberate failure of a batched controller")
        group.wheels[:] = 0.05


class Peek(Controller):
    """At tick 25, robot 0 of run 0 notes what is on disk (the heartbeat and the last tick of
    the parts) in ``peek.json`` next to the results folder."""

    def init(self, robot, params):
        self.out = Path(params["out"])

    def step(self, robot):
        if robot.id == 0 and robot.run == 0 and robot.tick == 25:
            seen = {"summary": read_summary(self.out),
                    "max_tick": int(read_table(self.out / "trajectories")["tick"].max())}
            (self.out.parent / "peek.json").write_text(json.dumps(seen))
        robot.set_wheels(0.05, 0.05)


EXP = """
[simulation]
ticks = {ticks}
seed = 11

[arena]
size = [1.2, 1.2]
walls = true

[[robots]]
name = "e"
count = 4
controller = {{ python = "{ctrl}", params = {params} }}
sensors = {{ proximity = true, encoders = true }}

[output]
sensors = ["encoders"]
chunk_ticks = 10
"""


def _exp(tmp_path, ctrl, params="{}", ticks=60, name="exp.toml"):
    path = tmp_path / name
    path.write_text(EXP.format(ticks=ticks, ctrl=ctrl, params=params))
    return path


def _summary(out):
    return json.loads((Path(out) / "summary.json").read_text())


def _parts(out):
    out = Path(out)
    return sorted(str(p.relative_to(out)) for p in out.rglob("*.parquet"))


def _agree(out, status, per_tick, tables=("trajectories", "sensors/e")):
    """The summary, ticks_done and the Parquet parts agree; returns the summary."""
    s = _summary(out)
    assert s["status"] == status
    n = s["ticks_done"]
    assert isinstance(n, int) and 0 <= n <= s["ticks"]
    for folder, rows_per_tick in zip(tables, per_tick):
        if not list((Path(out) / folder).glob("*.parquet")):
            assert n == 0, f"{folder}: no part, ticks_done {n}"
            continue
        t = read_table(Path(out) / folder)
        assert int(t["tick"].max()) == n, folder
        assert len(t["tick"]) == (n + 1) * rows_per_tick, folder
    assert s["files"] == _parts(out) + \
        sorted(str(p.relative_to(out)) for p in (Path(out) / "logs").glob("*.log"))
    return s


@pytest.fixture
def handlers():
    """The SIGINT/SIGTERM handlers before the test; checks they are the same after it."""
    if sys.platform == "win32":
        pytest.skip("POSIX signals")
    import threading

    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signal handlers can only be set from the main thread")
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    yield
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


# ------------------------------------------------------------------ signals, in process
def test_sigint_stops_between_ticks(tmp_path, handlers):
    path = _exp(tmp_path, f"{HERE}:SignalAt", '{ tick = 23, sig = "SIGINT" }')
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet", "--runs", "2"])
    assert result.exit_code == 130, result.output
    assert "interrupted" in result.output and "Traceback" not in result.output
    s = _agree(out, "interrupted", (8, 8))
    assert s["ticks_done"] == 24  # the tick during which it arrived is finished, and logged
    assert s["signal"] == "SIGINT"
    assert [r["status"] for r in s["runs_status"]] == ["interrupted"] * 2


def test_second_sigint_abandons_the_tick_but_not_the_writes(tmp_path, handlers):
    path = _exp(tmp_path, f"{HERE}:SignalAt", '{ tick = 23, sig = "SIGINT", times = 2 }')
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 130, result.output
    s = _agree(out, "interrupted", (4, 4))
    assert s["ticks_done"] == 23


def test_sigterm_is_an_interruption_with_exit_143(tmp_path, handlers):
    path = _exp(tmp_path, f"{HERE}:SignalAt", '{ tick = 5, sig = "SIGTERM" }')
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 143, result.output
    s = _agree(out, "interrupted", (4, 4))
    assert s["ticks_done"] == 6 and s["signal"] == "SIGTERM"


def test_library_callers_get_run_interrupted(tmp_path, handlers):
    cfg = parse_experiment({
        "simulation": {"ticks": 50}, "arena": {"size": [1.0, 1.0]},
        "robots": [{"name": "e", "count": 2,
                    "controller": {"python": f"{HERE}:SignalAt",
                                   "params": {"tick": 3, "sig": "SIGINT"}}}]})
    with pytest.raises(KeyboardInterrupt) as exc:
        run_experiment(cfg, tmp_path / "out")
    assert isinstance(exc.value, RunInterrupted) and exc.value.exit_code == 130
    assert exc.value.summary["status"] == "interrupted" == _summary(tmp_path / "out")["status"]


def test_signals_during_a_write_do_not_tear_it(tmp_path, monkeypatch, handlers):
    real = results.write_part
    sent = []

    def write(path, columns):
        if not sent:  # Ctrl-C twice as the first part is written
            sent.append(path)
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)
        return real(path, columns)

    monkeypatch.setattr(results, "write_part", write)
    path = _exp(tmp_path, "tests.core.controllers:Spin", ticks=100)
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 130, result.output
    s = _agree(out, "interrupted", (4, 4))
    assert s["ticks_done"] == 9  # the first part (ticks 0-9) was being written


def test_heartbeat_says_who_runs_and_how_far(tmp_path):
    out = tmp_path / "out"
    path = _exp(tmp_path, f"{HERE}:Peek", f'{{ out = "{out}" }}', ticks=30)
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    seen = json.loads((tmp_path / "peek.json").read_text())
    summary = seen["summary"]
    assert summary["status"] == "running"
    assert summary["pid"] == os.getpid() and summary["host"] == socket.gethostname()
    assert datetime.fromisoformat(summary["updated_at"]) >= \
        datetime.fromisoformat(summary["started_at"])
    # parts of ticks 0-9 and 10-19 are written, each followed by a heartbeat
    assert summary["ticks_done"] == 19 == seen["max_tick"]
    assert run_alive(summary) is True
    final = _summary(out)
    assert final["status"] == "completed" and run_alive(final) is False


# ------------------------------------------------------------------ one failing run
def _per_run(table):
    return {int(r): table["tick"][table["run"] == r].max() for r in np.unique(table["run"])}


def test_a_failing_run_stops_alone(tmp_path):
    out, clean = tmp_path / "out", tmp_path / "clean"
    path = _exp(tmp_path, f"{HERE}:CrashInRun", "{ run = 0, tick = 10 }", ticks=40)
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet", "--runs", "3"])
    assert result.exit_code == 1
    assert "run 0" in result.output and "tick 10" in result.output
    assert "ZeroDivisionError" in result.output
    s = _summary(out)
    assert s["status"] == "failed" and s["ticks_done"] == 40 and s["failed_runs"] == 1
    st = s["runs_status"]
    assert [(r["run"], r["status"], r["ticks_done"]) for r in st] == [
        (0, "failed", 10), (1, "completed", 40), (2, "completed", 40)]
    err = st[0]["error"]
    assert (err["group"], err["robot"], err["tick"]) == ("e", 1, 10)
    assert "ZeroDivisionError" in err["traceback"]
    assert s["error"]["run"] == 0 and s["error"]["tick"] == 10
    t = read_table(out / "trajectories")
    assert _per_run(t) == {0: 10, 1: 40, 2: 40}
    assert _per_run(read_table(out / "sensors" / "e")) == {0: 10, 1: 40, 2: 40}
    # the other runs are exactly what they are in a batch where nothing fails
    path = _exp(tmp_path, f"{HERE}:CrashInRun", "{ run = 99, tick = 10 }", ticks=40,
                name="clean.toml")
    assert runner.invoke(app, ["run", str(path), "--out", str(clean), "--quiet",
                               "--runs", "3"]).exit_code == 0
    c = read_table(clean / "trajectories")
    for key in ("x", "y", "yaw"):
        assert np.array_equal(t[key][t["run"] > 0], c[key][c["run"] > 0])
        assert np.array_equal(t[key][t["run"] == 0], c[key][(c["run"] == 0) & (c["tick"] <= 10)])


def test_strict_stops_every_run_at_the_first_error(tmp_path):
    out = tmp_path / "out"
    path = _exp(tmp_path, f"{HERE}:CrashInRun", "{ run = 1, tick = 10 }", ticks=40)
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet", "--runs", "3",
                                 "--strict"])
    assert result.exit_code == 1
    assert "robot 1 of group 'e' (run 1) raised at tick 10" in result.output
    s = _agree(out, "failed", (12, 12))
    assert s["ticks_done"] == 10
    assert [(r["status"], r["ticks_done"]) for r in s["runs_status"]] == [
        ("stopped", 10), ("failed", 10), ("stopped", 10)]


def test_a_batched_controller_error_names_group_and_tick(tmp_path):
    out = tmp_path / "out"
    path = _exp(tmp_path, f"{HERE}:BatchedCrash", ticks=40)
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet", "--runs", "2"])
    assert result.exit_code == 1
    assert "batched controller of group 'e'" in result.output
    assert "raised at tick 7" in result.output and "run -1" not in result.output
    s = _agree(out, "failed", (8, 8))
    assert s["ticks_done"] == 7
    assert s["error"]["run"] is None and s["error"]["tick"] == 7
    assert [r["status"] for r in s["runs_status"]] == ["failed", "failed"]


def test_an_init_error_fails_its_run_at_tick_0(tmp_path):
    out = tmp_path / "out"
    path = _exp(tmp_path, f"{HERE}:CrashInInitOfRun", "{ run = 1 }", ticks=20)
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet", "--runs", "2"])
    assert result.exit_code == 1 and "bad parameter in init" in result.output
    s = _summary(out)
    assert [(r["status"], r["ticks_done"]) for r in s["runs_status"]] == [
        ("completed", 20), ("failed", 0)]
    assert _per_run(read_table(out / "trajectories")) == {0: 20, 1: 0}


def test_a_stopped_run_holds_its_safe_commands(tmp_path):
    cfg = parse_experiment({
        "simulation": {"ticks": 50}, "arena": {"size": [1.0, 1.0]},
        "robots": [{"name": "e", "count": 3,
                    "controller": {"python": f"{HERE}:CrashInRun",
                                   "params": {"run": 0, "tick": 5}}}]})
    sim = Simulation(cfg, runs=2, isolate_runs=True)
    sim.start()
    sim.run(5)
    assert not sim.stopped_any
    sim.step()
    assert sim.stop_tick.tolist()[0] == 5 and sim.run_errors[0]["robot"] == 1
    b = sim.world.bodies
    run0 = b.run == 0
    wheels = sim.commands("e")["wheels"]
    assert (wheels[run0] == 0).all() and (wheels[~run0] > 0).all()
    calls = [c.calls for c in sim.group("e").controllers]
    pose = b.pose[:, run0].copy()
    sim.run(5)
    after = [c.calls for c in sim.group("e").controllers]
    assert [a - c for a, c in zip(after, calls)] == [0, 0, 0, 5, 5, 5]  # run 0 not called
    assert np.array_equal(b.pose[:, run0], pose)  # wheels at 0: it does not move
    sim.reset()
    assert not sim.stopped_any and (sim.stop_tick > 10**9).all()


def test_log_lines_of_a_stopped_run_end_at_its_failure(tmp_path):
    (tmp_path / "s.bzz").write_text('function step() { log("alive") }')
    (tmp_path / "e.toml").write_text(f"""
[simulation]
ticks = 20

[arena]
size = [2.0, 2.0]

[[robots]]
name = "p"
count = 2
controller = {{ python = "{HERE}:CrashInRun", params = {{ run = 0, tick = 6 }} }}

[[robots]]
name = "z"
count = 1
controller = {{ buzz = "s.bzz" }}
""")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(tmp_path / "e.toml"), "--out", str(out), "--quiet",
                                 "--runs", "2"])
    assert result.exit_code == 1
    ticks = [int(line.split()[1]) for line in (out / "logs" / "run-00000.log").read_text()
             .splitlines()]
    assert max(ticks) == 6
    ticks = [int(line.split()[1]) for line in (out / "logs" / "run-00001.log").read_text()
             .splitlines()]
    assert max(ticks) == 19


# ------------------------------------------------------------------ fault injection
SUB_EXP = """
[simulation]
ticks = 1000000
seed = 3

[arena]
size = [1.5, 1.5]
walls = true

[[robots]]
name = "p"
count = 3
controller = { python = "ctrl.py:Spin" }
sensors = { proximity = true, encoders = true }

[[robots]]
name = "b"
count = 3
controller = { python = "ctrl.py:Wander" }
sensors = { proximity = true }

[output]
sensors = ["encoders", "proximity"]
chunk_ticks = 7
"""

SUB_CTRL = """
from swarmstack import BatchedController, Controller


class Spin(Controller):
    def step(self, robot):
        robot.set_wheels(0.05, -0.04)


class Wander(BatchedController):
    def step(self, group):
        group.wheels[:] = (group.uniform(2) * 2.0 - 1.0) * 0.1
"""

RUNS = 2
PER_TICK = (6 * RUNS, 3 * RUNS, 3 * RUNS)
TABLES = ("trajectories", "sensors/p", "sensors/b")
TIMEOUT = 90  # generous: a loaded machine may be slow to start Python and load the kernels


def _command() -> list[str]:
    script = Path(sys.executable).with_name("swarmstack")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from swarmstack.cli import main; main()"]


def _start(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "ctrl.py").write_text(SUB_CTRL)
    (tmp_path / "exp.toml").write_text(SUB_EXP)
    out = tmp_path / "out"
    proc = subprocess.Popen(_command() + ["run", str(tmp_path / "exp.toml"), "--out", str(out),
                                          "--quiet", "--runs", str(RUNS)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    return proc, out


def _wait_until(proc, condition, what):
    deadline = time.monotonic() + TIMEOUT
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        if proc.poll() is not None:
            raise AssertionError(f"exited ({proc.returncode}) before {what}: "
                                 f"{proc.stderr.read()}")
        time.sleep(0.005)
    proc.kill()
    raise AssertionError(f"timed out waiting for {what}")


def _running(out, min_ticks=0):
    def check():
        s = read_summary(out)
        return s if s and s["status"] == "running" and s["ticks_done"] >= min_ticks else None
    return check


def _finish(proc):
    try:
        _, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    return proc.returncode, err


@pytest.mark.parametrize("delay", [0.0, 0.004, 0.03, 0.12])
def test_sigint_at_any_moment_leaves_a_consistent_run(tmp_path, delay):
    proc, out = _start(tmp_path)
    _wait_until(proc, _running(out), "the run to start")  # handlers are set from here on
    time.sleep(delay * random.uniform(0.5, 1.5))
    proc.send_signal(signal.SIGINT)
    code, err = _finish(proc)
    assert code == 130, err
    assert "Traceback" not in err and "interrupted" in err
    s = _agree(out, "interrupted", PER_TICK, TABLES)
    assert [r["status"] for r in s["runs_status"]] == ["interrupted"] * RUNS
    assert {r["ticks_done"] for r in s["runs_status"]} == {s["ticks_done"]}


def test_double_sigint_and_sigterm(tmp_path):
    proc, out = _start(tmp_path)
    _wait_until(proc, _running(out, 1), "the first part")
    proc.send_signal(signal.SIGINT)
    time.sleep(0.001)
    proc.send_signal(signal.SIGINT)
    code, err = _finish(proc)
    # a second signal arriving once the command is exiting ends it by SIGINT: the same 130
    # for a shell, and the files are complete either way
    assert code in (130, -signal.SIGINT), err
    assert "Traceback" not in err
    _agree(out, "interrupted", PER_TICK, TABLES)

    proc, out = _start(tmp_path / "term")
    _wait_until(proc, _running(out, 1), "the first part")
    proc.send_signal(signal.SIGTERM)
    code, err = _finish(proc)
    assert code == 143, err
    s = _agree(out, "interrupted", PER_TICK, TABLES)
    assert s["signal"] == "SIGTERM"


def test_sigkill_leaves_complete_parts_and_a_dead_heartbeat(tmp_path):
    proc, out = _start(tmp_path)
    live = _wait_until(proc, _running(out, 30), "a few parts")
    assert live["pid"] == proc.pid and live["host"] == socket.gethostname()
    assert run_alive(live) is True
    with pytest.raises(OutputFolderError, match="may still be running"):
        prepare_output(out, overwrite=True)  # a live run is never removed
    proc.kill()
    proc.communicate(timeout=TIMEOUT)
    s = read_summary(out)
    assert s["status"] == "running" and s["pid"] == proc.pid and s["ticks_done"] >= 30
    assert run_alive(s) is False
    for folder in TABLES:  # only complete parts are visible, and they read as one table
        t = read_table(out / folder)
        assert t["tick"].min() == 0 and t["tick"].max() >= 0
        counts = np.bincount(t["tick"])
        assert (counts == counts[0]).all()  # no tick half written
    with pytest.raises(OutputFolderError, match="already holds a run"):
        prepare_output(out)
    prepare_output(out, overwrite=True)  # the run is dead: it may be replaced
    assert list(out.iterdir()) == []


@pytest.mark.parametrize("language, text", [
    ("buzz", "function init() { steps = 0 }\nfunction step() { steps = steps + 1 }\n"),
    ("lua", "function init() steps = 0 end\nfunction step() steps = steps + 1 end\n")])
def test_a_stopped_runs_script_robots_no_longer_step(tmp_path, language, text):
    script = tmp_path / f"count.{'bzz' if language == 'buzz' else 'lua'}"
    script.write_text(text)
    cfg = parse_experiment({
        "simulation": {"ticks": 50}, "arena": {"size": [1.0, 1.0]},
        "robots": [{"name": "b", "count": 2, "controller": {language: str(script)}}]})
    sim = Simulation(cfg, runs=2, isolate_runs=True, base_dir=tmp_path)
    sim.start()
    sim.run(4)
    ctrl = sim.group("b").controllers[0]
    run = sim.world.bodies.run[sim.group("b").slice.slice]
    sim.stop_run(0)
    before = [ctrl.get_global(k, "steps") for k in range(4)]
    sim.run(3)
    after = [ctrl.get_global(k, "steps") for k in range(4)]
    assert [a - b for a, b, r in zip(after, before, run) if r == 0] == [0, 0]
    assert [a - b for a, b, r in zip(after, before, run) if r == 1] == [3, 3]
    sim.reset()
    assert sim.group("b").controllers[0].paused is None
