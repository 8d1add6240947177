"""E-Puck2 paper §4.3 (execution times) as one sweep: 11 speeds × 30 seeds, 50 robots.

§4.3.1: "30 independent simulations using … fifty robots as well as eleven robot speeds (0 cm/s,
1.5 cm/s, 3 cm/s, 4.5 cm/s, 6 cm/s, 7.5 cm/s, 9 cm/s, 10.5 cm/s, 12 cm/s, 13.5 cm/s, and
15 cm/s), running for 2 simulated hours. The robots … would be rotating at a given speed"
(one wheel forward, the other backward), four walls around them for the proximity sensors
(Fig. 13(a)). Here: 50 E-Puck2 robots with proximity sensors placed uniformly in a walled
2 m × 2 m arena, 10 ticks per second, one study of 330 runs (``swarmstack sweep`` with
``robots.0.controller.params.speed`` swept and 30 seeds).

Compared with the paper's literal numbers:

* the study's shape: 330 runs, the eleven speeds of §4.3.1, 2 simulated hours (72 000 ticks);
* the robots rotate on the spot as §4.3.1 says: none travels further than its own radius from
  where it started (walls and neighbours may nudge it);
* the mean execution time per run with proximity sensors: ARGoS took 15.10 s per run for 50
  robots without sensors (Table 6, "None") and up to 45 % longer with proximity sensors
  (§4.3.2), i.e. 21.9 s per run; ours (the sweep command's wall time on this machine,
  set-up included, divided by the runs) must be below it.

The quick form (tests) runs 2 seeds of 600 ticks per speed; its execution time (set-up
included, projected to 2 hours) is shown but not compared: short runs on a shared machine say
little about speed, which ``benchmarks/sweep.py`` measures.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

from swarmstack import BatchedController
from swarmstack.validations import (Reproduction, Row, pyplot, save_plot, style_axes,
                                              validation)

# --- the paper's numbers (reference side) ------------------------------------------------------
PAPER_SPEEDS_CM_S = (0.0, 1.5, 3.0, 4.5, 6.0, 7.5, 9.0, 10.5, 12.0, 13.5, 15.0)   # §4.3.1
PAPER_SEEDS = 30                 # §4.3.1: 30 independent simulations per speed
PAPER_ROBOTS = 50                # §4.3.1
PAPER_SIM_S = 2 * 3600.0         # §4.3.1: 2 simulated hours
PAPER_NONE_50_S = 15.10          # Table 6: 50 robots, no sensor, mean execution time (s)
PAPER_PROXIMITY_SLOWER = 0.45    # §4.3.2: proximity "a maximum 45 % longer … for fifty robots"
TICKS_PER_S = 10                 # §4

# --- the study (what the sweep is asked to do) -------------------------------------------------
SPEED_PARAM = "robots.0.controller.params.speed"
SPEED_RANGE = "0:0.15:11"        # m/s: the eleven speeds
QUICK_SEEDS = 2
QUICK_TICKS = 600
LOG_EVERY = 600                  # ticks between logged poses (one a simulated minute)

SPEED_TOL_M_S = 1e-9


class Spin(BatchedController):
    """§4.3.1's robots: left wheel +speed, right wheel −speed (each run its own speed)."""

    def init(self, group, params):
        self.v = group.param("speed", 0.0)

    def step(self, group):
        group.proximity  # a real controller would read it
        group.wheels[:, 0] = self.v
        group.wheels[:, 1] = -self.v


def experiment(robots: int = PAPER_ROBOTS) -> dict:
    """The §4.3 scene for proximity sensors: 50 robots per 4 m², walled."""
    side = 2.0 * math.sqrt(max(robots, 50) / 50.0)
    return {
        "simulation": {"ticks_per_second": TICKS_PER_S, "duration": PAPER_SIM_S, "seed": 1},
        "arena": {"size": [side, side], "walls": {"thickness": 0.02, "height": 0.1}},
        "robots": [{
            "name": "epuck2", "type": "epuck2", "count": robots,
            "sensors": {"proximity": True},
            "controller": {"python": f"{__name__}:Spin", "params": {"speed": 0.05}},
        }],
        "output": {"trajectories": True, "every": LOG_EVERY},
    }


def run_study(out_dir: Path, seeds: int = PAPER_SEEDS, ticks: Optional[int] = None,
              workers: Optional[int] = None, ray: Optional[str] = None,
              progress: bool = True, batch_runs: Optional[int] = None):
    """The §4.3 sweep into ``out_dir`` (resumed if it is already there)."""
    from swarmstack.studies.plan import make_study
    from swarmstack.studies.runner import run_study as run

    spec = make_study(experiment(), "epuck2-study", Path(__file__).parent,
                      [f"{SPEED_PARAM}={SPEED_RANGE}"],
                      seeds=seeds, ticks=ticks)
    return spec, run(spec, out_dir, workers=workers, ray=ray, progress=progress,
                     batch_runs=batch_runs)


