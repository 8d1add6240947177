"""Run a study into its folder, resumably.

The study folder holds the ledger (``study.sqlite``), a lock held while a driver runs it
(``study.lock``) and one folder per run (``runs/r000000/`` …). The driver plans the pending
runs into batches, keeps the executor's workers busy with a few batches each, and records
each batch's runs in the ledger as its future resolves. Killed at any point, it leaves runs
marked ``running`` that the next driver plans again (their unfinished folders, still under
temporary names, are removed); finished runs are never run twice.

A batch that raised or whose worker died is tried again (up to ``max_attempts`` per run; a
dead local worker costs only its own batch, and its half-written folders are removed at once);
a run whose controller failed is recorded ``failed`` with its error and the sweep goes on —
unless ``strict``, which stops handing out batches at the first failure.

Each run has a wall-clock budget (``timeout_s``; default: the file's ``simulation.timeout``,
else :data:`DEFAULT_TIMEOUT_S`): a run past it is recorded ``failed`` with an error of type
``timeout`` (``experiments.watchdog``), and a local worker stuck past it where no signal
reaches is killed and replaced (``executors.WorkerPool``), its batch's runs recorded the same.
Interrupted (Ctrl-C), the driver kills its local workers at once; what they were running is
planned again.

Paths are resolved here, on the driver: workers (Ray's nodes too) get the study folder and
the experiment's folder as absolute paths, and a Ray cluster whose nodes do not see them as
this machine does is refused.
"""

from __future__ import annotations

import fcntl
import os
import time
import shutil
from concurrent.futures import FIRST_COMPLETED, Executor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from swarmstack.experiments.config import parse_experiment
from swarmstack.studies.batch import RUNS_DIR, BatchTask, run_batch
from swarmstack.studies.executors import (RayExecutor, WorkerDied, WorkerTimedOut,
                                          executor_workers, make_executor)
from swarmstack.studies.ledger import LEDGER, Ledger
from swarmstack.studies.plan import StudySpec, batches, plan_runs
from swarmstack.studies.progress import SweepProgress

LOCK = "study.lock"
MAX_ATTEMPTS = 3
DEFAULT_TIMEOUT_S = 3600.0   # a run's wall-clock budget unless the file or the caller says
IN_FLIGHT_PER_WORKER = 2


class StudyError(Exception):
    """The study cannot run in that folder (busy, another study, foreign files)."""


