"""Lua controllers in the simulation: N E-Puck2 robots running the obstacle-avoidance example.

``examples/lua/obstacle_avoidance.lua`` (ARGoS's Lua robot API: eight proximity readings in,
``robot.wheels.set_velocity`` out) on N E-Puck2 robots placed uniformly in a walled square
(2 × 2 m for 50 robots, the same density for more) with the proximity sensor on, 10 ticks/s.
Each repetition is timed in CPU time (user + sys of this process, ``time.process_time``) over
``--ticks`` ticks after ``start()`` and one warm-up tick; the median of ``--repeats`` is kept.
``--runtime luajit`` runs the script in LuaJIT instead of Lua 5.3; ``--no-loop-guard`` turns
the endless-loop guard off (under LuaJIT the guard runs the scripts without the JIT compiler).

Where the time goes is measured in a second, instrumented pass: the one Python→Lua call per
tick that fills every robot's tables and runs every ``step()`` (``lua``), the replay of the
robots' host-function calls on their views (``replay``), and everything else — sensing,
actuation, physics, the tick (``simulation``).

    python benchmarks/lua.py --robots 50 --json

Prints a table; with ``--json`` the last line is one JSON object with ``robot_ticks_per_s``.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swarmstack.sim.simulation import Simulation  # noqa: E402

SCRIPT = ROOT / "examples" / "lua" / "obstacle_avoidance.lua"
TARGET = 200_000   # robot-ticks/s on one core, 50 robots
# ARGoS 3 with the E-Puck2 plug-in and a C++ controller on the same arena, robots and sensor
# (docs/performance.md, "Reference figures used for the ratios": 50 robots, proximity, 72 000
# ticks in 30.28 s whole process). ARGoS's Lua controller adds its own per-robot cost on top.
ARGOS_CPP_ROBOT_TICKS_PER_S = 50 * 72_000 / 30.28


def experiment(robots: int, runtime: str = "lua5.3", loop_guard: bool = True) -> dict:
    side = 2.0 * math.sqrt(robots / 50.0)
    return {
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [side, side], "walls": True},
        "robots": [{"name": "ep", "type": "epuck2", "count": robots,
                    "controller": {"lua": str(SCRIPT), "runtime": runtime,
                                   "loop_guard": loop_guard,
                                   "params": {"speed": 10, "threshold": 200}},
                    "sensors": {"proximity": True}}],
    }


def _sim(robots: int, seed: int, runtime: str = "lua5.3", loop_guard: bool = True) -> Simulation:
    sim = Simulation.from_dict(experiment(robots, runtime, loop_guard), seed=seed, base_dir=ROOT)
    sim.start()
    sim.step()
    return sim


def measure(robots: int, ticks: int, repeats: int, runtime: str = "lua5.3",
            loop_guard: bool = True) -> dict:
    rates = []
    for r in range(repeats):
        sim = _sim(robots, seed=1 + r, runtime=runtime, loop_guard=loop_guard)
        t0 = time.process_time()
        sim.run(ticks)
        rates.append(robots * ticks / (time.process_time() - t0))
        assert not sim.robot_failures(), sim.robot_failures()
    parts = breakdown(robots, ticks, runtime, loop_guard)
    return {"robots": robots, "runtime": runtime, "loop_guard": loop_guard, "ticks": ticks,
            "repeats": repeats,
            "robot_ticks_per_s": statistics.median(rates),
            "min_robot_ticks_per_s": min(rates), "max_robot_ticks_per_s": max(rates),
            **parts, "target_robot_ticks_per_s": TARGET,
            "argos_cpp_controller_robot_ticks_per_s": ARGOS_CPP_ROBOT_TICKS_PER_S}


def breakdown(robots: int, ticks: int, runtime: str = "lua5.3", loop_guard: bool = True) -> dict:
    """µs per robot-tick in the Lua call, in the replay, and in the rest of the tick."""
    sim = _sim(robots, seed=1, runtime=runtime, loop_guard=loop_guard)
    ctrl = sim.groups[0].controllers[0]
    spent = {"lua": 0.0, "replay": 0.0}
    step_all, replay = ctrl.M.step_all, ctrl._replay

    def timed_step_all(*args):
        t = time.process_time()
        out = step_all(*args)
        spent["lua"] += time.process_time() - t
        return out

    def timed_replay(values):
        t = time.process_time()
        replay(values)
        spent["replay"] += time.process_time() - t

    ctrl.M = _Wrapped(ctrl.M, step_all=timed_step_all)
    ctrl._replay = timed_replay
    t0 = time.process_time()
    sim.run(ticks)
    total = time.process_time() - t0
    per = 1e6 / (robots * ticks)
    return {"lua_us_per_robot_tick": spent["lua"] * per,
            "replay_us_per_robot_tick": spent["replay"] * per,
            "simulation_us_per_robot_tick": (total - spent["lua"] - spent["replay"]) * per}


class _Wrapped:
    """The runtime table with some functions replaced (lupa's tables take no attributes)."""

    def __init__(self, inner, **over):
        self._inner = inner
        self._over = over

    def __getattr__(self, name):
        return self._over.get(name) or getattr(self._inner, name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--robots", type=int, default=50)
    ap.add_argument("--ticks", type=int, default=3000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--runtime", choices=("lua5.3", "luajit"), default="lua5.3",
                    help="the controller's Lua: 5.3 (ARGoS's) or LuaJIT")
    ap.add_argument("--no-loop-guard", dest="loop_guard", action="store_false",
                    help="without the endless-loop guard (LuaJIT: with its JIT compiler)")
    ap.add_argument("--json", action="store_true", help="end with one JSON line")
    args = ap.parse_args()
    res = measure(args.robots, args.ticks, args.repeats, args.runtime, args.loop_guard)
    guard = "loop guard on" if res["loop_guard"] else "loop guard off"
    print(f"Lua obstacle avoidance ({res['runtime']}, {guard}), {res['robots']} E-Puck2 with "
          "proximity, "
          f"{res['ticks']} ticks, median of {res['repeats']} (CPU time, one core)")
    print(f"{'robot-ticks/s':>28}: {res['robot_ticks_per_s']:>12,.0f} "
          f"({res['min_robot_ticks_per_s']:,.0f}–{res['max_robot_ticks_per_s']:,.0f}); "
          f"target ≥ {TARGET:,}")
    print(f"{'ARGoS, C++ controller':>28}: {ARGOS_CPP_ROBOT_TICKS_PER_S:>12,.0f} "
          "(docs/performance.md, reference figures)")
    for key, label in (("lua", "Lua call (fill + step())"), ("replay", "host-call replay"),
                       ("simulation", "rest of the tick")):
        print(f"{label:>28}: {res[key + '_us_per_robot_tick']:>12.2f} µs per robot-tick")
    if args.json:
        print(json.dumps(res))


if __name__ == "__main__":
    main()
