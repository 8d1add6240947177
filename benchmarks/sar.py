"""The search-and-rescue study of the BittyBuzz thesis (§5.4) end to end: 3 arenas × 3 swarm
sizes × 2 searches × 30 runs of Buzz drones, until every run has found its 3 targets and formed
its relay tree.

    python benchmarks/sar.py --json                 # the full study (540 runs)
    python benchmarks/sar.py --scale 0.1            # 3 runs per case

Prints one line per case (runs, ticks simulated, CPU seconds), then a summary; with ``--json``
the last line is one JSON object: ``wall_s``, ``cpu_s`` (this process and its workers, user +
system), ``runs``, ``robot_ticks``, ``robot_ticks_per_cpu_s`` and the load average (the machine
is shared: compare CPU seconds between settings).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cpu import cpu_seconds  # noqa: E402
from swarmstack.validations.sar import (PAPER_ARENAS_M, PAPER_DRONES,  # noqa: E402
                                                  PAPER_RUNS, run_study)

TARGET_S = 600.0   # the full study in at most 10 minutes on the 2-core reference machine



def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scale", type=float, default=1.0, help="share of the 30 runs per case")
    p.add_argument("--workers", type=int, default=None, help="processes (default: cores)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    runs = max(1, round(PAPER_RUNS * a.scale))
    load0 = os.getloadavg()[0]
    cpu0, t0 = cpu_seconds(), time.perf_counter()
    study = run_study(PAPER_ARENAS_M, PAPER_DRONES, runs, a.workers)
    wall, cpu = time.perf_counter() - t0, cpu_seconds() - cpu0
    robot_ticks = 0
    print(f"{'arena m':>8} {'drones':>6} {'search':>7} {'runs':>4} {'ticks':>6} {'formed':>6}")
    for (arena, drones, search), c in sorted(study.cases.items()):
        robot_ticks += c.drone_ticks
        formed = sum(x >= 0 for x in c.formed_at)
        print(f"{arena:8g} {drones:6d} {search:>7} {len(c.seeds):4d} {c.ticks:6d} "
              f"{formed:4d}/{len(c.seeds)}")
    total_runs = sum(len(c.seeds) for c in study.cases.values())
    print(f"{total_runs} runs, {robot_ticks} drone-ticks: {wall:.1f} s wall, {cpu:.1f} s CPU "
          f"(target for the full study: {TARGET_S:.0f} s wall); load "
          f"{load0:.1f} → {os.getloadavg()[0]:.1f}")
    if a.json:
        print(json.dumps({"benchmark": "sar", "scale": a.scale, "runs": total_runs,
                          "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                          "robot_ticks": robot_ticks,
                          "robot_ticks_per_cpu_s": round(robot_ticks / cpu) if cpu else None,
                          "target_wall_s": TARGET_S,
                          "load": [round(load0, 2), round(os.getloadavg()[0], 2)]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
