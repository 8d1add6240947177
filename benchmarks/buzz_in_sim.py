"""Buzz on simulated robots, after the ARGoS + Buzz anchors (performance-anchors.md).

100 E-Puck2 robots placed uniformly in an 8 × 8 m walled arena run a Buzz script on the
simulated range-and-bearing radio (100-byte payload cap) at 10 ticks/s:

- ``flocking``: ``examples/buzz/flocking.bzz`` (Lennard-Jones flocking through ``goto``, robots
  moving), radio range 1 m and 3 m;
- ``empty``: a script whose ``step()`` does nothing (the fixed cost of the Buzz layer), 3 m.

Each case is timed after ``start()`` and one warm-up tick, median of ``--repeats``. Prints a
table, or with ``--json`` one JSON object per case; the last line is the 1 m flocking case
(``robot_ticks_per_s``).

    python benchmarks/buzz_in_sim.py --json
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swarmstack.sim.simulation import Simulation  # noqa: E402

# ARGoS + Buzz (buzz_controller_footbot), 100 foot-bots, 8 × 8 m, 100-byte payload
ARGOS_ROBOT_TICKS_PER_S = {("flocking", 3.0): 518, ("flocking", 1.0): 2660, ("empty", 3.0): 2200}
EMPTY = "function init() {}\nfunction step() {}\n"


def experiment(script: str, range_m: float, robots: int) -> dict:
    return {
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [8.0, 8.0], "walls": True},
        "robots": [{"name": "flock", "type": "epuck2", "count": robots,
                    "controller": {"buzz": script},
                    "radio": {"range": range_m, "payload_bytes": 100}}],
    }


def measure(case: str, range_m: float, robots: int, ticks: int, repeats: int,
            seed: int = 1) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        if case == "flocking":
            script = str(ROOT / "examples" / "buzz" / "flocking.bzz")
        else:
            script = str(Path(tmp) / "empty.bzz")
            Path(script).write_text(EMPTY)
        walls = []
        neighbours = []
        for _ in range(repeats):
            sim = Simulation.from_dict(experiment(script, range_m, robots), seed=seed)
            sim.start()
            sim.step()
            t0 = time.perf_counter()
            sim.run(ticks)
            walls.append(time.perf_counter() - t0)
            inbox = sim.medium.inbox
            neighbours.append(float(len(inbox)) / robots)
    wall = statistics.median(walls)
    rts = robots * ticks / wall
    argos = ARGOS_ROBOT_TICKS_PER_S.get((case, range_m))
    return {"benchmark": "buzz_in_sim", "case": case, "robots": robots, "range_m": range_m,
            "ticks": ticks, "repeats": repeats, "wall_s": round(wall, 4),
            "neighbours_at_end": round(statistics.median(neighbours), 2),
            "robot_ticks_per_s": round(rts, 1),
            "argos_buzz_robot_ticks_per_s": argos,
            "ratio_to_argos": round(rts / argos, 1) if argos else None}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", type=int, default=100)
    ap.add_argument("--ticks", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cases = [("empty", 3.0), ("flocking", 3.0), ("flocking", 1.0)]
    results = [measure(c, r, args.robots, args.ticks, args.repeats) for c, r in cases]
    if args.json:
        for r in results:
            print(json.dumps(r))
        return
    print(f"{'case':10} {'range':>6} {'neigh.':>7} {'robot-ticks/s':>14} {'ARGoS+Buzz':>11} "
          f"{'ratio':>7}")
    for r in results:
        argos = r["argos_buzz_robot_ticks_per_s"]
        print(f"{r['case']:10} {r['range_m']:>5}m {r['neighbours_at_end']:>7} "
              f"{r['robot_ticks_per_s']:>14,.0f} {argos or '-':>11} "
              f"{(str(r['ratio_to_argos']) + '×') if argos else '-':>7}")


if __name__ == "__main__":
    main()