def reproduce(out_dir: Path, quick: bool = False, workers: Optional[int] = None,
              ray: Optional[str] = None) -> Reproduction:
    import swarmstack.results as catalogue

    seeds = QUICK_SEEDS if quick else PAPER_SEEDS
    ticks = QUICK_TICKS if quick else None
    study_dir = Path(out_dir) / "study"
    spec, outcome = run_study(study_dir, seeds, ticks, workers, ray, progress=not quick)
    con = catalogue.open(study_dir)
    per_speed = con.execute(
        "select speed, count(*), avg(wall_time_s), stddev_samp(wall_time_s), max(ticks_done) "
        "from runs where status = 'done' group by speed order by speed").fetchall()
    done = sum(r[1] for r in per_speed)
    ticks_run = max((r[4] for r in per_speed), default=0)
    scale = PAPER_SIM_S * TICKS_PER_S / max(1, ticks_run)   # per run, projected to 2 h
    # the study's wall time (every sitting of the sweep command, set-up included) per run
    from swarmstack.studies.ledger import LEDGER, Ledger

    led = Ledger(study_dir / LEDGER)
    try:
        elapsed = float(led.get("elapsed_s") or 0.0)
    finally:
        led.close()
    workers_used = _workers(workers, ray)
    per_run_s = elapsed * scale / max(1, done)
    # rotation on the spot: the largest distance of any robot from where it started
    motion = con.execute(
        "with t as (select r.speed, t.run_id, t.robot, t.tick, t.x, t.y, t.yaw from trajectories t "
        "join runs r using (run_id)), f as (select run_id, robot, x as x0, y as y0 from t "
        "where tick = 0) select t.speed, max(sqrt((t.x - f.x0) ^ 2 + (t.y - f.y0) ^ 2)) "
        "from t join f using (run_id, robot) group by t.speed order by t.speed").fetchall()
    paper_run_s = PAPER_NONE_50_S * (1 + PAPER_PROXIMITY_SLOWER)
    speeds = [float(r[0]) for r in per_speed]
    rows = [
        Row("runs done (11 speeds × 30 seeds; quick: × 2)",
            f"{len(PAPER_SPEEDS_CM_S) * PAPER_SEEDS}",
            f"{done} of {outcome.total}", done == len(PAPER_SPEEDS_CM_S) * seeds == outcome.total),
        Row("wheel speeds swept (cm/s)", ", ".join(f"{v:g}" for v in PAPER_SPEEDS_CM_S),
            ", ".join(f"{v * 100:g}" for v in speeds),
            len(speeds) == len(PAPER_SPEEDS_CM_S) and all(
                abs(a - b / 100) < SPEED_TOL_M_S for a, b in zip(speeds, PAPER_SPEEDS_CM_S))),
        Row("simulated time per run (s)", f"{PAPER_SIM_S:g}",
            f"{ticks_run / TICKS_PER_S:g}" + (" (quick)" if quick else ""),
            quick or abs(ticks_run / TICKS_PER_S - PAPER_SIM_S) < 1e-9),
        Row("robots rotate on the spot: max distance from start (m)", "< 0.035 (a radius)",
            f"{max((m[1] for m in motion), default=float('nan')):.4f}",
            bool(motion) and max(m[1] for m in motion) < 0.035),
        Row("execution time per run, 50 robots, proximity (s, 2 h)",
            f"{paper_run_s:.1f} (Table 6 15.10 s + 45 %, §4.3.2)",
            (f"{per_run_s:.3f} ({paper_run_s / per_run_s:.0f}× less)" if per_run_s else "—")
            + (" (quick: short runs, not compared)" if quick else ""),
            quick or 0 < per_run_s < paper_run_s),
    ]
    files = _table_and_plot(Path(out_dir), per_speed, scale, workers_used, paper_run_s)
    notes = (f"{done} runs in {study_dir}/ (query them: swarmstack results {study_dir} "
             "\"select speed, avg(wall_time_s) from runs group by all\"); execution time = the "
             f"sweep's wall time ({elapsed:.1f} s, set-up included) per run, "
             f"{workers_used} worker(s); per speed (table, plot): each run's share of its "
             "batch's wall time ÷ workers"
             + (f", projected ×{scale:g} to 2 simulated hours" if scale != 1 else ""))
    return Reproduction("epuck2-study", "E-Puck2 §4.3: the execution-time study as one sweep",
                        rows, files, notes)


def _workers(workers, ray) -> int:
    if ray is not None:
        return 1   # per-run wall times are already those of the whole cluster's batches
    from swarmstack.studies.executors import default_workers

    return default_workers() if workers is None else max(1, workers)


def _table_and_plot(out_dir: Path, per_speed, scale, workers_used, paper_run_s) -> list[Path]:
    table = out_dir / "epuck2_study.csv"
    with open(table, "w", encoding="utf-8") as fh:
        fh.write("speed_cm_s,runs,execution_time_per_run_s,sd_s,paper_s\n")
        for speed, n, mean, sd, _ in per_speed:
            fh.write(f"{speed * 100:g},{n},{mean * scale / workers_used:.6f},"
                     f"{(sd or 0.0) * scale / workers_used:.6f},{paper_run_s:.2f}\n")
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    x = [s * 100 for s, *_ in per_speed]
    y = [m * scale / workers_used for _, _, m, _, _ in per_speed]
    ax.bar(x, y, width=1.0, label="swarmstack (per run, all workers)")
    ax.axhline(paper_run_s, color="tab:red", ls="--", label="ARGoS, paper (15.10 s + 45 %)")
    ax.set_yscale("log")
    style_axes(ax, "wheel speed (cm/s)", "execution time per 2 h run (s)",
               "§4.3: 50 E-Puck2 robots with proximity sensors")
    return [table, save_plot(fig, out_dir / "epuck2_study.png")]


@validation("epuck2-study")
def _run(out_dir: Path, quick: bool = False) -> Reproduction:
    return reproduce(out_dir, quick)
