"""Faults in sweeps, through the command as a user runs it: a run that hangs is ended by its
time budget and the others go on, a worker stuck where no signal reaches is killed and
replaced, a killed worker costs only its own batch, Ctrl-C to the sweep alone ends it, and
Ray gets the driver's paths and listens on loopback only."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.studies.conftest import ROOT

CONTROLLERS = '''
import signal
import time

from swarmstack import BatchedController, Controller


class Hang(Controller):
    """Forward; from tick 3 on, a run whose ``hang`` is true loops for ever in Python, or with
    SIGALRM blocked (``blocked``: where no signal reaches)."""

    def init(self, robot, params):
        self.hang = bool(params.get("hang", False))
        self.blocked = bool(params.get("blocked", False))

    def step(self, robot):
        if self.hang and robot.tick >= 3:
            if self.blocked:
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
            while True:
                pass
        robot.set_wheels(0.05, 0.05)


class Slow(BatchedController):
    """Forward, sleeping ``sleep_s`` a tick."""

    def init(self, group, params):
        self.sleep_s = float(params.get("sleep_s", 0.0))

    def step(self, group):
        time.sleep(self.sleep_s)
        group.wheels[:] = 0.05
'''

EXPERIMENT = """
[simulation]
ticks_per_second = 10
ticks = {ticks}
seed = 3

[arena]
size = [1.0, 1.0]
walls = true

