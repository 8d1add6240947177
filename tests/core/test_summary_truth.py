"""`summary.json` never claims more than the data on disk.

Whatever the ending — completed, a controller error, SIGKILL at any moment, a write that fails
because the disk is full, memory that runs out — every logged tick up to a run's ``ticks_done``
has all its rows in the Parquet parts, every file the summary lists exists and reads, and the
status says ``completed`` only for a run that was. A run whose heartbeat is stale is dead,
whatever process now has its id.
"""

import errno
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from swarmstack import Controller
from swarmstack.cli import app
from swarmstack.experiments import results_writer as results
from swarmstack.experiments import runner as run_module
from swarmstack.experiments.config import parse_experiment
from swarmstack.experiments.results_writer import prepare_output, read_summary, read_table, run_alive
from swarmstack.experiments.runner import run_experiment
from swarmstack.cli.process import host_name

cli = CliRunner()
HERE = __name__  # as pytest imported it: a controller of this module is not imported twice
TIMEOUT = 90  # generous: a loaded machine may be slow to start Python and load the kernels
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="/proc and Linux resource limits")

EXP = """
[simulation]
ticks = {ticks}
seed = 3

[arena]
size = [1.2, 1.2]
walls = true

[[robots]]
name = "e"
count = {count}
controller = {{ python = "{ctrl}" }}
sensors = {{ proximity = true, encoders = true }}

[output]
sensors = ["encoders"]
{chunk}
"""


def _exp(folder: Path, ctrl="tests.core.controllers:Spin", ticks=60, count=4,
         chunk_ticks=10) -> Path:
    path = folder / "exp.toml"
    chunk = "" if chunk_ticks is None else f"chunk_ticks = {chunk_ticks}"
    path.write_text(EXP.format(ticks=ticks, count=count, ctrl=ctrl, chunk=chunk))
    return path


# ------------------------------------------------------------------ what "agrees" means
def _agrees(out: Path, s: dict) -> dict:
    """Assert that summary ``s`` of the run in ``out`` claims nothing the files do not hold."""
    out = Path(out)
    for name in s.get("files", []):
        assert (out / name).is_file(), f"{name} is listed but missing"
        if name.endswith(".parquet"):
            duckdb.sql(f"SELECT count(*) FROM read_parquet('{out / name}')").fetchall()
    cfg = s["config"]
    every = cfg["output"]["every"]
    counts = {g["name"]: g["count"] for g in cfg["robots"]}
    tables = [(out / "trajectories", s["robots"])] if cfg["output"]["trajectories"] else []
    tables += [(folder, counts[folder.name]) for folder in sorted((out / "sensors").glob("*"))]
    entries = s.get("runs_status") or [{"run": r, "ticks_done": s["ticks_done"]}
                                       for r in range(s["runs"])]
    assert s["ticks_done"] == max(e["ticks_done"] for e in entries)
    for folder, per_tick in tables:
        has_parts = any(folder.glob("*.parquet"))
        t = read_table(folder) if has_parts else None
        for e in entries:
            n = e["ticks_done"]
            if t is None:
                assert n == 0, f"{folder.name}: no part, yet run {e['run']} ticks_done {n}"
                continue
            ticks = t["tick"][(t["run"] == e["run"]) & (t["tick"] <= n)]
            logged, rows = np.unique(ticks, return_counts=True)
            assert logged.tolist() == list(range(0, n + 1, every)), \
                f"{folder.name}: run {e['run']} ticks_done {n}, ticks on disk {logged.tolist()}"
            assert (rows == per_tick).all(), folder.name
    if s["status"] == "completed":
        assert all(e["ticks_done"] == s["ticks"] for e in entries)
    return s


def _hidden(out: Path) -> list[str]:
    """Temporary files (and anything else hidden) left in the results folder."""
    return sorted(str(p.relative_to(out)) for p in Path(out).rglob(".*"))


# ------------------------------------------------------------------ the heartbeat
class Watch(Controller):
    """Robot 0 of run 0 checks, before each of its steps, that the heartbeat of the run it is
    part of agrees with the parts on disk; a disagreement fails its run."""

    def init(self, robot, params):
        self.out = Path(params["out"])

    def step(self, robot):
        if robot.id == 0 and robot.run == 0:
            s = read_summary(self.out)
            assert s["status"] == "running"
            _agrees(self.out, s)
        robot.set_wheels(0.05, -0.04)


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunk_ticks=st.one_of(st.none(), st.integers(1, 25)), every=st.integers(1, 3),
       runs=st.integers(1, 2))
def test_heartbeat_counts_ticks_written_not_ticks_simulated(tmp_path_factory, monkeypatch,
                                                            chunk_ticks, every, runs):
    monkeypatch.setattr(run_module, "HEARTBEAT_S", 0.0)  # a heartbeat after every tick
    out = tmp_path_factory.mktemp("hb") / "out"
    cfg = parse_experiment({
        "simulation": {"ticks": 30}, "arena": {"size": [1.2, 1.2]},
        "robots": [{"name": "e", "count": 3, "sensors": {"encoders": True},
                    "controller": {"python": f"{HERE}:Watch", "params": {"out": str(out)}}}],
        "output": {"sensors": ["encoders"], "chunk_ticks": chunk_ticks, "every": every}})
    summary = run_experiment(cfg, out, runs=runs)
    assert summary["status"] == "completed", (summary.get("error") or {}).get("traceback")
    _agrees(out, read_summary(out))


