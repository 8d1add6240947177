"""Run an experiment to completion, writing results as it goes."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, Optional

from swarmstack.controllers.api import ControllerError
from swarmstack.experiments.config import ExperimentCfg
from swarmstack.experiments.results import ResultsWriter, RunLogs, write_json_atomic
from swarmstack.experiments.simulation import Simulation


def run_experiment(cfg: ExperimentCfg, out_dir: Path, *, seed: Optional[int] = None,
                   runs: int = 1, ticks: Optional[int] = None, base_dir: Path = Path("."),
                   source: str = "<experiment>",
                   progress: Optional[Callable[[int, int], None]] = None,
                   strict: bool = False,
                   echo: Optional[Callable[[str], None]] = None) -> dict:
    """Simulate ``runs`` runs for ``ticks`` ticks; returns the summary written to
    ``out_dir/summary.json``. A controller error is re-raised after the data logged so far and
    a ``failed`` summary have been written. Script log lines go to ``out_dir/logs/run-K.log``
    (and to ``echo`` when given); a Buzz robot that fails stops alone unless ``strict``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t_setup = time.perf_counter()
    logs = RunLogs(out_dir / "logs", echo)
    try:
        sim = Simulation(cfg, seed=seed, runs=runs, base_dir=base_dir, source=source,
                         strict=strict, on_log=logs.write)
    except BaseException:
        logs.close()
        raise
    ticks = cfg.simulation.total_ticks if ticks is None else int(ticks)
    out = cfg.output
    writer = ResultsWriter(out_dir, sim, out.chunk_ticks, list(out.sensors), out.trajectories,
                           out.velocities)
    robots_per_run = sum(g.n for g in cfg.robots)
    summary = {
        "status": "running", "experiment": source, "seed": sim.seed, "runs": runs,
        "ticks": ticks, "robots": robots_per_run, "dt_s": cfg.simulation.dt,
        "config": cfg.model_dump(mode="json"),
    }
    write_json_atomic(out_dir / "summary.json", summary)
    done = 0
    error = None
    setup_s = 0.0
    t0 = time.perf_counter()
    try:
        sim.start()  # controllers' init() may raise too
        setup_s = time.perf_counter() - t_setup
        writer.log()
        t0 = time.perf_counter()
        for t in range(ticks):
            sim.step()
            done = t + 1
            if done % out.every == 0:
                writer.log()
            if progress is not None:
                progress(done, ticks)
    except ControllerError as exc:
        error = exc
    except KeyboardInterrupt:
        error = KeyboardInterrupt()
    finally:
        wall = time.perf_counter() - t0
        writer.close()
        logs.close()
        failures = sim.robot_failures()
        summary.update({
            "status": "completed" if error is None else (
                "interrupted" if isinstance(error, KeyboardInterrupt) else "failed"),
            "ticks_done": done,
            "wall_time_s": wall,
            "setup_time_s": setup_s,
            "robot_ticks_per_s": (robots_per_run * runs * done / wall) if wall > 0 else 0.0,
            "files": writer.files() + logs.files(),
            "failed_robots": len(failures),
            **sim.radio_stats(),
        })
        if failures:  # the first hundred in full; the count says how many there were
            summary["robot_failures"] = failures[:100]
        if isinstance(error, ControllerError):
            summary["error"] = {"group": error.group, "run": error.run, "robot": error.robot_id,
                                "traceback": error.traceback}
        write_json_atomic(out_dir / "summary.json", summary)
    if error is not None:
        raise error
    return summary
