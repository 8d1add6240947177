"""Cost of the sensing phase alone, per sensor: microseconds per tick.

The ``epuck2_sensors.py`` workload (N E-Puck2s spinning on the spot in a walled square arena,
50 robots per 4 m², one sensor enabled; 6 lights for the light sensors, 8 for the camera). Each
tick runs control → actuate → physics → sense → radio, and only the sense phase is timed, so
the figure includes what a real tick leaves in the caches. Prints a table and, as the last
line, one JSON object with every case.

    python benchmarks/sensing.py                                   # 50 robots, 4 sensors
    python benchmarks/sensing.py --robots 10000 --sensors proximity --ticks 100 --threads 1 2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.epuck2_sensors import experiment  # noqa: E402
from swarmstack import threads  # noqa: E402
from swarmstack.experiments.simulation import Simulation  # noqa: E402

SENSORS = ("light", "tof", "camera", "proximity")


def sense_us(robots: int, sensor: str, ticks: int, n_threads: int, seed: int = 1) -> float:
    """Mean microseconds of the sense phase per tick over ``ticks`` ticks (after one)."""
    threads.set_threads(n_threads)
    sim = Simulation.from_dict(experiment(robots, sensor, "batched"), seed=seed, runs=1)
    sim.start()
    sim.step()  # compile or load every kernel outside the timed part
    spent = 0.0
    for _ in range(ticks):
        sim.control()
        sim.actuate()
        sim.physics()
        sim.world.tick += 1
        t = time.perf_counter()
        sim.sense()
        spent += time.perf_counter() - t
        sim.radio()
    return spent / ticks * 1e6


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", type=int, nargs="+", default=[50])
    p.add_argument("--sensors", choices=SENSORS, nargs="+", default=list(SENSORS))
    p.add_argument("--ticks", type=int, default=3000)
    p.add_argument("--threads", type=int, nargs="+", default=[1])
    a = p.parse_args(argv)
    rows = []
    for robots in a.robots:
        for sensor in a.sensors:
            for n in a.threads:
                rows.append({"robots": robots, "sensor": sensor, "threads": n,
                             "ticks": a.ticks,
                             "sense_us_per_tick": sense_us(robots, sensor, a.ticks, n)})
    print(f"{'robots':>7} {'sensor':>10} {'threads':>8} {'sense µs/tick':>14}")
    for r in rows:
        print(f"{r['robots']:>7} {r['sensor']:>10} {r['threads']:>8} "
              f"{r['sense_us_per_tick']:>14.2f}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