@dataclass
class StudyOutcome:
    out_dir: Path
    total: int
    done: int
    failed: int
    ran: int                 # runs this call ran
    stopped: bool = False    # strict: stopped at a failure
    failures: list[dict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.failed == 0 and self.done == self.total


def _lock(out_dir: Path):
    fh = open(out_dir / LOCK, "a+")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        fh.close()
        raise StudyError(f"{out_dir}: another sweep is running in this folder") from None
    return fh


def _check_folder(out_dir: Path) -> None:
    """A new study goes into a new or empty folder (or one with only a lock left)."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise StudyError(f"{out_dir} is a file, not a folder")
    foreign = sorted(p.name for p in out_dir.iterdir()
                     if p.name not in (LOCK, LEDGER, f"{LEDGER}-wal", f"{LEDGER}-shm",
                                       RUNS_DIR))
    if foreign:
        raise StudyError(f"{out_dir} holds files that are not a study's "
                         f"({', '.join(foreign[:5])}): choose an empty or new folder")


def load_spec(out_dir: Path) -> StudySpec:
    """The study recorded in ``out_dir`` (for ``--resume`` without the experiment file)."""
    if not Ledger.exists(out_dir):
        raise StudyError(f"{out_dir}: no study to resume (no {LEDGER})")
    led = Ledger(Path(out_dir) / LEDGER)
    try:
        ident = led.identity()
        source = led.get("source") or "<experiment>"
    finally:
        led.close()
    if ident is None:
        raise StudyError(f"{out_dir}: the study was never planned; run the sweep again")
    return StudySpec.from_identity(ident, source)


def run_study(spec: StudySpec, out_dir: Path, *, workers: Optional[int] = None,
              ray: Optional[str] = None, executor: Optional[Executor] = None,
              strict: bool = False, batch_runs: Optional[int] = None,
              progress: bool = True, max_attempts: int = MAX_ATTEMPTS,
              timeout_s: Optional[float] = None,
              on_batch: Optional[Callable[[list[dict]], None]] = None) -> StudyOutcome:
    """Run (or continue) ``spec`` in ``out_dir``. ``executor`` (any concurrent.futures
    Executor) overrides ``workers``/``ray``; it is not shut down here. ``timeout_s``: each
    run's wall-clock budget (default: the file's ``simulation.timeout``, else
    :data:`DEFAULT_TIMEOUT_S`; 0: none)."""
    out_dir = Path(os.path.abspath(out_dir))   # the driver's folder, wherever workers run
    if timeout_s is None:
        timeout_s = parse_experiment(spec.data, spec.source).simulation.timeout
    if timeout_s is None:
        timeout_s = DEFAULT_TIMEOUT_S
    timeout_s = float(timeout_s) or None
    if not Ledger.exists(out_dir):
        _check_folder(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    lock = _lock(out_dir)
    led = Ledger(out_dir / LEDGER)
    owned = executor is None
    t0 = time.perf_counter()
    try:
        planned = plan_runs(spec)
        if led.identity() is None:
            led.create(spec.identity(), spec.source, planned)
        else:
            led.check_same(spec.identity())
            led.recover()
        runs_dir = out_dir / RUNS_DIR
        if runs_dir.is_dir():   # what killed workers or drivers left half written
            for p in runs_dir.iterdir():
                if p.name.startswith(".tmp-"):
                    shutil.rmtree(p, ignore_errors=True)
        if owned:
            executor = make_executor(workers, ray)
        try:
            if isinstance(executor, RayExecutor):
                _check_reach(executor, out_dir, spec)
        except BaseException:
            if owned:
                executor.shutdown(wait=False)
            raise
        return _drive(spec, out_dir, led, executor, owned, planned, strict, batch_runs,
                      progress, max_attempts, timeout_s, on_batch)
    finally:
        try:
            if led.identity() is not None:
                led.add_elapsed(time.perf_counter() - t0)
        finally:
            led.close()
            lock.close()


def _check_reach(executor: RayExecutor, out_dir: Path, spec: StudySpec) -> None:
    """Every node of the cluster must see the study folder and the experiment's folder."""
    bad = executor.unreachable(str(out_dir), os.path.abspath(spec.base_dir))
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise StudyError(f"Ray node {bad[0]}{more}: put --out and the experiment on a file "
                         "system every node shares, at the same path")


def _remove_partial(out_dir: Path, pid: int) -> None:
    """The run folders a dead worker ``pid`` left half written (``.tmp-<run>-<pid>-…``)."""
    for p in (out_dir / RUNS_DIR).glob(f".tmp-*-{pid}-*"):
        shutil.rmtree(p, ignore_errors=True)


def _robot_ticks(spec: StudySpec, batch) -> float:
    cfg = parse_experiment(batch.data, spec.source)
    ticks = cfg.simulation.total_ticks if spec.ticks is None else spec.ticks
    return float(sum(g.n for g in cfg.robots) * ticks)


