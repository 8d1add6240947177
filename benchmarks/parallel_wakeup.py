"""What a parallel kernel pays for the time its second thread was idle.

A tick of a large swarm runs one parallel region (the sensors) between serial phases
(controllers, actuators, physics: about 0.1 ms at 10 000 robots). This times the sensing of
``--robots`` E-Puck2s with proximity, on one and two threads, right after the calling thread
has spent ``--idle-us`` microseconds on serial work of its own (a busy wait: no memory
traffic), and a whole tick for comparison. On a machine whose idle cores take long to wake,
the two-thread sensing grows with the idle time while the one-thread sensing does not: that
growth is what a tick loses against the ideal two-thread speed-up.

Before each call every robot turns a little (0.01 rad), as a tick moves it: with ``--same-poses``
the calls repeat the same pass instead, which two threads run much faster than a pass over
new headings (2.8× one thread instead of ~1.9×), however short the idle time: the figures of
such a pass are not those of a tick.

    python benchmarks/parallel_wakeup.py                      # 10 000 robots, 0/100/1000 µs
    python benchmarks/parallel_wakeup.py --robots 2000 --idle-us 0,50 --calls 50 --json

Prints a table, then (``--json``) one JSON object with every figure as the last line.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from swarmstack.sim import threads  # noqa: E402


def busy_wait(seconds: float) -> None:
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        pass


TURN_RAD = 0.01  # what each robot turns before a sensing call (the benchmark's spin: 0.19)


def measure(robots: int, n_threads: int, idle_us: list[float], calls: int,
            turn: bool = True) -> dict:
    """Median seconds of one sensing call after each idle time (each robot first turned by
    :data:`TURN_RAD` unless ``turn`` is False), and of one whole tick."""
    from epuck2_sensors import experiment

    from swarmstack.sim.simulation import Simulation

    threads.set_threads(n_threads)
    sim = Simulation.from_dict(experiment(robots, "proximity", "batched"), seed=1)
    sim.start()
    sim.step()   # loads the kernels, binds the groups for this thread count
    sim.step()
    sense = {}
    for idle in idle_us:
        samples = []
        for _ in range(calls):
            if turn:
                sim.world.bodies.pose[5] += TURN_RAD
            busy_wait(idle * 1e-6)
            t0 = time.perf_counter()
            sim.sense()
            samples.append(time.perf_counter() - t0)
        sense[idle] = statistics.median(samples)
    ticks = []
    for _ in range(calls):
        t0 = time.perf_counter()
        sim.step()
        ticks.append(time.perf_counter() - t0)
    return {"threads": n_threads, "sense_s": sense, "tick_s": statistics.median(ticks)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", type=int, default=10_000)
    p.add_argument("--idle-us", default="0,100,1000",
                   help="comma-separated idle times before each sensing call, in µs")
    p.add_argument("--calls", type=int, default=200, help="calls timed per figure (median)")
    p.add_argument("--same-poses", action="store_true",
                   help="repeat the same sensing pass (no turn between calls)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    try:
        idle = [float(v) for v in a.idle_us.split(",") if v.strip()]
    except ValueError:
        p.error(f"--idle-us: expected numbers separated by commas, found {a.idle_us!r}")
    if not idle or min(idle) < 0 or a.robots < 1 or a.calls < 1:
        p.error("--idle-us needs values ≥ 0; --robots and --calls at least 1")
    rows = [measure(a.robots, n, idle, a.calls, turn=not a.same_poses) for n in (1, 2)]
    one, two = rows
    print(f"{a.robots} E-Puck2, proximity: one sensing call (ms, median of {a.calls}"
          f"{', the same poses each time' if a.same_poses else ', robots turned before each'})")
    print(f"{'idle before (µs)':>18} | {'1 thread':>9} | {'2 threads':>9} | {'×':>5}")
    for t in idle:
        s1, s2 = one["sense_s"][t], two["sense_s"][t]
        print(f"{t:>18g} | {s1 * 1e3:>9.3f} | {s2 * 1e3:>9.3f} | {s1 / s2:>5.2f}")
    print(f"{'whole tick':>18} | {one['tick_s'] * 1e3:>9.3f} | {two['tick_s'] * 1e3:>9.3f} | "
          f"{one['tick_s'] / two['tick_s']:>5.2f}")
    if a.json:
        print(json.dumps({"benchmark": "parallel_wakeup", "robots": a.robots, "calls": a.calls,
                          "idle_us": idle, "same_poses": a.same_poses,
                          "rows": [{"threads": r["threads"], "tick_s": r["tick_s"],
                                    "sense_s": [r["sense_s"][t] for t in idle]}
                                   for r in rows]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
