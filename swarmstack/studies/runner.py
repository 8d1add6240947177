"""Run a study into its folder, resumably.

The study folder holds the ledger (``study.sqlite``), a lock held while a driver runs it
(``study.lock``) and one folder per run (``runs/r000000/`` …). The driver plans the pending
runs into batches, keeps the executor's workers busy with a few batches each, and records
each batch's runs in the ledger as its future resolves. Killed at any point, it leaves runs
marked ``running`` that the next driver plans again (their unfinished folders, still under
temporary names, are removed); finished runs are never run twice.

A batch that raised or whose worker died is tried again (up to ``max_attempts`` per run); a
run whose controller failed is recorded ``failed`` with its error and the sweep goes on —
unless ``strict``, which stops handing out batches at the first failure.
"""

from __future__ import annotations

import fcntl
import time
import shutil
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from swarmstack.experiments.config import parse_experiment
from swarmstack.studies.batch import RUNS_DIR, BatchTask, run_batch
from swarmstack.studies.executors import executor_workers, make_executor
from swarmstack.studies.ledger import LEDGER, Ledger
from swarmstack.studies.plan import StudySpec, batches, plan_runs
from swarmstack.studies.progress import SweepProgress

LOCK = "study.lock"
MAX_ATTEMPTS = 3
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
              on_batch: Optional[Callable[[list[dict]], None]] = None) -> StudyOutcome:
    """Run (or continue) ``spec`` in ``out_dir``. ``executor`` (any concurrent.futures
    Executor) overrides ``workers``/``ray``; it is not shut down here."""
    out_dir = Path(out_dir)
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
        return _drive(spec, out_dir, led, executor, owned, planned, workers, ray, strict,
                      batch_runs, progress, max_attempts, on_batch)
    finally:
        try:
            if led.identity() is not None:
                led.add_elapsed(time.perf_counter() - t0)
        finally:
            led.close()
            lock.close()


def _robot_ticks(spec: StudySpec, batch) -> float:
    cfg = parse_experiment(batch.data, spec.source)
    ticks = cfg.simulation.total_ticks if spec.ticks is None else spec.ticks
    return float(sum(g.n for g in cfg.robots) * ticks)


def _drive(spec, out_dir, led: Ledger, executor, owned, planned, workers, ray, strict,
           batch_runs, progress, max_attempts, on_batch) -> StudyOutcome:
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
    bar = SweepProgress(len(planned), sum(per_run_cost.values()) +
                        already * (next(iter(per_run_cost.values()), 0.0)),
                        runs_done=already,
                        robot_ticks_done=already * next(iter(per_run_cost.values()), 0.0),
                        enabled=progress)
    in_flight: dict = {}
    ran = 0
    stopped = False
    failures: list[dict] = []

    def submit(batch) -> None:
        ids = [r.run_id for r in batch.runs]
        led.start(ids)
        task = BatchTask(str(out_dir), batch.data, spec.base_dir, spec.source, spec.ticks,
                         ids, [r.seed for r in batch.runs], batch.params,
                         [r.point for r in batch.runs])
        try:
            in_flight[executor.submit(run_batch, task)] = batch
        except BaseException:
            led.replan(ids, None)
            raise

    def collect(finished) -> bool:
        """Record what ``finished`` futures returned; True when the pool broke under one."""
        nonlocal ran, stopped
        broken = False
        for fut in finished:
            batch = in_flight.pop(fut)
            ids = [r.run_id for r in batch.runs]
            try:
                results = fut.result()
            except BaseException as exc:  # the worker died or the batch could not run
                broken |= isinstance(exc, BrokenProcessPool)
                again = [r for r in batch.runs if led.attempts(r.run_id) < max_attempts]
                lost = [r for r in batch.runs if r not in again]
                if again:
                    led.replan([r.run_id for r in again], f"{type(exc).__name__}: {exc}")
                    queue.extend(batches(spec, again, 1, len(again)))
                if lost:
                    err = {"type": type(exc).__name__, "message": str(exc)}
                    led.fail([r.run_id for r in lost], err)
                    failures.extend({"run_id": r.run_id, "error": err} for r in lost)
                    bar.update(len(lost), 0.0, failed=len(lost))
                    stopped |= strict
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
        return broken

    def renew_pool() -> None:
        """A worker of our own pool died: every future still out resolves (with its result,
        or failing with the pool), so collect them all and go on with a new pool."""
        nonlocal executor
        collect(wait(list(in_flight))[0])
        executor.shutdown(wait=False, cancel_futures=True)
        executor = make_executor(workers, ray)

    renewable = owned and isinstance(executor, ProcessPoolExecutor)
    try:
        while queue or in_flight:
            while queue and not stopped and len(in_flight) < IN_FLIGHT_PER_WORKER * n_workers:
                batch = queue.pop(0)
                try:
                    submit(batch)
                except BrokenProcessPool:
                    # the pool broke after the last wait() returned and before this hand-out
                    if not renewable:
                        raise
                    queue.insert(0, batch)
                    renew_pool()
            if not in_flight:
                break
            finished, _ = wait(list(in_flight), timeout=1.0, return_when=FIRST_COMPLETED)
            if collect(finished) and renewable:
                renew_pool()
            bar.tick()
    except BaseException:
        # interrupted: what was handed out is planned again for the next driver
        for fut, batch in in_flight.items():
            fut.cancel()
            led.replan([r.run_id for r in batch.runs], None)
        raise
    finally:
        bar.close()
        if owned:
            executor.shutdown(wait=True, cancel_futures=True)
    counts = led.counts()   # strict: what was not handed out stays planned for a later run
    return StudyOutcome(out_dir, len(planned), counts.get("done", 0), counts.get("failed", 0),
                        ran, stopped, failures)
