"""The E-Puck2 paper's §4.3 execution-time study as one sweep: 11 speeds × 30 seeds, 50 robots
with proximity sensors, 2 simulated hours a run (330 × 50 × 72 000 robot-ticks).

    python benchmarks/sweep.py --workers 2 --json            # the full study
    python benchmarks/sweep.py --workers 1 --ticks 6000      # shorter runs
    python benchmarks/sweep.py --ray local --ticks 6000      # the same on a one-machine Ray

Prints a table, then (``--json``) one JSON object as the last line: ``wall_s`` (the sweep
command's work from planning to the last run recorded, in a fresh study folder),
``robot_ticks_per_s``, the CPU seconds spent (``cpu_s``, this process and its worker
processes; Ray's workers are not counted) and the machine's load average — on a shared
machine, compare ``robot_ticks_per_cpu_s`` between settings.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cpu import cpu_seconds  # noqa: E402
from swarmstack.sim import threads  # noqa: E402
from swarmstack.validations.epuck2_study import (PAPER_ROBOTS, PAPER_SEEDS,  # noqa: E402
                                                            PAPER_SIM_S, TICKS_PER_S, run_study)

ARGOS_S_PER_RUN = 30.28   # ARGoS + E-Puck2 plug-in, 50 robots, proximity, 72 000 ticks, our machine



def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workers", type=int, default=None, help="local processes (default: cores)")
    p.add_argument("--ray", default=None, help="Ray address (auto, HOST:PORT, local)")
    p.add_argument("--seeds", type=int, default=PAPER_SEEDS)
    p.add_argument("--ticks", type=int, default=None, help="ticks per run (default 72 000)")
    p.add_argument("--batch-runs", type=int, default=None)
    p.add_argument("--out", type=Path, default=None, help="study folder (default: a temporary "
                                                          "one, removed after)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="kernel threads (0: every usable core; default: SWARMSTACK_THREADS, "
                        "else 0)")
    a = p.parse_args(argv)
    try:
        n_threads = threads.set_threads(a.threads)
    except ValueError as exc:
        p.error(str(exc))
    out = a.out or Path(tempfile.mkdtemp(prefix="swarmstack-sweep-")) / "study"
    if out.exists():
        shutil.rmtree(out)
    t0 = time.perf_counter()
    cpu0 = cpu_seconds()
    spec, outcome = run_study(out, seeds=a.seeds, ticks=a.ticks, workers=a.workers, ray=a.ray,
                              progress=not a.json, batch_runs=a.batch_runs)
    wall = time.perf_counter() - t0
    cpu = cpu_seconds() - cpu0   # this process and its finished worker processes (not Ray's)
    ticks = a.ticks or int(PAPER_SIM_S * TICKS_PER_S)
    runs = outcome.total
    robot_ticks = runs * PAPER_ROBOTS * ticks
    result = {
        "runs": runs, "done": outcome.done, "failed": outcome.failed, "robots": PAPER_ROBOTS,
        "ticks": ticks, "workers": a.workers, "ray": a.ray, "threads": n_threads,
        "wall_s": wall,
        "robot_ticks_per_s": robot_ticks / wall,
        "cpu_s": cpu, "robot_ticks_per_cpu_s": robot_ticks / cpu if cpu > 0 else None,
        "load_average_1min": os.getloadavg()[0],
        "projected_wall_s_for_2h": wall * PAPER_SIM_S * TICKS_PER_S / ticks,
        "argos_wall_s": ARGOS_S_PER_RUN * runs,
    }
    result["speedup_vs_argos"] = result["argos_wall_s"] / result["projected_wall_s_for_2h"]
    if a.out is None:
        shutil.rmtree(out.parent, ignore_errors=True)
    for k, v in result.items():
        print(f"{k:>24}  {v:.4g}" if isinstance(v, float) else f"{k:>24}  {v}")
    if a.json:
        print(json.dumps(result))
    return 0 if outcome.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