def _drive(spec, out_dir, led: Ledger, executor, owned, planned, strict, batch_runs, progress,
           max_attempts, timeout_s, on_batch) -> StudyOutcome:
    by_id = {r.run_id: r for r in planned}
    pending = [by_id[i] for i in led.pending()]
    n_workers = executor_workers(executor)
    queue = batches(spec, pending, n_workers, batch_runs)
    per_run_cost = {}
    for b in queue:
        cost = _robot_ticks(spec, b)
        for r in b.runs:
            per_run_cost[r.run_id] = cost
    counts = led.counts()
    already = counts.get("done", 0) + counts.get("failed", 0)
    done_cost = already * next(iter(per_run_cost.values()), 0.0)   # as much a run as those left
    bar = SweepProgress(len(planned), sum(per_run_cost.values()) + done_cost, runs_done=already,
                        robot_ticks_done=done_cost, enabled=progress)
    in_flight: dict = {}
    ran = 0
    stopped = False
    failures: list[dict] = []

    def submit(batch) -> None:
        ids = [r.run_id for r in batch.runs]
        led.start(ids)
        task = BatchTask(str(out_dir), batch.data, os.path.abspath(spec.base_dir),
                         spec.source, spec.ticks, ids, [r.seed for r in batch.runs],
                         batch.params, [r.point for r in batch.runs], timeout_s)
        try:
            in_flight[executor.submit(run_batch, task)] = batch
        except BaseException:
            led.replan(ids, None)
            raise

    def fail(runs, err: dict) -> None:
        nonlocal stopped
        led.fail([r.run_id for r in runs], err)
        failures.extend({"run_id": r.run_id, "error": err} for r in runs)
        bar.update(len(runs), 0.0, failed=len(runs))
        stopped |= strict

    def collect(finished) -> None:
        """Record what ``finished`` futures returned."""
        nonlocal ran, stopped
        for fut in finished:
            batch = in_flight.pop(fut)
            ids = [r.run_id for r in batch.runs]
            try:
                results = fut.result()
            except BaseException as exc:  # the worker died or the batch could not run
                if isinstance(exc, (WorkerDied, WorkerTimedOut)):
                    _remove_partial(out_dir, exc.pid)
                if isinstance(exc, WorkerTimedOut):   # stuck past its budget: not tried again
                    fail(batch.runs, {"type": "timeout", "message": f"timeout: {exc}"})
                    continue
                again = [r for r in batch.runs if led.attempts(r.run_id) < max_attempts]
                lost = [r for r in batch.runs if r not in again]
                if again:
                    led.replan([r.run_id for r in again], f"{type(exc).__name__}: {exc}")
                    queue.extend(batches(spec, again, 1, len(again)))
                if lost:
                    fail(lost, {"type": type(exc).__name__, "message": str(exc)})
                continue
            led.finish(results)
            ran += len(results)
            bad = [r for r in results if r["status"] != "completed"]
            failures.extend({"run_id": r["run_id"], "error": r["error"]} for r in bad)
            stopped |= strict and bool(bad)
            bar.update(len(results), sum(per_run_cost.get(i, 0.0) for i in ids),
                       failed=len(bad))
            if on_batch is not None:
                on_batch(results)

    interrupted = False
    try:
        while queue or in_flight:
            while queue and not stopped and len(in_flight) < IN_FLIGHT_PER_WORKER * n_workers:
                submit(queue.pop(0))
            if not in_flight:
                break
            finished, _ = wait(list(in_flight), timeout=1.0, return_when=FIRST_COMPLETED)
            collect(finished)
            bar.tick()
    except BaseException:
        # interrupted: what was handed out is planned again for the next driver, and local
        # workers are ended now rather than waited for
        interrupted = True
        if owned and hasattr(executor, "terminate"):
            executor.terminate()
        for fut, batch in in_flight.items():
            fut.cancel()
            led.replan([r.run_id for r in batch.runs], None)
            if fut.done() and not fut.cancelled() and \
                    isinstance(fut.exception(), (WorkerDied, WorkerTimedOut)):
                _remove_partial(out_dir, fut.exception().pid)
        raise
    finally:
        bar.close()
        if owned:
            executor.shutdown(wait=not interrupted, cancel_futures=True)
    counts = led.counts()   # strict: what was not handed out stays planned for a later run
    return StudyOutcome(out_dir, len(planned), counts.get("done", 0), counts.get("failed", 0),
                        ran, stopped, failures)
