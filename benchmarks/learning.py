"""Agent-steps per second through the learning interface: 50 E-Puck2 with proximity sensors in
the §4.3 arena (2 × 2 m, walls), stepped by ``swarmstack.learn.vector_env`` with random wheel
speeds, over 1, 32 and 330 worlds (one run each), beside the same batch stepped by
``Simulation.step`` alone with the same commands (the interface's overhead).

    python benchmarks/learning.py                       # a table
    python benchmarks/learning.py --worlds 330 --json   # JSON; agent_steps_per_s last

An agent-step is one robot's observation, action and reward for one tick. Actions are drawn
before the clock starts; the figure is the best of ``--repeat`` timings of ``--ticks`` ticks
after a first reset and step (which load the kernels).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

ROBOTS = 50


def experiment(ticks: int, robots: int = ROBOTS) -> dict:
    return {
        "simulation": {"ticks_per_second": 10, "ticks": ticks + 1, "seed": 1},
        "arena": {"size": [2.0, 2.0], "walls": True},
        "robots": [{"name": "swarm", "type": "epuck2", "count": robots,
                    "placement": {"kind": "uniform"}, "sensors": {"proximity": True}}],
    }


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def measure(worlds: int, ticks: int, repeat: int) -> dict:
    from swarmstack import learn
    from swarmstack.sim.simulation import Simulation

    env = learn.vector_env(experiment(ticks), num_envs=worlds, commands=["wheels"], flat=True)
    rng = np.random.default_rng(0)
    low, high = env.action_space.low, env.action_space.high
    actions = [rng.uniform(low, high).astype(env.action_space.dtype) for _ in range(ticks)]

    def through_env():
        env.reset(seed=1)
        for a in actions:
            env.step(a)

    sim = Simulation.from_dict(experiment(ticks), seed=1, runs=worlds)
    wheels = [a.reshape(worlds * ROBOTS, -1)[:, :2] for a in actions]

    def raw():
        sim.reset()
        cmd = sim.commands("swarm")["wheels"]
        for w in wheels:
            cmd[:] = w
            sim.step()

    through_env()
    raw()
    env_s, raw_s = _best(through_env, repeat), _best(raw, repeat)
    steps = worlds * ROBOTS * ticks
    return {"worlds": worlds, "robots": ROBOTS, "ticks": ticks, "env_s": env_s, "raw_s": raw_s,
            "overhead": env_s / raw_s - 1.0, "raw_robot_ticks_per_s": steps / raw_s,
            "agent_steps_per_s": steps / env_s}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worlds", type=int, nargs="+", default=[1, 32, 330],
                    help="batch sizes (default 1 32 330)")
    ap.add_argument("--ticks", type=int, default=200, help="ticks per timing (default 200)")
    ap.add_argument("--repeat", type=int, default=3, help="timings per batch size, best kept")
    ap.add_argument("--json", action="store_true", help="print JSON (agent_steps_per_s last)")
    args = ap.parse_args()
    rows = [measure(w, args.ticks, args.repeat) for w in args.worlds]
    if args.json:
        doc = {"rows": rows, "agent_steps_per_s": rows[-1]["agent_steps_per_s"]}
        print(json.dumps(doc))
        return
    print(f"{'worlds':>6} {'agent-steps/s':>14} {'raw robot-ticks/s':>18} {'overhead':>9}")
    for r in rows:
        print(f"{r['worlds']:>6} {r['agent_steps_per_s']:>14,.0f} "
              f"{r['raw_robot_ticks_per_s']:>18,.0f} {r['overhead']:>8.0%}")


if __name__ == "__main__":
    main()
