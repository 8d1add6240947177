"""Buzz runtime benchmark: swarm throughput and raw interpreter speed, on one core.

* ``robot_steps_per_s`` -- 100 robots run ``examples/buzz/flocking.bzz`` (neighbour map/reduce
  every step) in the standalone harness over a random geometric graph (about 8 neighbours
  each), robots where they are placed (the harness default); robot-steps per second of wall
  time, best of 10 rounds of 20 steps, top level and ``init`` excluded. The machine may be
  shared: the best round is the least disturbed one, and the three swarms below take turns
  round by round so that a slow spell does not fall on all rounds of one.
* ``moving_robot_steps_per_s`` -- the same, but robots move by their ``goto`` (0.1 mm a step
  at most, so that the neighbourhoods stay about the same): links, distances and bearings
  are recomputed every step and no reception repeats.
* ``harness_only_robot_steps_per_s`` -- the same swarm and radio with a ``step()`` that only
  counts neighbours: the cost of the swarm layer, harness and radio without the script's work.
* ``fib25_s`` -- seconds to compute ``fib(25)`` recursively in one VM (the core benchmark's
  script ``swarmstack/buzz/bench_scripts/fib25.bzz`` when present).

    python benchmarks/buzz_vm.py            # table
    python benchmarks/buzz_vm.py --json     # one JSON object
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIB_FALLBACK = """
function fib(n) {
  if (n < 2) { return n }
  return fib(n - 1) + fib(n - 2)
}
result = fib(25)
"""


HARNESS_ONLY = "function step() { n = neighbors.count() }\n"


def swarm(robots: int = 100, radius: float = 0.17, seed: int = 0, src: str | None = None,
          move: bool = False):
    """A loaded harness of ``robots`` running ``src`` (flocking by default), one step done."""
    from swarmstack.buzz.swarm import Harness

    if src is None:
        src = (ROOT / "examples" / "buzz" / "flocking.bzz").read_text()
    h = Harness(src, robots, filename="flocking.bzz", topology=f"random:{radius}", seed=seed,
                move=move, max_speed=0.0001).load()
    h.step()  # warm-up: first packets
    return h


def best_rounds(harnesses: dict, steps: int = 20, repeat: int = 10) -> dict:
    """Robot-steps per second of each harness: the best of ``repeat`` rounds of ``steps``
    steps. The machine may be shared: the rounds of the harnesses take turns, so that a
    slow spell falls on a few rounds of each rather than on all rounds of one."""
    best = {name: float("inf") for name in harnesses}
    for _ in range(repeat):
        for name, h in harnesses.items():
            t0 = time.perf_counter()
            for _ in range(steps):
                h.step()
            best[name] = min(best[name], time.perf_counter() - t0)
    out = {}
    for name, h in harnesses.items():
        failed = [(r.id, r.error) for r in h.results if r.failed]
        if failed:
            raise RuntimeError(f"{name}: robots failed: {failed[:3]}")
        rec = h.topology.receivers()
        out[name] = {"robot_steps_per_s": h.n * steps / best[name], "robots": h.n, "steps": steps,
                     "mean_neighbours": sum(len(r) for r in rec) / h.n, "seconds": best[name]}
    return out


def flocking(robots: int = 100, steps: int = 20, radius: float = 0.17, seed: int = 0, repeat: int = 10,
             src: str | None = None, move: bool = False) -> dict:
    """One swarm alone (see ``best_rounds``)."""
    return best_rounds({"swarm": swarm(robots, radius, seed, src, move)}, steps, repeat)["swarm"]


def fib25() -> float:
    """Seconds for fib(25): the core benchmark's timing function when available."""
    core = ROOT / "benchmarks" / "buzz_core.py"
    if core.exists():
        spec = importlib.util.spec_from_file_location("buzz_core_bench", core)
        mod = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)  # type: ignore[union-attr]
            for name in ("fib25_s", "time_fib25", "fib25", "bench_fib25"):
                fn = getattr(mod, name, None)
                if callable(fn):
                    r = fn()
                    if isinstance(r, dict):
                        r = r.get("fib25_s", r.get("seconds"))
                    if isinstance(r, (int, float)):
                        return float(r)
        except Exception:
            pass
    from swarmstack.buzz.vm import BuzzVM

    script = ROOT / "swarmstack" / "buzz" / "bench_scripts" / "fib25.bzz"
    src = script.read_text() if script.exists() else FIB_FALLBACK
    vm = BuzzVM(src, filename="fib25.bzz", robot_id=0, log=lambda s: None)
    t0 = time.perf_counter()
    vm.run_top_level()
    dt = time.perf_counter() - t0
    if getattr(vm, "failed", False):
        raise RuntimeError(f"fib25 failed: {vm.error}")
    return dt


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--robots", type=int, default=100)
    ap.add_argument("--steps", type=int, default=20, help="steps per round (best of 10 rounds)")
    args = ap.parse_args(argv)
    runs = best_rounds({"still": swarm(args.robots), "moving": swarm(args.robots, move=True),
                        "bare": swarm(args.robots, src=HARNESS_ONLY)}, args.steps)
    fl, moving, bare = runs["still"], runs["moving"], runs["bare"]
    fib = fib25()
    out = {
        "robot_steps_per_s": round(fl["robot_steps_per_s"], 1),
        "fib25_s": round(fib, 4),
        "flocking_robots": fl["robots"],
        "flocking_steps": fl["steps"],
        "flocking_mean_neighbours": round(fl["mean_neighbours"], 2),
        "moving_robot_steps_per_s": round(moving["robot_steps_per_s"], 1),
        "moving_mean_neighbours": round(moving["mean_neighbours"], 2),
        "harness_only_robot_steps_per_s": round(bare["robot_steps_per_s"], 1),
        "target_robot_steps_per_s": 20000,
        "python": platform.python_version(),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(title="Buzz runtime benchmark (one core)")
    t.add_column("quantity")
    t.add_column("value", justify="right")
    t.add_row(f"flocking, {fl['robots']} robots, {fl['mean_neighbours']:.1f} neighbours: robot-steps/s",
              f"{fl['robot_steps_per_s']:,.0f}")
    t.add_row("target robot-steps/s", "20,000")
    t.add_row(f"same, robots moving ({moving['mean_neighbours']:.1f} neighbours): robot-steps/s",
              f"{moving['robot_steps_per_s']:,.0f}")
    t.add_row("same swarm, step() only counts neighbours: robot-steps/s", f"{bare['robot_steps_per_s']:,.0f}")
    t.add_row("fib(25) seconds", f"{fib:.3f}")
    Console().print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
