"""Run an experiment to completion, writing results as it goes.

Stopping is a small state machine that a signal cannot tear::

    running ──SIGINT/SIGTERM──► stopping ──(the tick ends)──► finishing ──► interrupted
       │                           └─ a second signal during a tick abandons that tick
       ├─ every run stopped by a controller error, or the last tick ──► finishing ──► completed
       └─ a batch-wide controller error, a write error ──────────────► finishing ──► failed

The handlers only record the signal; the loop looks at it between ticks, so neither a DuckDB
write nor a compiled kernel is ever interrupted. While finishing (the last part, the summary)
further signals are ignored; the handlers in place before the run are restored at the end.

``summary.json`` is written atomically when the run starts (``status: running``), rewritten as
a heartbeat — ``updated_at`` and ``ticks_done`` — after every part written and at least every
:data:`HEARTBEAT_S` seconds, with the process id and host name, so that a run killed outright
can be told from a live one (:func:`~swarmstack.experiments.results_writer.run_alive`), and written
one last time with the final status (room for it is set aside on the disk: see
:class:`~swarmstack.experiments.results_writer.SummaryFile`). Its counts never go beyond what is on
disk: whatever the ending, no logged tick up to ``ticks_done`` has rows still unwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Optional

from swarmstack import __version__
from swarmstack.cli.process import host_name
from swarmstack.controllers.api import ControllerError
from swarmstack.experiments.config import ExperimentCfg
from swarmstack.experiments.results_writer import (ResultsWriteError, ResultsWriter, RunLogs,
                                            SummaryFile, prepare_output)
from swarmstack.experiments import watchdog
from swarmstack.sim.simulation import NOT_STOPPED, Simulation

HEARTBEAT_S = 5.0
_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class RunInterrupted(KeyboardInterrupt):
    """The run was stopped by a signal; its summary (``status: interrupted``) and every row
    logged up to ``ticks_done`` are on disk. ``exit_code`` is 128 + the signal number (130 for
    SIGINT, 143 for SIGTERM)."""

    def __init__(self, signum: int, summary: dict):
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)
        self.summary = summary

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


class StopSignals:
    """SIGINT and SIGTERM as a flag the tick loop reads (``signum``: the first one received).

    A second signal while ``in_tick`` abandons the tick (KeyboardInterrupt), for a tick stuck
    in a controller; once ``finishing`` every signal is ignored. Handlers can only be set from
    the main thread: elsewhere none are installed and Ctrl-C stays Python's KeyboardInterrupt.
    """

    def __init__(self):
        self.signum: Optional[int] = None
        self.in_tick = False
        self.finishing = False
        self.escalated = False
        self._previous: dict = {}

    def __enter__(self) -> "StopSignals":
        if threading.current_thread() is threading.main_thread():
            for sig in _SIGNALS:
                try:
                    self._previous[sig] = signal.signal(sig, self._handle)
                except (ValueError, OSError):  # pragma: no cover - embedded interpreters
                    pass
        return self

    def _handle(self, signum, frame) -> None:
        if self.signum is None:
            self.signum = signum
            return
        if self.in_tick and not self.finishing:
            self.in_tick = False
            self.escalated = True
            raise KeyboardInterrupt

    def __exit__(self, *exc) -> None:
        self.finishing = True
        for sig, handler in self._previous.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
        self._previous = {}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _error_dict(exc: BaseException) -> dict:
    if isinstance(exc, ControllerError):
        return {"group": exc.group, "run": exc.run, "robot": exc.robot_id,
                "tick": getattr(exc, "tick", None), "traceback": exc.traceback}
    if isinstance(exc, ResultsWriteError):
        return {"path": exc.path, "cause": exc.cause, "message": str(exc)}
    import traceback

    return {"type": type(exc).__name__, "message": str(exc),
            "traceback": "".join(traceback.format_exception(exc))}


def run_experiment(cfg: ExperimentCfg, out_dir: Path, *, seed: Optional[int] = None,
                   runs: int = 1, ticks: Optional[int] = None, base_dir: Path = Path("."),
                   source: str = "<experiment>",
                   progress: Optional[Callable[[int, int], None]] = None,
                   strict: bool = False,
                   echo: Optional[Callable[[str], None]] = None,
                   overwrite: bool = False,
                   signals: Optional[StopSignals] = None,
                   record: Optional[bool] = None, record_every: Optional[int] = None,
                   on_recorder: Optional[Callable] = None,
                   on_tick: Optional[Callable[[Simulation], bool]] = None,
                   on_simulation: Optional[Callable] = None) -> dict:
    """Simulate ``runs`` runs for ``ticks`` ticks into ``out_dir``; returns the summary written
    to ``out_dir/summary.json``.

    ``out_dir`` must be new or empty; one that holds a run is refused (OutputFolderError)
    unless ``overwrite``, which removes that run's files first — and only those: a folder that
    holds anything else is always refused.

    A controller that raises stops its own run only (its robots hold their safe commands, its
    data ends at that tick, ``runs_status`` says why) and the others go on; the summary's
    ``status`` is then ``failed``. With ``strict``, or when a batched controller (which
    controls every run at once) raises, the whole batch stops and the ControllerError is raised
    once the data and the summary are written. Interrupted by SIGINT or SIGTERM it raises
    :class:`RunInterrupted` once they are written; a failed write raises ResultsWriteError
    (the parts written before it are kept). Script log lines go to ``out_dir/logs/run-K.log``
    (and to ``echo`` when given); a Buzz robot that fails stops alone unless ``strict``.

    The SIGINT/SIGTERM handlers are set for the run and restored after it; a caller that
    wants signals held beyond the run (a command that still prints and exits) passes its own
    entered :class:`StopSignals` as ``signals``.

    ``record`` (default: the file's ``output.record``) writes the viewer's recording under
    ``out_dir/recording`` every ``record_every``-th tick; ``on_recorder(recorder)`` is called
    once it exists (a live view serves from it). ``on_simulation(sim)`` is called once the
    simulation is built and may return an object whose ``close()`` is called at the end (a
    server such as ``--serve ros2``).

    ``on_tick(sim)`` is called before every tick (a server feeding commands from outside and
    pacing the run); when it returns True the run ends there, completed."""
    out_dir = Path(out_dir)
    prepare_output(out_dir, overwrite)
    kw = dict(seed=seed, runs=runs, ticks=ticks, base_dir=base_dir, source=source,
              progress=progress, strict=strict, echo=echo, record=record,
              record_every=record_every, on_recorder=on_recorder, on_tick=on_tick,
              on_simulation=on_simulation)
    if signals is not None:
        return _run(cfg, out_dir, signals, **kw)
    with StopSignals() as stop:
        return _run(cfg, out_dir, stop, **kw)


def experiment_hash(config: dict) -> str:
    """SHA-256 of the validated configuration as canonical JSON: two files that say the same
    (whatever their layout, comments or units) hash alike; any changed value changes it."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def _run(cfg, out_dir, stop: StopSignals, *, seed, runs, ticks, base_dir, source, progress,
         strict, echo, record=None, record_every=None, on_recorder=None,
         on_tick=None, on_simulation=None) -> dict:
    t_setup = time.perf_counter()
    logs = RunLogs(out_dir / "logs", echo)
    recorder = None  # swarmstack.viewer.recording.Recorder: frame() per recorded tick

    def on_log(*line) -> None:  # script log lines: the logs, and the recording's debug text
        logs.write(*line)
        if recorder is not None:
            recorder.log(*line)

    try:
        sim = Simulation(cfg, seed=seed, runs=runs, base_dir=base_dir, source=source,
                         strict=strict, isolate_runs=not strict, on_log=on_log)
        served = on_simulation(sim) if on_simulation is not None else None
    except BaseException:
        logs.close()
        raise
    ticks = cfg.simulation.total_ticks if ticks is None else int(ticks)
    out = cfg.output
    robots_per_run = sum(g.n for g in cfg.robots)
    summary = {
        "status": "running", "experiment": source, "seed": sim.seed, "runs": runs,
        "ticks": ticks, "ticks_done": 0, "robots": robots_per_run, "dt_s": cfg.simulation.dt,
        "pid": os.getpid(), "host": host_name(), "started_at": _now(),
        "updated_at": _now(),
    }
    summary["config"] = cfg.model_dump(mode="json")
    summary["swarmstack_version"] = __version__
    summary["experiment_sha256"] = experiment_hash(summary["config"])
    summary_file = SummaryFile(out_dir / "summary.json", runs)
    try:
        summary_file.write(summary)
    except BaseException:
        summary_file.release()
        logs.close()
        raise

    writer: Optional[ResultsWriter] = None
    watch = watchdog.Watchdog(cfg.simulation.timeout, sim)   # the file's budget of a run
    done = 0
    error: Optional[BaseException] = None
    setup_s = 0.0
    t0 = time.perf_counter()
    c0 = time.process_time()   # CPU time too: on a shared machine the wall clock says little
    last_beat = time.monotonic()

    def heartbeat() -> None:  # counts what is on disk: a killed run loses what is buffered
        nonlocal last_beat
        saved = writer.saved(done)
        summary.update(ticks_done=saved, updated_at=_now(),
                       runs_status=_runs_status(sim, runs, saved, "running", None))
        summary_file.write(summary)
        last_beat = time.monotonic()

    try:
        writer = ResultsWriter(out_dir, sim, out.chunk_ticks, list(out.sensors),
                               out.trajectories, out.velocities)
        if record or (record is None and out.record):
            from swarmstack.viewer.recording import recorder_for

            recorder = recorder_for(cfg, sim, out_dir, record, record_every)
            if on_recorder is not None:
                on_recorder(recorder)
        if stop.signum is None:
            watch.__enter__()
            stop.in_tick = True
            sim.start()  # controllers' init() may raise too
            stop.in_tick = False
            setup_s = time.perf_counter() - t_setup
            t0 = time.perf_counter()
            c0 = time.process_time()
            if writer.log():
                heartbeat()
            if recorder is not None:
                recorder.frame()
            # looked up once: a small run's tick is a few µs, and each look-up 0.02–0.1 µs
            step, every, monotonic = sim.step, out.every, time.monotonic
            log = writer.log if writer.tables() else None  # nothing logged: no call a tick
            frame_every = recorder.every if recorder is not None else 0
            for t in range(ticks):
                # (stopped_any first: all_stopped itself is a property that checks every run)
                if stop.signum is not None or (sim.stopped_any and sim.all_stopped):
                    break
                if on_tick is not None and on_tick(sim):
                    break
                stop.in_tick = True
                step()
                stop.in_tick = False
                done = t + 1
                if sim.stopped_any and sim.all_stopped:  # rows end at each run's stop tick
                    break
                if log is not None and done % every == 0 and log():
                    heartbeat()
                elif monotonic() - last_beat >= HEARTBEAT_S:
                    heartbeat()
                if frame_every and done % frame_every == 0:
                    recorder.frame()
                if progress is not None:
                    progress(done, ticks)
            sim.finish()
    except BaseException as exc:  # classified below, re-raised after the summary is written
        error = exc
    watch.__exit__()
    if watchdog.is_timeout(error):  # the budget ran out outside a run's own controller
        watchdog.stop_all(sim, watch.budget_s)
        error = None
    watchdog.mark(sim)
    stop.finishing = True
    stop.in_tick = False
    if served is not None:
        served.close()

    signum = stop.signum
    if isinstance(error, KeyboardInterrupt) or (
            stop.escalated and not isinstance(error, (ControllerError, ResultsWriteError))):
        # a KeyboardInterrupt, or what one raised inside a kernel (SystemError) or a query
        signum = signum if signum is not None else signal.SIGINT
        error = None
    if writer is not None:
        try:
            writer.close()
        except ResultsWriteError as exc:
            error = exc
    if recorder is not None:
        try:
            recorder.close("failed" if error is not None else
                           "interrupted" if signum is not None else "completed")
        except ResultsWriteError as exc:
            if error is None:
                error = exc
    wall = time.perf_counter() - t0
    cpu = time.process_time() - c0
    logs.close()

    if error is not None:  # what was logged but not written is lost
        done = writer.saved(done) if writer is not None else 0
    if isinstance(error, ControllerError) and error.run is not None:
        outcome = "stopped"  # --strict: the other runs were stopped by this run's error
    elif error is not None:
        outcome = "failed"
    elif signum is not None:
        outcome = "interrupted"
    else:
        outcome = "completed"
    runs_status = _runs_status(sim, runs, done, outcome, error)
    failed = [r for r in runs_status if r["status"] == "failed"]
    status = "failed" if failed or error is not None else \
        "interrupted" if signum is not None else "completed"
    failures = sim.robot_failures()
    summary.update({
        "status": status,
        "ticks_done": max((r["ticks_done"] for r in runs_status), default=done),
        "updated_at": _now(),
        "wall_time_s": wall,
        "setup_time_s": setup_s,
        "robot_ticks_per_s": (robots_per_run * runs * done / wall) if wall > 0 else 0.0,
        "cpu_time_s": cpu,
        "robot_ticks_per_cpu_s": (robots_per_run * runs * done / cpu) if cpu > 0 else 0.0,
        "files": (writer.files() if writer is not None else []) + logs.files(),
        "runs_status": runs_status,
        "failed_runs": len(failed),
        "failed_robots": len(failures),
        **sim.radio_stats(),
    })
    per_run = sim.collisions()
    summary["collisions"] = sum(per_run)
    summary["collisions_per_run"] = per_run
    counters = sim.drive_counters()
    if counters:  # per group: {counter: [run 0, run 1, …]}
        summary["drive_counters"] = counters
    if signum is not None:
        summary["signal"] = signal.Signals(signum).name
    if failures:  # the first hundred in full; the count says how many there were
        summary["robot_failures"] = failures[:100]
    if error is not None:
        summary["error"] = _error_dict(error)
    elif failed:
        errors = [r["error"] for r in failed if r.get("error")]
        if errors:
            summary["error"] = min(errors, key=lambda e: e.get("tick") or 0)
    try:
        summary_file.write_last(summary)
    except ResultsWriteError as exc:
        if not isinstance(error, ResultsWriteError):
            error = exc
    if isinstance(error, ResultsWriteError):
        raise error
    if signum is not None:
        raise RunInterrupted(signum, summary)
    if error is not None:
        raise error
    return summary


def _runs_status(sim: Simulation, runs: int, done: int, outcome: str,
                 error: Optional[BaseException]) -> list[dict]:
    """One entry per run: ``run``, ``status`` (completed, interrupted, failed, or stopped — by
    another run's error under --strict — or running), ``ticks_done`` (its data ends there) and
    the ``error`` of a failed run."""
    errors = {e["run"]: e for e in sim.run_errors}
    batch_error = _error_dict(error) if error is not None else None
    out = []
    for r in range(runs):
        stopped = int(sim.stop_tick[r])
        if stopped != NOT_STOPPED:
            entry = {"run": r, "status": "failed", "ticks_done": min(stopped, done),
                     "error": errors.get(r)}
        elif isinstance(error, ControllerError) and error.run == r:
            entry = {"run": r, "status": "failed", "ticks_done": done, "error": batch_error}
        elif outcome in ("failed",):
            entry = {"run": r, "status": "failed", "ticks_done": done, "error": batch_error}
        else:
            entry = {"run": r, "status": outcome, "ticks_done": done}
        out.append(entry)
    return out
