"""A run's wall-clock budget (``simulation.timeout``): a run that hangs — in a per-robot
Python controller, a batched one or a Buzz script — is stopped ``failed: timeout``, the other
runs of its batch go on, ``swarmstack run`` says so in one line and exits 1, and nothing of
the watchdog stays installed after the run."""

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from swarmstack.experiments.config import ConfigError, parse_experiment

ROOT = Path(__file__).resolve().parents[2]

CONTROLLERS = '''
from swarmstack import BatchedController, Controller


class HangInRun1(Controller):
    """Forward; the robots of run 1 loop for ever from tick 3 on."""

    def step(self, robot):
        if robot.run == 1 and robot.tick >= 3:
            while True:
                pass
        robot.set_wheels(0.05, 0.05)


class SwallowsAndHangs(Controller):
    """Run 1 hangs and holds back every Exception raised in it."""

    def step(self, robot):
        while robot.run == 1 and robot.tick >= 3:
            try:
                while True:
                    pass
            except Exception:
                pass
        robot.set_wheels(0.05, 0.05)


class BatchedHang(BatchedController):
    def step(self, group):
        while group.tick >= 2:
            pass
        group.wheels[:] = 0.05
'''

HANG_BZZ = """
function init() {
}
function step() {
  var i = 0
  while (1) {
    i = i + 1
  }
}
"""

EXPERIMENT = """
[simulation]
ticks_per_second = 10
ticks = 20
{timeout}

[arena]
size = [1.0, 1.0]

[[robots]]
name = "bots"
type = "epuck2"
count = 2
controller = {{ {controller} }}
"""


def experiment(folder: Path, controller: str, timeout="timeout = 1.5") -> Path:
    (folder / "ctl.py").write_text(CONTROLLERS)
    (folder / "hang.bzz").write_text(HANG_BZZ)
    path = folder / "exp.toml"
    path.write_text(EXPERIMENT.format(timeout=timeout, controller=controller))
    return path


def run(path: Path, out: Path, *args):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # the subprocess timeout only keeps a hang from hanging the tests
    return subprocess.run([sys.executable, "-c", "from swarmstack.cli import main; main()",
                           "run", str(path), "--out", str(out), "--quiet", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)


def test_a_hanging_controller_stops_its_run_only_and_the_command_says_so_in_one_line(
        tmp_path):
    out = tmp_path / "out"
    p = run(experiment(tmp_path, 'python = "ctl.py:HangInRun1"'), out, "--runs", "2")
    assert p.returncode == 1, p.stderr
    errors = [line for line in p.stderr.splitlines() if line.strip()]
    assert errors == [f"error: run 1 stopped: timeout: ran past its wall-clock budget of 1.5 s "
                      f"(simulation.timeout); data up to the stop is in {out}/ "
                      "(summary.json: status failed)"], p.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed"
    first, second = summary["runs_status"]
    assert first == {"run": 0, "status": "completed", "ticks_done": 20}
    assert second["status"] == "failed" and second["ticks_done"] == 3
    assert second["error"]["kind"] == "timeout" and second["error"]["robot"] == 0
    assert second["error"]["error"] == "timeout: ran past its wall-clock budget of 1.5 s"
    assert "while True" in second["error"]["traceback"]   # where it hung


@pytest.mark.parametrize("controller", ['python = "ctl.py:BatchedHang"',
                                        'buzz = "hang.bzz"',
                                        'python = "ctl.py:SwallowsAndHangs"'])
def test_a_hang_no_single_run_owns_stops_every_run_still_going(tmp_path, controller):
    out = tmp_path / "out"
    p = run(experiment(tmp_path, controller), out, "--runs", "2")
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed"
    kinds = {r["run"]: r["error"]["kind"] for r in summary["runs_status"]
             if r["status"] == "failed"}
    # (a controller that holds back the run's timeout: no run can be told from the others)
    assert kinds == {0: "timeout", 1: "timeout"}


def test_the_watchdog_leaves_signals_and_timers_as_they_were(tmp_path):
    from swarmstack.experiments.config import load_experiment
    from swarmstack.experiments.runner import run_experiment

    path = experiment(tmp_path, 'python = "ctl.py:HangInRun1"', timeout="timeout = 30")
    fired = []

    def mine(signum, frame):
        fired.append(signum)

    before = signal.signal(signal.SIGALRM, mine)
    signal.setitimer(signal.ITIMER_REAL, 1000.0)
    try:
        summary = run_experiment(load_experiment(path), tmp_path / "o", runs=1,
                                 base_dir=tmp_path, source=str(path))
        assert summary["status"] == "completed"
        assert signal.getsignal(signal.SIGALRM) is mine
        left, _ = signal.getitimer(signal.ITIMER_REAL)
        assert 900 < left <= 1000          # the caller's timer goes on
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, before)
    assert not fired


def test_importing_swarmstack_installs_no_handler():
    code = ("import signal; before = {s: signal.getsignal(s) for s in signal.valid_signals() "
            "if s not in (signal.SIGKILL, signal.SIGSTOP)}; "
            "import swarmstack, swarmstack.experiments.runner, swarmstack.studies.runner; "
            "after = {s: signal.getsignal(s) for s in before}; "
            "assert before == after, [s for s in before if before[s] != after[s]]; "
            "assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr


BASE = {"simulation": {"ticks": 3}, "arena": {"size": [1.0, 1.0]},
        "robots": [{"name": "bots", "type": "epuck2", "count": 1}]}


@settings(max_examples=40, deadline=None)
@given(st.floats(min_value=1e-3, max_value=1e6, allow_nan=False))
def test_a_positive_timeout_in_seconds_is_taken(seconds):
    cfg = parse_experiment({**BASE, "simulation": {"ticks": 3, "timeout": seconds}}, "t.toml")
    assert cfg.simulation.timeout == seconds


@settings(max_examples=40, deadline=None)
@given(st.one_of(st.floats(max_value=0.0, allow_nan=False), st.just("soon"), st.booleans()))
def test_a_timeout_that_is_not_a_positive_duration_is_a_one_line_error(value):
    with pytest.raises(ConfigError) as info:
        parse_experiment({**BASE, "simulation": {"ticks": 3, "timeout": value}}, "t.toml")
    assert len(info.value.problems) == 1
    assert "simulation.timeout" in info.value.problems[0]
    assert "\n" not in info.value.problems[0]


def test_a_timeout_with_a_unit():
    cfg = parse_experiment({**BASE, "simulation": {"ticks": 3, "timeout": "2 min"}}, "t.toml")
    assert cfg.simulation.timeout == 120.0