# ------------------------------------------------------------------ runs in a new process
SUB_CTRL = """
import resource

from swarmstack import Controller


class Spin(Controller):
    def step(self, robot):
        robot.set_wheels(0.05, -0.04)


class Hog(Controller):
    \"\"\"From tick 20 the process may grow by 64 MB more; run 0's robots take all of it.\"\"\"

    def init(self, robot, params):
        self.hog = []

    def step(self, robot):
        if robot.tick == 20 and robot.run == 0 and robot.id == 0:
            with open("/proc/self/statm") as fh:
                size = int(fh.read().split()[0]) * resource.getpagesize()
            limit = size + (64 << 20)
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))
        if robot.tick >= 20 and robot.run == 0:
            while True:
                self.hog.append(bytearray(1 << 16))
        robot.set_wheels(0.05, -0.04)
"""


def _sub_exp(folder: Path, ctrl: str = "Spin", **kw) -> Path:
    """An experiment for a new process: its controllers in a file beside it."""
    (folder / "ctrl.py").write_text(SUB_CTRL)
    return _exp(folder, ctrl=f"ctrl.py:{ctrl}", **kw)


def _cli(*prefix: str) -> list[str]:
    """``swarmstack`` in a new Python, after the statements ``prefix`` (limits, settings)."""
    code = "; ".join([*prefix, "from swarmstack.cli import main", "main()"])
    return [sys.executable, "-c", code]


def _wait_for_summary(proc, out: Path) -> None:
    deadline = time.monotonic() + TIMEOUT
    while read_summary(out) is None:
        if proc.poll() is not None:
            raise AssertionError(f"exited ({proc.returncode}): {proc.stderr.read()}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("the run did not start")
        time.sleep(0.005)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chunk_ticks=st.sampled_from([1, 7, 60, 500, None]), runs=st.integers(1, 2),
       delay=st.floats(0.0, 1.5))
