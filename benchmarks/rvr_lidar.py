"""RVR lidar cost: N RVRs with the 719-ray lidar on, in a 5 m × 5 m arena with obstacles
(larger beyond 100 robots, keeping the 0.42 m grid they start on).

The robots wander (a batched controller: forward, turning away when the lidar's front sector
reads under 0.4 m), so the time is the simulator's: tread drive, box contacts and the lidar
(one Numba kernel over all robots and rays, uniform noise of 1 cm). The lidar's own update is
also timed alone on the final scene: its share of the tick and the rays it casts per second.
The same scene without the lidar (robots then drive straight) is measured for comparison.
Prints a table and, with ``--json``, one JSON object as the last line.

    python benchmarks/rvr_lidar.py --robots 100 --json
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

SPEED_M_S = 0.2


class Wander(BatchedController):
    """Straight on; turn on the spot while anything is within 0.4 m in the front ±30°."""

    def init(self, group, params):
        self.front = None

    def step(self, group):
        if not hasattr(group, "lidar"):      # the run without the lidar: straight on
            group.wheels[:] = SPEED_M_S
            return
        if self.front is None:
            k = group.lidar.shape[1]
            ang = (math.pi / 16 + 2 * math.pi / k * np.arange(k) + math.pi) % (2 * math.pi) \
                - math.pi
            self.front = np.flatnonzero(np.abs(ang) < math.radians(30))
        scan = group.lidar[:, self.front]
        blocked = ((scan > 0.1) & (scan < 0.4)).any(axis=1)
        group.wheels[:, 0] = SPEED_M_S
        group.wheels[:, 1] = np.where(blocked, -SPEED_M_S, SPEED_M_S)


def experiment(robots: int, lidar: bool) -> dict:
    """Robots on a grid of 0.42 m (the 0.286 m boxes' bounding circles do not overlap, and
    random placement of 100 such boxes in 25 m² gives up); posts stand in the gaps between
    four robots, boxes along the walls."""
    sensors = {"lidar": {"noise_width": 0.01}} if lidar else {}
    k = int(math.ceil(math.sqrt(robots)))
    step = 0.42
    o = -step * (k - 1) / 2
    poses = [[o + step * (i % k), o + step * (i // k), 0.3 * i] for i in range(robots)]
    side = max(5.0, step * k + 1.0)   # 5 m × 5 m up to 100 robots, larger beyond
    h = side / 2 - 0.2
    posts = [{"center": [o + step * (a + 0.5), o + step * (b + 0.5)], "radius": 0.06,
              "height": 0.3} for a in range(1, k - 1, 3) for b in range(1, k - 1, 3)]
    return {
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [side, side], "walls": {"height": 0.3}},
        "boxes": [{"center": [h, 0.0], "size": [0.2, 1.0, 0.3]},
                  {"center": [-h, 1.0], "size": [0.2, 0.6, 0.3]},
                  {"center": [0.5, h], "size": [1.2, 0.2, 0.3]},
                  {"center": [-1.0, -h], "size": [0.8, 0.2, 0.3]}],
        "cylinders": posts,
        "robots": [{"name": "rvr", "type": "rvr", "count": robots, "sensors": sensors,
                    "placement": {"kind": "explicit", "poses": poses},
                    "controller": {"python": "benchmarks.rvr_lidar:Wander"}}],
    }


def measure(robots: int, ticks: int, lidar: bool, seed: int = 1) -> tuple[float, float]:
    """Robot-ticks per second of ``ticks`` ticks after a 20-tick warm-up, and the seconds one
    lidar update of the whole group takes (timed on the final scene; 0 without the lidar)."""
    sim = Simulation.from_dict(experiment(robots, lidar), base_dir=ROOT, seed=seed)
    sim.run(20)
    t0 = time.perf_counter()
    sim.run(ticks)
    rate = robots * ticks / (time.perf_counter() - t0)
    lidar_s = 0.0
    if lidar:
        g = sim.groups[0]
        dev = g.devices["lidar"]
        reps = max(10, ticks // 10)
        update = dev.plan(sim.world, g.slice, g.streams.keys(dev.stream), g.readings["lidar"],
                          g.states["lidar"])
        t0 = time.perf_counter()
        for _ in range(reps):
            update()
        lidar_s = (time.perf_counter() - t0) / reps
    return rate, lidar_s


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--robots", type=int, default=100)
    ap.add_argument("--ticks", type=int, default=300)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    with_lidar, lidar_s = measure(a.robots, a.ticks, True)
    without, _ = measure(a.robots, a.ticks, False)
    tick_s = a.robots / with_lidar                 # seconds per tick of the whole swarm
    share = min(1.0, lidar_s / tick_s)
    rays_per_s = a.robots * 719 / lidar_s          # rays per second of lidar time
    result = {"robots": a.robots, "ticks": a.ticks, "rays_per_robot": 719,
              "robot_ticks_per_s": round(with_lidar, 1),
              "robot_ticks_per_s_without_lidar": round(without, 1),
              "lidar_share_of_tick": round(share, 3),
              "lidar_rays_per_s": round(rays_per_s, 0),
              "real_time_factor": round(with_lidar / a.robots * 0.1, 2)}
    print(f"{'robots':>7} {'robot-ticks/s':>14} {'without lidar':>14} {'lidar share':>12} "
          f"{'rays/s':>12} {'× real time':>12}")
    print(f"{a.robots:>7} {with_lidar:>14,.0f} {without:>14,.0f} {share:>12.1%} "
          f"{rays_per_s:>12,.0f} {result['real_time_factor']:>12.2f}")
    if a.json:
        print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
