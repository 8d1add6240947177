"""Faults in designs, through the command: a budget too small to race is one line, a killed
worker is replaced and the design goes on, a batch past its time budget ends the design with
one line and --resume continues it."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMAND = [sys.executable, "-c", "from swarmstack.cli import main; main()", "design"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def design(*args, timeout=300):
    """``swarmstack design`` in a subprocess (``timeout`` only keeps a hang from hanging the
    tests)."""
    return subprocess.run([*COMMAND, *args, "--quiet"], capture_output=True, text=True,
                          env=ENV, cwd=ROOT, timeout=timeout)


def test_a_budget_too_small_to_race_is_one_line(tmp_path):
    p = design("aggregation", "--budget", "40", "--seed", "1", "--out", str(tmp_path / "d"))
    assert p.returncode == 1
    assert p.stderr.strip().splitlines() == [
        "--budget 40: a race of this mission's PFSMs needs at least 50 runs"], p.stderr
    assert not (tmp_path / "d").exists()   # refused before anything was made


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_batch_past_its_time_budget_ends_the_design_in_one_line(tmp_path, workers):
    out = tmp_path / "d"
    p = design("aggregation", "--budget", "50", "--seed", "1", "--out", str(out),
               "--workers", workers, "--timeout", "0.01")
    assert p.returncode == 1, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert lines[0].startswith("error: a batch of ") and "(--timeout)" in lines[0]
    assert "--resume continues" in lines[0]
    # the design can be continued with a budget that fits
    again = design("aggregation", "--budget", "50", "--seed", "1", "--out", str(out),
                   "--fresh-seeds", "2", "--resume")
    assert again.returncode == 0, again.stderr
    assert (out / "best.txt").is_file()


def _children(pid: int) -> list:
    """Processes forked by ``pid`` (its command line: not a helper it started)."""
    me = Path(f"/proc/{pid}/cmdline").read_bytes()
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == pid and (entry / "cmdline").read_bytes() == me:
                out.append(int(entry.name))
        except OSError:
            continue
    return out


def test_a_killed_worker_is_replaced_and_the_design_goes_on(tmp_path):
    out = tmp_path / "d"
    proc = subprocess.Popen([*COMMAND, "aggregation", "--budget", "150", "--seed", "2",
                             "--out", str(out), "--workers", "2", "--fresh-seeds", "2",
                             "--quiet"], env=ENV, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120   # a bound against hanging only
        # the design has begun (its ledger) and both workers are up
        while not ((out / "ledger.sqlite").is_file() and len(_children(proc.pid)) == 2):
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline
            time.sleep(0.05)
        victim = _children(proc.pid)[0]
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert "Traceback" not in stderr
    assert (out / "best.txt").is_file() and "best PFSM:" in stdout