def test_sigkill_at_any_moment_leaves_a_summary_that_agrees(tmp_path_factory, chunk_ticks,
                                                           runs, delay):
    folder = tmp_path_factory.mktemp("kill")
    out = folder / "out"
    path = _sub_exp(folder, ticks=1_000_000, count=5, chunk_ticks=chunk_ticks)
    # heartbeats every 20 ms instead of 5 s: a short run goes through many of them
    cmd = _cli("from swarmstack.experiments import runner", "runner.HEARTBEAT_S = 0.02")
    proc = subprocess.Popen(cmd + ["run", str(path), "--out", str(out), "--quiet",
                                   "--runs", str(runs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for_summary(proc, out)
        time.sleep(delay)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=TIMEOUT)
    s = read_summary(out)
    assert s["status"] == "running" and s["pid"] == proc.pid
    _agrees(out, s)
    assert run_alive(s) is False
    prepare_output(out, overwrite=True)  # everything it left, hidden files too, is the run's
    assert list(out.iterdir()) == []


# ------------------------------------------------------------------ a disk that fills up
class FullDisk:
    """The results folder on a disk that fills up when the ``at``-th Parquet part is renamed
    into place: ``before`` — that part does not fit; ``after`` — it fits, nothing more does.

    Once full, writing into the folder (``os.write``) fails with ENOSPC when it would take the
    folder's files past the size they had then, and so does renaming a file into place while
    they are past it (what was written where this disk cannot see it: DuckDB's own writes).
    Deleting files makes room again."""

    def __init__(self, folder: Path, at: int, when: str, monkeypatch):
        self.folder = str(folder) + os.sep
        self.at, self.when = at, when
        self.parts = 0
        self.capacity = None
        self._write, self._replace = os.write, os.replace
        monkeypatch.setattr(os, "write", self.write)
        monkeypatch.setattr(os, "replace", self.replace)

    def used(self) -> int:
        return sum(os.path.getsize(os.path.join(d, f))
                   for d, _, files in os.walk(self.folder) for f in files)

    def _full(self):
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write(self, fd, data):
        if self.capacity is not None and \
                os.readlink(f"/proc/self/fd/{fd}").startswith(self.folder):
            grows = max(0, os.lseek(fd, 0, os.SEEK_CUR) + len(data) - os.fstat(fd).st_size)
            if self.used() + grows > self.capacity:
                raise self._full()
        return self._write(fd, data)

    def replace(self, src, dst, **kw):
        if str(src).startswith(self.folder):
            if str(dst).endswith(".parquet") and self.capacity is None:
                self.parts += 1
                if self.parts == self.at and self.when == "before":
                    self.capacity = self.used() - os.path.getsize(src)
            if self.capacity is not None and self.used() > self.capacity:
                raise self._full()
        self._replace(src, dst, **kw)
        if self.parts == self.at and self.when == "after" and self.capacity is None:
            self.capacity = self.used()


@linux_only
@pytest.mark.parametrize("record", [False, True])
@pytest.mark.parametrize("when", ["before", "after"])
def test_a_full_disk_ends_the_run_failed_with_what_was_written_counted(tmp_path, monkeypatch,
                                                                       when, record):
    out = tmp_path / "out"
    FullDisk(out, at=3, when=when, monkeypatch=monkeypatch)  # the second round of two tables
    args = ["run", str(_exp(tmp_path)), "--out", str(out), "--quiet"]
    result = cli.invoke(app, args + (["--record"] if record else []))
    assert result.exit_code == 1
    assert result.stdout == ""
    failed = "summary.json" if when == "after" else "trajectories/part-00001.parquet"
    assert result.stderr.splitlines() == [
        f"error: cannot write {out}/{failed}: No space left on device"]
    s = _agrees(out, read_summary(out))
    assert s["status"] == "failed"
    assert s["error"]["path"] == f"{out}/{failed}"
    assert s["error"]["cause"] == "No space left on device"
    assert s["ticks_done"] == (19 if when == "after" else 9)  # the data written, counted
    assert _hidden(out) == []


@linux_only
@pytest.mark.parametrize("record", [False, True])
def test_a_file_size_limit_is_one_line_naming_the_file(tmp_path, record):
    """Past ``RLIMIT_FSIZE`` every write fails with EFBIG — DuckDB's as well as Python's —
    through the whole command."""
    out = tmp_path / "out"
    path = _sub_exp(tmp_path, ticks=2500, count=6, chunk_ticks=1000)
    cmd = _cli("import resource, signal", "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)",
               "resource.setrlimit(resource.RLIMIT_FSIZE, (48 << 10, resource.RLIM_INFINITY))")
    proc = subprocess.run(cmd + ["run", str(path), "--out", str(out), "--quiet"]
                          + (["--record"] if record else []),
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 1, proc.stderr
    assert re.fullmatch(rf"error: cannot write {re.escape(str(out))}/\S+: File too large\n",
                        proc.stderr), proc.stderr
    s = _agrees(out, read_summary(out))
    assert s["status"] == "failed" and s["error"]["cause"] == "File too large"
    assert _hidden(out) == []


# ------------------------------------------------------------------ memory that runs out
def test_memory_running_out_while_a_tick_is_logged(tmp_path, monkeypatch):
    """Out of memory between the trajectories and the sensors of tick 23: no table keeps part
    of that tick, and the run ends failed with ticks 0-22 written and counted."""
    add = results.TickBuffer.add

    def short_of_memory(self, tick, values, keep=None, fresh=False):
        if tick == 23 and "group_index" not in self.static:  # a sensor table
            raise MemoryError()
        return add(self, tick, values, keep, fresh)

    monkeypatch.setattr(results.TickBuffer, "add", short_of_memory)
    out = tmp_path / "out"
    result = cli.invoke(app, ["run", str(_exp(tmp_path)), "--out", str(out), "--quiet"])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: out of memory: the data written before is in {out}/ (summary.json: status "
        "failed)"]
    s = _agrees(out, read_summary(out))
    assert s["status"] == "failed" and s["ticks_done"] == 22
    assert read_table(out / "trajectories")["tick"].max() == 22


@linux_only
def test_a_controller_eating_all_memory_loses_no_data(tmp_path):
    out = tmp_path / "out"
    path = _sub_exp(tmp_path, "Hog", ticks=200, chunk_ticks=None)  # one part, at the end
    proc = subprocess.run(_cli() + ["run", str(path), "--out", str(out), "--quiet",
                                    "--runs", "2"],
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 1, proc.stderr
    assert "ImportError" not in proc.stderr
    s = _agrees(out, read_summary(out))
    assert s["status"] == "failed"
    assert s["runs_status"][0]["status"] == "failed"
    assert s["runs_status"][0]["ticks_done"] == 20
    t = read_table(out / "trajectories")
    assert t["tick"][t["run"] == 0].max() == 20
    assert _hidden(out) == []


# ------------------------------------------------------------------ whose process is it
def _heartbeat(age_s: float) -> dict:
    """A run that says it is running in this very process, its heartbeat ``age_s`` old."""
    now = datetime.now(timezone.utc)
    return {"status": "running", "pid": os.getpid(), "host": host_name(),
            "started_at": (now - timedelta(seconds=age_s + 60)).isoformat(),
            "updated_at": (now - timedelta(seconds=age_s)).isoformat()}


@given(age_s=st.one_of(st.floats(0.0, 590.0), st.floats(610.0, 1e8)))
def test_a_stale_heartbeat_is_a_dead_run_whatever_process_has_its_id(age_s):
    assert run_alive(_heartbeat(age_s)) is (age_s < 600.0)


def test_overwrite_replaces_a_dead_run_whose_process_id_was_reused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    results.write_json_atomic(out / "summary.json", _heartbeat(3600.0))
    prepare_output(out, overwrite=True)
    assert list(out.iterdir()) == []
