"""Crazyflie flight cost: N drones under position control, camera off, at 10 ticks/s.

The drones take off from a grid to 1 m, then every 5 s each flies to a new random waypoint
within ``--spread`` metres of its take-off point in x and y (0.5–1.5 m high; default 0.5 m:
swarm-formation moves), or anywhere in the arena with ``--spread 0`` (moves of metres at up
to 10 m/s). A batched controller writes the ``mode`` and ``target`` commands, so the time is
the simulator's: flight kernel, sub-steps, contacts (drones collide in 3-D), positioning.
Fast drones cost sub-steps: a tick is cut so that no drone moves more than 0.6 of its radius
(2.8 cm) per contact pass, for the whole world. Prints one JSON object as the last line with
``--json``.

    python benchmarks/crazyflie.py --robots 1000 --sim-seconds 60 --json
    python benchmarks/crazyflie.py --robots 1000 --sim-seconds 60 --spread 0 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swarmstack import BatchedController  # noqa: E402
from swarmstack.sim.simulation import Simulation  # noqa: E402

WAYPOINT_S = 5.0


class Waypoints(BatchedController):
    """Take off, then a new random waypoint for every drone every ``WAYPOINT_S`` seconds."""

    def init(self, group, params):
        self.half = float(params.get("half_side", 5.0)) * 0.9
        self.spread = float(params.get("spread", 0.5))
        self.every = max(1, int(round(WAYPOINT_S / group.dt)))
        self.home = None

    def step(self, group):
        if group.tick == 0:
            group.mode[:] = 4                      # take off
            group.target[:] = (math.nan, math.nan, 1.0, math.nan)
            self.home = np.array(group.pose[:, :2])
        elif group.tick % self.every == 0:
            u = group.uniform(3)
            group.mode[:] = 1                      # absolute position
            if self.spread > 0:
                group.target[:, :2] = self.home + (2 * u[:, :2] - 1) * self.spread
                group.target[:, 2] = 0.5 + u[:, 2]
            else:
                group.target[:, 0] = (2 * u[:, 0] - 1) * self.half
                group.target[:, 1] = (2 * u[:, 1] - 1) * self.half
                group.target[:, 2] = 0.5 + 1.5 * u[:, 2]


def experiment(robots: int, spread: float = 0.5) -> dict:
    side = 10.0 * math.sqrt(max(robots, 100) / 1000.0)
    k = int(math.ceil(math.sqrt(robots)))
    step = side / (k + 1)
    poses = [[-side / 2 + step * (1 + i % k), -side / 2 + step * (1 + i // k), 0.0]
             for i in range(robots)]
    return {
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [side, side], "walls": True},
        "robots": [{"name": "cf", "type": "crazyflie",
                    "placement": {"kind": "explicit", "poses": poses},
                    "sensors": {"positioning": True},
                    "controller": {"python": "benchmarks.crazyflie:Waypoints",
                                   "params": {"half_side": side / 2,
                                              "spread": spread}}}],
    }


def measure(robots: int, sim_seconds: float, seed: int = 1, spread: float = 0.5) -> dict:
    t_setup = time.perf_counter()
    sim = Simulation.from_dict(experiment(robots, spread), seed=seed)
    sim.start()
    sim.step()  # compile/load every kernel outside the timed part
    setup = time.perf_counter() - t_setup
    ticks = int(round(sim_seconds * 10))
    t0 = time.perf_counter()
    sim.run(ticks)
    wall = time.perf_counter() - t0
    z = sim.world.bodies.z
    return {"robots": robots, "spread_m": spread, "ticks": ticks, "sim_seconds": sim_seconds,
            "wall_time_s": wall,
            "setup_time_s": setup, "robot_ticks_per_s": robots * ticks / wall,
            "real_time_factor": sim_seconds / wall, "flying": int(np.count_nonzero(z > 0.1))}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--robots", type=int, default=1000)
    ap.add_argument("--sim-seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--spread", type=float, default=0.5,
                    help="waypoints within this many metres of home (0: anywhere)")
    ap.add_argument("--json", action="store_true", help="one JSON object as the last line")
    a = ap.parse_args(argv)
    r = measure(a.robots, a.sim_seconds, a.seed, a.spread)
    if a.json:
        print(json.dumps(r))
    else:
        for k, v in r.items():
            print(f"{k:>20}: {v:.4g}" if isinstance(v, float) else f"{k:>20}: {v}")


if __name__ == "__main__":
    main()