[[robots]]
name = "bots"
type = "epuck2"
count = 2
controller = {{ python = "ctl.py:{controller}", params = {{ }} }}
"""

COMMAND = [sys.executable, "-c", "from swarmstack.cli import main; main()"]
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}


def write_experiment(folder: Path, controller="Hang", ticks=20) -> Path:
    (folder / "ctl.py").write_text(CONTROLLERS)
    path = folder / "exp.toml"
    path.write_text(EXPERIMENT.format(ticks=ticks, controller=controller))
    return path


def swarmstack(*args, cwd=ROOT, timeout=180):
    """The command in a subprocess; a generous ``timeout`` only keeps a hang from hanging
    the tests."""
    return subprocess.run([*COMMAND, *args], capture_output=True, text=True, env=ENV,
                          cwd=cwd, timeout=timeout)


def ledger(out: Path) -> dict:
    con = sqlite3.connect(out / "study.sqlite")
    try:
        return {rid: (status, attempts, json.loads(err) if err else None)
                for rid, status, attempts, err in con.execute(
                    "select run_id, status, attempts, error from runs order by idx")}
    finally:
        con.close()


def leftovers(out: Path) -> list:
    return sorted(p.name for p in (out / "runs").glob(".tmp-*"))


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_run_that_hangs_times_out_and_the_others_go_on(tmp_path, workers):
    path = write_experiment(tmp_path)
    out = tmp_path / "s"
    p = swarmstack("sweep", str(path), "--param", "robots.0.controller.params.hang=false,true",
                   "--seeds", "2", "--batch-runs", "4", "--workers", workers, "--timeout", "2",
                   "--out", str(out), "--quiet")
    assert p.returncode == 1, p.stderr
    assert "2 of 4 runs done, 2 failed" in p.stdout and "Traceback" not in p.stderr
    runs = ledger(out)
    # runs 0 and 1 (hang = false) shared their batch with the two that hung: they ran to the end
    assert [runs[r][0] for r in sorted(runs)] == ["done", "done", "failed", "failed"]
    for rid in ("r000002", "r000003"):
        assert runs[rid][2]["type"] == "timeout"
        assert runs[rid][2]["message"] == "timeout: ran past its wall-clock budget of 2 s"
        assert f"failed: {rid}: timeout: ran past its wall-clock budget of 2 s" in p.stderr
        summary = json.loads((out / "runs" / rid / "summary.json").read_text())
        assert summary["status"] == "failed" and summary["error"]["type"] == "timeout"
        assert summary["ticks_done"] == 3
    done = json.loads((out / "runs" / "r000000" / "summary.json").read_text())
    assert done["status"] == "completed" and done["ticks_done"] == 20
    assert not leftovers(out)


def test_a_worker_stuck_where_no_signal_reaches_is_killed_and_replaced(tmp_path):
    path = write_experiment(tmp_path)
    out = tmp_path / "s"
    p = swarmstack("sweep", str(path), "--param", "robots.0.controller.params.hang=false,true",
                   "--param", "robots.0.controller.params.blocked=true", "--seeds", "2",
                   "--batch-runs", "1", "--workers", "2", "--timeout", "1", "--out", str(out),
                   "--quiet")
    assert p.returncode == 1, p.stderr
    assert "2 of 4 runs done, 2 failed" in p.stdout and "Traceback" not in p.stderr
    runs = ledger(out)
    assert [runs[r][0] for r in sorted(runs)] == ["done", "done", "failed", "failed"]
    for rid in ("r000002", "r000003"):
        status, attempts, err = runs[rid]
        assert err["type"] == "timeout" and attempts == 1, err
        assert "did not answer" in err["message"]
    assert not leftovers(out)


def _wait_for(proc, condition, what: str, limit_s: float = 120.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert proc.poll() is None, f"the sweep ended before {what}: {proc.stderr.read()}"
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.02)


def _pids_writing(out: Path) -> set:
    """The worker processes with a run in progress (``.tmp-<run>-<pid>-<token>``)."""
    return {int(name.split("-")[2]) for name in leftovers(out)}


def test_a_killed_worker_costs_its_own_batch_only_and_leaves_no_partial_folder(tmp_path):
    path = write_experiment(tmp_path, controller="Slow", ticks=12)
    out = tmp_path / "s"
    proc = subprocess.Popen([*COMMAND, "sweep", str(path), "--param",
                             "robots.0.controller.params.sleep_s=0.1", "--seeds", "6",
                             "--batch-runs", "1", "--workers", "2", "--out", str(out),
                             "--quiet"], env=ENV, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(proc, lambda: (out / "runs").is_dir() and len(_pids_writing(out)) == 2,
                  "both workers inside a run")
        victim = min(_pids_writing(out))
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        proc.kill()
    assert proc.returncode == 0, stderr
    assert "6 of 6 runs done, 0 failed" in stdout
    attempts = sorted(a for _, a, _ in ledger(out).values())
    assert attempts == [1, 1, 1, 1, 1, 2]      # the victim's run only was run again
    assert not leftovers(out)                   # nothing half written waits for a --resume


def test_ctrl_c_to_the_sweep_alone_ends_it_and_resume_finishes_it(tmp_path):
    path = write_experiment(tmp_path)
    out = tmp_path / "s"
    proc = subprocess.Popen([*COMMAND, "sweep", str(path), "--param",
                             "robots.0.controller.params.hang=false,true", "--batch-runs", "1",
                             "--workers", "2", "--out", str(out), "--quiet"],
                            env=ENV, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        # run 0 done, run 1 hung (no --timeout: the default budget is an hour)
        _wait_for(proc, lambda: (out / "runs" / "r000000").is_dir() and _pids_writing(out),
                  "a run done and the other hung")
        hung = _pids_writing(out)
        proc.send_signal(signal.SIGINT)      # to the sweep process alone, not its group
        stdout, stderr = proc.communicate(timeout=60)   # a bound against hanging (a worker may be compiling), not a speed
    finally:
        proc.kill()
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    for pid in hung:   # the worker is gone (not even a zombie: it was waited for)
        assert not Path(f"/proc/{pid}").exists()
    assert not leftovers(out)
    assert {r: s for r, (s, _, _) in ledger(out).items()} == {"r000000": "done",
                                                               "r000001": "planned"}
    p = swarmstack("sweep", "--resume", "--out", str(out), "--timeout", "1", "--quiet")
    assert p.returncode == 1 and "1 of 2 runs done, 1 failed (1 run now)" in p.stdout
    assert ledger(out)["r000001"][2]["type"] == "timeout"


def _listening_sockets() -> dict:
    """inode → (address, port) of every listening TCP socket on this machine."""
    out = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A":   # LISTEN
                addr, port = fields[1].split(":")
                out[fields[9]] = (addr, int(port, 16))
    return out


def _descendants(root: int) -> set:
    children: dict = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    seen, todo = set(), [root]
    while todo:
        pid = todo.pop()
        seen.add(pid)
        todo += children.get(pid, [])
    return seen


def _listening_of(pids: set) -> set:
    sockets = _listening_sockets()
    found = set()
    for pid in pids:
        try:
            fds = list(Path(f"/proc/{pid}/fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in sockets:
                found.add(sockets[target[8:-1]][0])
    return found


LOOPBACK = {"0100007F",                                  # 127.0.0.1
            "0000000000000000FFFF00000100007F",          # ::ffff:127.0.0.1
            "00000000000000000000000001000000"}          # ::1


def test_ray_local_listens_on_loopback_and_writes_where_the_driver_said(tmp_path):
    pytest.importorskip("ray")
    write_experiment(tmp_path)
    env = {k: v for k, v in ENV.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"}
    # relative paths, from the folder the command is run in
    proc = subprocess.Popen([*COMMAND, "sweep", "exp.toml", "--param",
                             "robots.0.controller.params.hang=false,true", "--batch-runs", "1",
                             "--ray", "local", "--timeout", "5", "--out", "rel", "--quiet"],
                            env=env, cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    out = tmp_path / "rel"
    try:
        # the hanging run keeps Ray busy for its 5 s: look at what Ray listens on meanwhile
        _wait_for(proc, lambda: (out / "runs").is_dir() and _pids_writing(out), "a run started")
        addresses = _listening_of(_descendants(proc.pid))
        stdout, stderr = proc.communicate(timeout=180)
    finally:
        proc.kill()
    assert addresses and addresses <= LOOPBACK, addresses
    assert proc.returncode == 1, stderr
    assert "1 of 2 runs done, 1 failed" in stdout
    runs = ledger(out)
    assert runs["r000001"][2]["type"] == "timeout"
    # the runs are in the driver's folder, where the ledger and the catalogue are
    for rid in ("r000000", "r000001"):
        assert json.loads((out / "runs" / rid / "summary.json").read_text())["run_id"] == rid
    p = swarmstack("results", "rel", "select count(*) as n from trajectories where "
                   "run_id = 'r000000'", "--csv", cwd=tmp_path)
    assert p.returncode == 0 and p.stdout.split() == ["n", str(2 * 21)], p.stdout


def test_ray_workers_in_another_folder_write_into_the_drivers(tmp_path, monkeypatch):
    """Ray's workers run in a folder of their own (here a ``working_dir``, as on another
    machine): a relative --out and experiment folder still mean the driver's."""
    pytest.importorskip("ray")
    from swarmstack.studies.executors import RayExecutor
    from swarmstack.studies.plan import make_study, read_experiment
    from swarmstack.studies.runner import run_study

    write_experiment(tmp_path, controller="Slow", ticks=5)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(ROOT))   # the workers import this tree
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    spec = make_study(read_experiment(Path("exp.toml")), "exp.toml", Path("."), [], seeds=2)
    ex = RayExecutor("local", runtime_env={"working_dir": str(elsewhere)})
    try:
        out = run_study(spec, Path("rel"), executor=ex, batch_runs=1, progress=False)
    finally:
        ex.shutdown()
    assert out.ok and out.done == 2, out.failures
    for rid in ("r000000", "r000001"):
        assert (tmp_path / "rel" / "runs" / rid / "summary.json").is_file()
