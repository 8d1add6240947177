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
from contextlib import ExitStack
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
from swarmstack.experiments.checks import bounded_error
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
    """``exc`` as a summary's error entry, its text bounded (``checks.bounded_error``)."""
    if isinstance(exc, ControllerError):
        return bounded_error({"group": exc.group, "run": exc.run, "robot": exc.robot_id,
                              "tick": getattr(exc, "tick", None), "traceback": exc.traceback})
    if isinstance(exc, ResultsWriteError):
        return bounded_error({"path": exc.path, "cause": exc.cause, "message": str(exc)})
    import traceback

    return bounded_error({"type": type(exc).__name__, "message": str(exc),
                          "traceback": "".join(traceback.format_exception(exc))})


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
    with ExitStack() as stack:
        stop = signals if signals is not None else stack.enter_context(StopSignals())
        run = _Run(cfg, out_dir, stop, seed=seed, runs=runs, ticks=ticks, base_dir=base_dir,
                   source=source, progress=progress, strict=strict, echo=echo, record=record,
                   record_every=record_every, on_recorder=on_recorder, on_tick=on_tick,
                   on_simulation=on_simulation)
        run.simulate()
        return run.finish()


def experiment_hash(config: dict) -> str:
    """SHA-256 of the validated configuration as canonical JSON: two files that say the same
    (whatever their layout, comments or units) hash alike; any changed value changes it."""
    text = json.dumps(config, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode("ascii")).hexdigest()


