"""One batch of a study, run by a worker: one batched simulation, one folder per run.

Each run of the batch has its own seed (any seeds, not only consecutive ones: the batch's
placement and random streams are re-keyed per run, so a run is bit-identical to the same
seed simulated alone) and its own controller parameters. Its rows go to its own folder,
laid out as a one-run ``swarmstack run`` (``summary.json``, ``trajectories/part-*.parquet``,
``sensors/<group>/part-*.parquet``, ``logs/``). The folder is written under a temporary name
(``runs/.tmp-<run id>-<pid>-<token>``) and renamed when the run is over, so a worker killed
mid-run leaves nothing a reader takes for a run, and a run redone elsewhere replaces nothing
but its own folder.

:func:`run_batch` is a plain picklable function: any ``concurrent.futures`` executor (a
process pool, Ray) can run it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import numpy as np

from swarmstack.cli.process import host_name

RUNS_DIR = "runs"
PART_ROWS = 1_000_000   # rows of one table of the batch buffered before a part is written


@dataclass
class BatchTask:
    study_dir: str
    data: dict                 # the experiment, structural overrides applied
    base_dir: str
    source: str
    ticks: Optional[int]
    run_ids: list[str]
    seeds: list[int]
    params: list[dict]         # per run: {group name: controller parameters}
    points: list[dict]         # per run: swept key path -> value (for its summary)
    timeout_s: Optional[float] = None   # wall-clock budget of each run (None: none)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def make_simulation(cfg, seeds: list[int], params: list[dict], base_dir: Path, source: str,
                    on_log=None):
    """A batched Simulation whose run ``r`` has seed ``seeds[r]`` and ``params[r]``."""
    from swarmstack.sim.simulation import Simulation

    runs = len(seeds)
    sim = Simulation(cfg, seed=seeds[0], runs=runs, base_dir=base_dir, source=source,
                     params=params, isolate_runs=True, on_log=on_log)
    if list(seeds) == list(range(seeds[0], seeds[0] + runs)):
        return sim   # the batch's own numbering already gives run r seed seeds[0] + r
    sim.seed_runs(seeds)
    sim.reset(params=params)   # back to the new initial state, fresh controllers with new keys
    return sim


class PerRunWriter:
    """The batch's rows split by run, each run's into its own folder (column ``run`` is 0: a
    run folder holds one run). Rows of a stopped run end at its stop tick."""

    def __init__(self, sim, folders: list[Path], cfg):
        self.sim = sim
        self.folders = folders
        out = cfg.output
        self.trajectories = out.trajectories
        b = sim.world.bodies
        from swarmstack.experiments.results_writer import TickRows, part_ticks

        self.chunk_ticks = part_ticks(out.chunk_ticks, b.n)
        self.rows = TickRows(sim, list(out.sensors), out.velocities)
        self._buf: dict[str, list[dict]] = {}
        self._rows = 0
        self._ticks = 0
        self.parts = 0
        self.files: list[list[str]] = [[] for _ in folders]
        self._runs = b.run

    def log(self) -> None:
        if self.trajectories:
            self._append("trajectories", self.rows.trajectories())
        for name, cols in self.rows.sensors().items():
            self._append(f"sensors/{name}", cols)
        self._ticks += 1
        if self._ticks >= self.chunk_ticks or self._rows >= PART_ROWS:
            self.flush()

    def _append(self, table: str, cols: dict) -> None:
        cols = {k: np.array(c, copy=True) for k, c in cols.items()}
        self._buf.setdefault(table, []).append(cols)
        self._rows = max(self._rows, sum(len(c["run"]) for c in self._buf[table]))

    def flush(self) -> None:
        """Write the buffered rows: one part per table and run, through one DuckDB connection
        (opening one per part costs more than writing a small part)."""
        import duckdb

        from swarmstack.experiments.results_writer import ResultsWriteError, _cause, _sql_path

        if not self._buf:
            return
        con = duckdb.connect()
        try:
            for table, chunks in self._buf.items():
                cols = {k: np.concatenate([c[k] for c in chunks]) for k in chunks[0]}
                run = cols["run"]
                order = np.argsort(run, kind="stable")
                bounds = np.searchsorted(run[order], np.arange(len(self.folders) + 1))
                for r, folder in enumerate(self.folders):
                    rows = order[bounds[r]:bounds[r + 1]]
                    if not rows.size:
                        continue
                    part = {k: (np.zeros(rows.size, dtype=v.dtype) if k == "run" else v[rows])
                            for k, v in cols.items()}
                    rel = f"{table}/part-{self.parts:05d}.parquet"
                    path = folder / rel
                    tmp = path.with_name(f".{path.name}.tmp")
                    try:
                        path.parent.mkdir(parents=True, exist_ok=True)
                        con.register("chunk", part)
                        con.execute(f"COPY (SELECT * FROM chunk) TO {_sql_path(tmp)} "
                                    "(FORMAT PARQUET)")
                        con.unregister("chunk")
                        os.replace(tmp, path)
                    except (OSError, duckdb.Error) as exc:
                        raise ResultsWriteError(path, _cause(exc)) from None
                    self.files[r].append(rel)
        finally:
            con.close()
        self.parts += 1
        self._buf = {}
        self._rows = 0
        self._ticks = 0


def _error(exc: BaseException, timeout_s: Optional[float] = None) -> dict:
    from swarmstack.controllers.api import ControllerError
    from swarmstack.experiments.watchdog import budget_text, is_timeout

    if timeout_s is not None and is_timeout(exc):   # before the simulation was built
        return {"type": "timeout", "message": f"timeout: {budget_text(timeout_s)}"}
    if isinstance(exc, ControllerError):
        return {"type": "ControllerError", "message": str(exc).splitlines()[0],
                "group": exc.group, "robot": exc.robot_id, "tick": getattr(exc, "tick", None),
                "traceback": exc.traceback}
    return {"type": type(exc).__name__, "message": str(exc),
            "traceback": "".join(traceback.format_exception(exc))}


def _plain(value):
    """JSON-friendly numbers (NumPy scalars → Python)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def run_batch(task: BatchTask) -> list[dict]:
    """Run every run of ``task``; returns one result per run: ``run_id``, ``status``
    (``completed`` or ``failed``), ``error`` (or None) and ``summary`` (the run's
    ``summary.json``). A run's folder is in place (renamed) before this returns."""
    from swarmstack.experiments import watchdog
    from swarmstack.experiments.config import ConfigError, parse_experiment
    from swarmstack.experiments.results_writer import RunLogs, write_json_atomic

    study = Path(task.study_dir)
    runs_dir = study / RUNS_DIR
    runs_dir.mkdir(parents=True, exist_ok=True)
    token = secrets.token_hex(4)
    # the process id in the name says which worker writes it (a test kills that one)
    tmp = [runs_dir / f".tmp-{rid}-{os.getpid()}-{token}" for rid in task.run_ids]
    for folder in tmp:
        folder.mkdir()
    logs = [RunLogs(folder / "logs") for folder in tmp]
    started = _now()
    t0 = time.perf_counter()
    k = len(task.run_ids)
    error: Optional[BaseException] = None
    sim = writer = None
    done = 0
    ticks = 0
    robots = 0
    timed_out = False
    try:
        with watchdog.Watchdog(task.timeout_s) as budget:
            try:
                cfg = parse_experiment(task.data, task.source)
                robots = sum(g.n for g in cfg.robots)
                ticks = cfg.simulation.total_ticks if task.ticks is None else int(task.ticks)
                sim = make_simulation(cfg, task.seeds, task.params, Path(task.base_dir),
                                      task.source, on_log=lambda group, run, rid, tick, text:
                                      logs[run].write(group, 0, rid, tick, text))
                budget.sim = sim
                sim.start()
                writer = PerRunWriter(sim, tmp, cfg)
                every = cfg.output.every
                writer.log()
                for t in range(ticks):
                    if sim.all_stopped:
                        break
                    sim.step()
                    done = t + 1
                    if done % every == 0:
                        writer.log()
            except BaseException as exc:
                if sim is None or not watchdog.is_timeout(exc):
                    raise
                timed_out = True
        if timed_out:   # the budget ran out outside a run's own controller: every run going
            watchdog.stop_all(sim, task.timeout_s)
        if writer is not None:
            writer.flush()
    except (Exception, ConfigError, watchdog.BudgetSpent) as exc:
        error = exc   # the whole batch: every run not failed already
    wall = time.perf_counter() - t0
    for lg in logs:
        lg.close()
    if sim is not None:
        watchdog.mark(sim)
    errors = {e["run"]: e for e in (sim.run_errors if sim is not None else [])}
    radio = sim.radio_stats()["per_run"] if sim is not None else [{}] * k
    counters = sim.drive_counters() if sim is not None else {}
    collided = sim.collisions() if sim is not None else [0] * k
    results = []
    for r, rid in enumerate(task.run_ids):
        stopped = sim is not None and sim.stop_tick[r] != np.iinfo(np.int64).max
        if stopped:
            e = errors.get(r, {})
            kind = "timeout" if e.get("kind") == "timeout" else "ControllerError"
            status, err = "failed", {"type": kind, "message": e.get("error"),
                                     **{k_: v for k_, v in e.items()
                                        if k_ not in ("run", "error", "kind")}}
            run_ticks = int(min(sim.stop_tick[r], done))
        elif error is not None:
            status, err, run_ticks = "failed", _error(error, task.timeout_s), done
        else:
            status, err, run_ticks = "completed", None, done
        summary = {
            "status": status, "run_id": rid, "experiment": task.source, "seed": task.seeds[r],
            "params": task.points[r], "runs": 1, "ticks": ticks, "ticks_done": run_ticks,
            "robots": robots, "dt_s": None if sim is None else sim.cfg.simulation.dt,
            "batch_runs": k, "host": host_name(), "pid": os.getpid(),
            "started_at": started, "updated_at": _now(),
            "wall_time_s": wall / k,        # the batch's wall time, shared by its runs
            "batch_wall_time_s": wall,
            "robot_ticks_per_s": robots * k * done / wall if wall > 0 else 0.0,
            "files": writer.files[r] + logs[r].files() if writer is not None else [],
            "runs_status": [{"run": 0, "status": status, "ticks_done": run_ticks,
                             **({"error": err} if err else {})}],
            "failed_runs": int(status == "failed"),
            "collisions": int(collided[r]),
            **_plain(radio[r]),
        }
        per_group = {g: {c: v[r] for c, v in cs.items()} for g, cs in counters.items()}
        if per_group:
            summary["drive_counters"] = _plain(per_group)
        if err:
            summary["error"] = err
        write_json_atomic(tmp[r] / "summary.json", summary)
        final = runs_dir / rid
        if final.exists():   # a run redone (its first worker died after renaming)
            shutil.rmtree(final)
        os.replace(tmp[r], final)
        results.append({"run_id": rid, "status": status, "error": err, "summary": summary})
    return results
