"""Range-and-bearing medium cost: ``Medium.deliver`` alone, on a still swarm.

N E-Puck2s placed uniformly (no overlaps, uniform heading) in a square arena closed by four
walls; every robot writes a payload (100 bytes by default) into the outbox every tick, then
one ``deliver`` moves every frame (occlusion by the walls on). The figure is the median over
several repeats of ``ticks`` deliveries, after a warm-up. Prints one JSON object per case
(``--json``; the last line is the headline case) or a table.

    python benchmarks/radio.py --robots 1000 --range 0.5 --arena 9 --json
    python benchmarks/radio.py --table          # 1 000 robots at 0.5 m, 100 at 1 m and 3 m
    python benchmarks/radio.py --kernel parallel --threads 2
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402

from swarmstack.sim import threads as kernel_threads  # noqa: E402
from swarmstack.sim.simulation import Simulation  # noqa: E402
from swarmstack.media import Medium, RadioParams  # noqa: E402

# (robots, range m, arena side m): the headline case (about 9 neighbours each), then 100
# robots in an 8 x 8 m arena at 1 m and 3 m
TABLE = ((1000, 0.5, 9.0), (100, 1.0, 8.0), (100, 3.0, 8.0))


def experiment(robots: int, side: float) -> dict:
    return {
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [side, side], "walls": {"thickness": 0.02, "height": 0.1}},
        "robots": [{"name": "epuck2", "type": "epuck2", "count": robots}],
    }


def measure(robots: int, range_m: float, side: float, payload: int = 100, ticks: int = 2000,
            repeats: int = 5, seed: int = 1, drop: float = 0.0, robots_occlude: bool = False,
            parallel=None) -> dict:
    sim = Simulation.from_dict(experiment(robots, side), seed=seed)
    sim.start()
    world = sim.world
    params = RadioParams.for_world(world, {"epuck2": {"range_m": range_m,
                                                      "payload_bytes": payload,
                                                      "drop": drop}},
                                   seed=seed, robots_occlude=robots_occlude)
    medium = Medium(params, world.n_runs, parallel=parallel)
    frame = np.arange(payload, dtype=np.uint8)

    def tick():
        medium.outbox[:, :payload] = frame  # every robot writes its payload (vectorised)
        medium.out_size[:] = payload
        inbox = medium.deliver(world)
        world.tick += 1
        return inbox

    for _ in range(max(20, ticks // 10)):  # warm-up: compiled kernels loaded, slots sized
        inbox = tick()
    neighbours = len(inbox) / robots
    walls = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(ticks):
            tick()
        walls.append(time.perf_counter() - t0)
    wall = statistics.median(walls)
    threads = numba.get_num_threads() if medium._use_parallel() else 1
    return {
        "robots": robots, "range_m": range_m, "arena_m": side, "payload_bytes": payload,
        "occlusion": True, "robots_occlude": robots_occlude, "drop": drop,
        "mean_neighbours": neighbours, "ticks": ticks, "repeats": repeats,
        "threads": threads, "wall_time_s": wall,
        "ticks_per_s": ticks / wall, "robot_ticks_per_s": robots * ticks / wall,
        "real_time_factor_at_10hz": ticks / wall / 10.0,
        "stats": medium.stats_of(0),
    }


def print_table(rows: list[dict]) -> None:
    print(f"{'robots':>6} {'range m':>7} {'arena m':>7} {'neighb.':>7} {'threads':>7} "
          f"{'ticks/s':>9} {'robot-ticks/s':>14} {'x real time':>11}")
    for r in rows:
        print(f"{r['robots']:>6} {r['range_m']:>7.2f} {r['arena_m']:>7.1f} "
              f"{r['mean_neighbours']:>7.2f} {r['threads']:>7} {r['ticks_per_s']:>9,.0f} "
              f"{r['robot_ticks_per_s']:>14,.0f} {r['real_time_factor_at_10hz']:>11,.0f}")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", type=int, default=1000)
    p.add_argument("--range", type=float, default=0.5, help="radio range (m)")
    p.add_argument("--arena", type=float, default=9.0, help="arena side (m)")
    p.add_argument("--payload", type=int, default=100, help="bytes per robot per tick")
    p.add_argument("--ticks", type=int, default=2000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--drop", type=float, default=0.0)
    p.add_argument("--robots-occlude", action="store_true")
    p.add_argument("--threads", type=int, default=None,
                   help="kernel threads (0: every usable core; default: SWARMSTACK_THREADS, "
                        "else 0)")
    p.add_argument("--kernel", choices=("auto", "serial", "parallel"), default="auto",
                   help="the medium's kernel (auto: multi-threaded from 4 096 robots)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--table", action="store_true",
                   help="1 000 robots at 0.5 m (9 x 9 m), 100 robots at 1 m and 3 m (8 x 8 m)")
    p.add_argument("--json", action="store_true")
    a = p.parse_args(argv)
    try:
        kernel_threads.set_threads(a.threads)
    except ValueError as exc:
        p.error(str(exc))
    if a.kernel == "parallel":  # forced parallel: the pool sized to the threads asked for
        numba.set_num_threads(min(kernel_threads.threads(), numba.config.NUMBA_NUM_THREADS))
    parallel = {"auto": None, "serial": False, "parallel": True}[a.kernel]
    cases = TABLE[::-1] if a.table else ((a.robots, a.range, a.arena),)
    rows = [measure(n, r, side, a.payload, a.ticks, a.repeats, a.seed, a.drop,
                    a.robots_occlude, parallel) for n, r, side in cases]
    if a.json:
        for r in rows:
            print(json.dumps(r))
    elif a.table:
        print_table(rows[::-1])
    else:
        for k, v in rows[0].items():
            print(f"{k:>24}  {v:.4g}" if isinstance(v, float) else f"{k:>24}  {v}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