class _Run:
    """One run of :func:`run_experiment`, in three steps. Once made, the logs and the
    simulation exist and the first summary is on disk; :meth:`simulate` starts the simulation
    and steps it, writing results as it goes, and keeps what ended it early in ``error``;
    :meth:`finish` closes everything, writes the last summary and returns it, or raises what
    ended the run."""

    def __init__(self, cfg: ExperimentCfg, out_dir: Path, stop: StopSignals, *, seed, runs,
                 ticks, base_dir, source, progress, strict, echo, record=None,
                 record_every=None, on_recorder=None, on_tick=None, on_simulation=None):
        self.t_setup = time.perf_counter()
        self.cfg, self.out_dir, self.stop, self.runs = cfg, out_dir, stop, runs
        self.progress, self.on_tick = progress, on_tick
        self.record, self.record_every, self.on_recorder = record, record_every, on_recorder
        self.logs = RunLogs(out_dir / "logs", echo)
        self.recorder = None  # swarmstack.viewer.recording.Recorder: frame() per recorded tick
        with ExitStack() as undo:  # closed again if the run cannot begin
            undo.callback(self.logs.close)
            self.sim = Simulation(cfg, seed=seed, runs=runs, base_dir=base_dir, source=source,
                                  strict=strict, isolate_runs=not strict, on_log=self._on_log)
            self.served = on_simulation(self.sim) if on_simulation is not None else None
            self.ticks = cfg.simulation.total_ticks if ticks is None else int(ticks)
            self.robots_per_run = sum(g.n for g in cfg.robots)
            self.summary = self._first_summary(source)
            self.summary_file = SummaryFile(out_dir / "summary.json", runs)
            undo.callback(self.summary_file.release)
            self.summary_file.write(self.summary)
            undo.pop_all()
        self.writer: Optional[ResultsWriter] = None
        self.watch = watchdog.Watchdog(cfg.simulation.timeout, self.sim)  # the file's budget of a run
        self.done = 0                # ticks stepped
        self.error: Optional[BaseException] = None
        self.signum: Optional[int] = None
        self.setup_s = 0.0
        self.t0 = time.perf_counter()
        self.c0 = time.process_time()  # CPU time too: on a shared machine the wall clock says little
        self.last_beat = time.monotonic()

    def _on_log(self, *line) -> None:  # script log lines: the logs, and the recording's debug text
        self.logs.write(*line)
        if self.recorder is not None:
            self.recorder.log(*line)

    def _first_summary(self, source: str) -> dict:
        cfg, sim = self.cfg, self.sim
        config = cfg.model_dump(mode="json")
        return {
            "status": "running", "experiment": source, "seed": sim.seed, "runs": self.runs,
            "ticks": self.ticks, "ticks_done": 0, "robots": self.robots_per_run,
            "dt_s": cfg.simulation.dt, "pid": os.getpid(), "host": host_name(),
            "started_at": _now(), "updated_at": _now(), "config": config,
            "swarmstack_version": __version__, "experiment_sha256": experiment_hash(config)}

    def heartbeat(self, done: int) -> float:
        """Rewrite the summary with what is on disk after ``done`` ticks (a run killed outright
        loses what is buffered); returns the time of it (``time.monotonic``)."""
        saved = self.writer.saved(done)
        self.summary.update(ticks_done=saved, updated_at=_now(),
                            runs_status=_runs_status(self.sim, self.runs, saved, "running", None))
        self.summary_file.write(self.summary)
        self.last_beat = time.monotonic()
        return self.last_beat

    # ------------------------------------------------------------------ simulate
    def simulate(self) -> None:
        """Open the writers, start the simulation and step it to its end, under the
        watchdog; what ended it early is kept in ``error``, except the budget spent outside a
        run's own controller, which stops every run still going."""
        try:
            self._open_writers()
            if self.stop.signum is None:
                with self.watch:
                    self._start()
                    self._loop()
                    self.sim.finish()
        except BaseException as exc:  # classified by finish(), re-raised after the summary is written
            self.error = exc
        if watchdog.is_timeout(self.error):  # the budget ran out outside a run's own controller
            watchdog.stop_all(self.sim, self.watch.budget_s)
            self.error = None
        watchdog.mark(self.sim)

    def _open_writers(self) -> None:
        out = self.cfg.output
        self.writer = ResultsWriter(self.out_dir, self.sim, out.chunk_ticks, list(out.sensors),
                                    out.trajectories, out.velocities)
        if self.record or (self.record is None and out.record):
            from swarmstack.viewer.recording import recorder_for

            self.recorder = recorder_for(self.cfg, self.sim, self.out_dir, self.record,
                                         self.record_every)
            if self.on_recorder is not None:
                self.on_recorder(self.recorder)

    def _start(self) -> None:
        self.stop.in_tick = True
        self.sim.start()  # controllers' init() may raise too
        self.stop.in_tick = False
        self.setup_s = time.perf_counter() - self.t_setup
        self.t0 = time.perf_counter()
        self.c0 = time.process_time()
        if self.writer.log():
            self.heartbeat(0)
        if self.recorder is not None:
            self.recorder.frame()

    def _loop(self) -> None:
        """Step tick by tick until the last tick, a signal, ``on_tick`` or every run stopped."""
        sim, stop, ticks, on_tick, progress = self.sim, self.stop, self.ticks, self.on_tick, self.progress
        # looked up once: a small run's tick is a few µs, and each look-up 0.02–0.1 µs
        step, every, monotonic, beat = sim.step, self.cfg.output.every, time.monotonic, self.heartbeat
        log = self.writer.log if self.writer.tables() else None  # nothing logged: no call a tick
        recorder = self.recorder
        frame_every = recorder.every if recorder is not None else 0
        done, last_beat = 0, self.last_beat
        try:
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
                    last_beat = beat(done)
                elif monotonic() - last_beat >= HEARTBEAT_S:
                    last_beat = beat(done)
                if frame_every and done % frame_every == 0:
                    recorder.frame()
                if progress is not None:
                    progress(done, ticks)
        finally:  # however the loop ends
            self.done = done

    # ------------------------------------------------------------------ finish
    def finish(self) -> dict:
        """Close everything and write the last summary; returns it, or raises once it is
        written: ResultsWriteError for a failed write, RunInterrupted for a signal, else the
        error that ended the run."""
        self._close()
        self._summarise()
        error, signum = self.error, self.signum
        try:
            self.summary_file.write_last(self.summary)
        except ResultsWriteError as exc:
            if not isinstance(error, ResultsWriteError):
                error = exc
        if isinstance(error, ResultsWriteError):
            raise error
        if signum is not None:
            raise RunInterrupted(signum, self.summary)
        if error is not None:
            raise error
        return self.summary

    def _close(self) -> None:
        """Close the server, the results, the recording and the logs (signals are ignored from
        here on); settle ``signum`` and ``error``: an interrupted tick is the signal's doing,
        a failed write an error."""
        stop = self.stop
        stop.finishing = True
        stop.in_tick = False
        if self.served is not None:
            self.served.close()
        signum, error = stop.signum, self.error
        if isinstance(error, KeyboardInterrupt) or (
                stop.escalated and not isinstance(error, (ControllerError, ResultsWriteError))):
            # a KeyboardInterrupt, or what one raised inside a kernel (SystemError) or a query
            signum = signum if signum is not None else signal.SIGINT
            error = None
        if self.writer is not None:
            try:
                self.writer.close()
            except ResultsWriteError as exc:
                error = exc
        if self.recorder is not None:
            try:
                self.recorder.close("failed" if error is not None else
                                    "interrupted" if signum is not None else "completed")
            except ResultsWriteError as exc:
                if error is None:
                    error = exc
        self.wall = time.perf_counter() - self.t0
        self.cpu = time.process_time() - self.c0
        self.logs.close()
        self.signum, self.error = signum, error

    def _summarise(self) -> None:
        """The last summary: the status, the counts on disk, the timings and the errors."""
        sim, error, signum, done = self.sim, self.error, self.signum, self.done
        if error is not None:  # what was logged but not written is lost
            done = self.writer.saved(done) if self.writer is not None else 0
        runs_status = _runs_status(sim, self.runs, done, _outcome(error, signum), error)
        failed = [r for r in runs_status if r["status"] == "failed"]
        status = "failed" if failed or error is not None else \
            "interrupted" if signum is not None else "completed"
        failures = sim.robot_failures()
        robot_ticks = self.robots_per_run * self.runs * done
        wall, cpu = self.wall, self.cpu
        summary = self.summary
        summary.update({
            "status": status,
            "ticks_done": max((r["ticks_done"] for r in runs_status), default=done),
            "updated_at": _now(),
            "wall_time_s": wall,
            "setup_time_s": self.setup_s,
            "robot_ticks_per_s": robot_ticks / wall if wall > 0 else 0.0,
            "cpu_time_s": cpu,
            "robot_ticks_per_cpu_s": robot_ticks / cpu if cpu > 0 else 0.0,
            "files": (self.writer.files() if self.writer is not None else []) + self.logs.files(),
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
            summary["robot_failures"] = [bounded_error(f) for f in failures[:100]]
        if error is not None:
            summary["error"] = _error_dict(error)
        elif failed:
            errors = [bounded_error(r["error"]) for r in failed if r.get("error")]
            if errors:
                summary["error"] = min(errors, key=lambda e: e.get("tick") or 0)


def _outcome(error: Optional[BaseException], signum: Optional[int]) -> str:
    """How the runs not stopped on their own ended."""
    if isinstance(error, ControllerError) and error.run is not None:
        return "stopped"  # --strict: the other runs were stopped by this run's error
    return "failed" if error is not None else "interrupted" if signum is not None else "completed"


def _runs_status(sim: Simulation, runs: int, done: int, outcome: str,
                 error: Optional[BaseException]) -> list[dict]:
    """One entry per run: ``run``, ``status`` (completed, interrupted, failed, or stopped — by
    another run's error under --strict — or running), ``ticks_done`` (its data ends there) and
    the ``error`` of a failed run."""
    errors = {e["run"]: bounded_error(e) for e in sim.run_errors}
    batch_error = _error_dict(error) if error is not None else None
    out = []
    for r in range(runs):
        stopped = int(sim.stop_tick[r])
        if stopped != NOT_STOPPED:
            entry = {"run": r, "status": "failed", "ticks_done": min(stopped, done),
                     "error": errors.get(r)}
        elif outcome == "failed" or (isinstance(error, ControllerError) and error.run == r):
            entry = {"run": r, "status": "failed", "ticks_done": done, "error": batch_error}
        else:
            entry = {"run": r, "status": outcome, "ticks_done": done}
        out.append(entry)
    return out
