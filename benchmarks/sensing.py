"""Cost of each phase of a tick, per sensor: microseconds per tick.

The ``epuck2_sensors.py`` workload (N E-Puck2s spinning on the spot in a walled square arena,
50 robots per 4 m², one sensor enabled; 6 lights for the light sensors, 8 for the camera). Each
tick runs control → actuate → dynamics → contacts → sense → radio, each phase timed on its
own (the least costly of its blocks of 500 ticks: a shared machine only ever adds time), so
every figure includes what the rest of a real tick leaves in the caches; each also holds
about 0.1 µs of the clock reading itself. ``loop`` is the CPU time per tick of ``sim.run`` over the same
number of ticks, without the clocks (its least costly block of 500 ticks likewise). Prints a
table and, as the last line, one JSON list with every case.

    python benchmarks/sensing.py                                   # 50 robots, 5 workloads
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
from swarmstack.sim import threads  # noqa: E402
from swarmstack.sim.simulation import Simulation  # noqa: E402

SENSORS = ("light", "tof", "camera", "proximity", "none")
PHASES = ("control", "actuate", "dynamics", "contacts", "sense", "radio")


def phases_us(robots: int, sensor: str, ticks: int, n_threads: int, seed: int = 1,
              block: int = 500) -> dict:
    """Microseconds per tick of each phase over ``ticks`` ticks (after one): the ticks run in
    blocks of ``block``, and each phase's figure is its least costly block (on a shared
    machine a block in which the process was preempted costs more, never less). ``loop``:
    CPU microseconds per tick of ``sim.run`` over as many ticks right after, its least costly
    block likewise."""
    threads.set_threads(n_threads)
    sim = Simulation.from_dict(experiment(robots, sensor, "batched"), seed=seed, runs=1)
    sim.start()
    sim.step()  # compile or load every kernel outside the timed part
    calls = [getattr(sim, phase) for phase in PHASES]
    best = [float("inf")] * len(calls)
    clock = time.perf_counter_ns
    world = sim.world
    done = 0
    while done < ticks:
        n = min(block, ticks - done)
        spent = [0] * len(calls)
        for _ in range(n):
            for k, phase in enumerate(calls):
                if k == 4:
                    world.tick += 1  # as Simulation.step: the readings are of the new tick
                t = clock()
                phase()
                spent[k] += clock() - t
        best = [min(b, ns / n / 1000.0) for b, ns in zip(best, spent)]
        done += n
    out = dict(zip(PHASES, best))
    loop = float("inf")
    done = 0
    while done < ticks:
        n = min(block, ticks - done)
        c0 = time.process_time()
        sim.run(n)
        loop = min(loop, (time.process_time() - c0) / n * 1e6)
        done += n
    out["loop"] = loop
    return out


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
                us = phases_us(robots, sensor, a.ticks, n)
                rows.append({"robots": robots, "sensor": sensor, "threads": n,
                             "ticks": a.ticks, "sense_us_per_tick": us["sense"],
                             **{f"{k}_us_per_tick": v for k, v in us.items() if k != "sense"}})
    print(f"{'robots':>7} {'sensor':>10} {'threads':>8} "
          + " ".join(f"{name:>8}" for name in PHASES) + f" {'loop CPU':>9}   (µs a tick)")
    for r in rows:
        print(f"{r['robots']:>7} {r['sensor']:>10} {r['threads']:>8} "
              + " ".join(f"{r[f'{name}_us_per_tick']:>8.2f}" for name in PHASES)
              + f" {r['loop_us_per_tick']:>9.2f}")
    print(json.dumps(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
