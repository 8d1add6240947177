"""Automatic design throughput: iterated F-race on the aggregation mission (20 E-Puck2 ×
120 s, the AutoMoDe papers' setting), every candidate simulated in batches on ``--workers``
processes. Measures a design of ``--budget`` runs end to end (sampling, races, ledger,
batched simulations; not the final assessment) and extrapolates to a budget of 50 000.

    python benchmarks/design.py                    # budget 2 000 on 2 workers, a table
    python benchmarks/design.py --budget 50000 --json
    python benchmarks/design.py --batch-only       # one batch of --runs-per-batch runs

The last line with ``--json`` is one JSON object with ``runs_per_s``. Each row also gives the
CPU time it took (``cpu_s``: this process and, for the design, its worker processes, whose
start-up is counted too) and ``runs_per_cpu_s``: on a shared machine the wall time says
more about the neighbours than about the design.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.cpu import cpu_seconds  # noqa: E402
from swarmstack.sim import threads  # noqa: E402
from swarmstack.design.chocolate import CHOCOLATE  # noqa: E402
from swarmstack.design.evaluate import Batch, Mission, evaluate, run_batch  # noqa: E402
from swarmstack.studies.executors import make_executor  # noqa: E402
from swarmstack.design.irace import IteratedRace, sample_uniform  # noqa: E402
from swarmstack.design.missions import EXAMPLES  # noqa: E402
from swarmstack.design.run import MIN_BATCH, Ledger  # noqa: E402
from swarmstack.design.space import pfsm_space, to_text  # noqa: E402

ROBOTS, TICKS = 20, 1200
TARGET_RUNS, TARGET_S = 50_000, 15 * 60



def design_throughput(budget: int, workers: int, runs_per_batch: int, seed: int) -> dict:
    mission = Mission(str(EXAMPLES / "aggregation.toml"), "aggregation", "swarm")
    space = pfsm_space(CHOCOLATE)
    with tempfile.TemporaryDirectory() as tmp, make_executor(workers) as ex:
        # warm every worker (imports, Numba caches) outside the timed part
        import numpy as np
        rng = np.random.default_rng(0)
        warm = [to_text(sample_uniform(space, rng), CHOCOLATE) for _ in range(workers)]
        list(ex.map(run_batch, [Batch(Mission(mission.experiment, "aggregation", "swarm", 5),
                                      (t,), (0,)) for t in warm]))
        ledger = Ledger(Path(tmp) / "ledger.sqlite", {"benchmark": True})

        def costs(pairs):
            texts = [(to_text(c, CHOCOLATE), s) for c, s in pairs]
            return [-v for v in evaluate(mission, texts, ex, runs_per_batch, workers, ledger)]

        t0 = time.perf_counter()
        cpu0 = cpu_seconds()
        res = IteratedRace(space, costs, budget, seed, min_batch=MIN_BATCH).run()
        wall = time.perf_counter() - t0
        ledger.close()
    # workers' CPU is counted when they end (their warm-up included)
    cpu = cpu_seconds() - cpu0
    return {"case": "design", "budget": budget, "runs": res.evaluations, "workers": workers,
            "runs_per_batch": runs_per_batch, "wall_s": wall, "cpu_s": cpu,
            "runs_per_cpu_s": res.evaluations / cpu,
            "runs_per_s": res.evaluations / wall,
            "robot_ticks_per_s": res.evaluations * ROBOTS * TICKS / wall,
            "projected_50k_min": TARGET_RUNS / (res.evaluations / wall) / 60,
            "iterations": res.iterations}


def batch_throughput(runs: int) -> dict:
    import numpy as np
    mission = Mission(str(EXAMPLES / "aggregation.toml"), "aggregation", "swarm")
    space = pfsm_space(CHOCOLATE)
    rng = np.random.default_rng(1)
    texts = tuple(to_text(sample_uniform(space, rng), CHOCOLATE) for _ in range(runs))
    run_batch(Batch(Mission(mission.experiment, "aggregation", "swarm", 5), texts,
                    tuple(range(runs))))
    t0 = time.perf_counter()
    cpu0 = cpu_seconds()
    run_batch(Batch(mission, texts, tuple(range(runs))))
    wall = time.perf_counter() - t0
    cpu = cpu_seconds() - cpu0
    return {"case": "batch", "runs": runs, "workers": 1, "wall_s": wall, "cpu_s": cpu,
            "runs_per_cpu_s": runs / cpu,
            "runs_per_s": runs / wall, "robot_ticks_per_s": runs * ROBOTS * TICKS / wall}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--runs-per-batch", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch-only", action="store_true")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--threads", type=int, default=None, metavar="N",
                    help="kernel threads (0: every usable core; default: SWARMSTACK_THREADS, "
                         "else 0)")
    a = ap.parse_args()
    try:
        n_threads = threads.set_threads(a.threads)
    except ValueError as exc:
        ap.error(str(exc))
    rows = [batch_throughput(a.runs_per_batch)]
    if not a.batch_only:
        rows.append(design_throughput(a.budget, a.workers, a.runs_per_batch, a.seed))
    for r in rows:
        r["threads"] = n_threads if r["workers"] == 1 else threads.per_worker(r["workers"])
    if a.json:
        for r in rows:
            print(json.dumps(r))
        return
    print(f"{'case':<8} {'runs':>7} {'workers':>7} {'wall s':>9} {'runs/s':>8} "
          f"{'robot-ticks/s':>14} {'50 000 runs':>12} {'CPU s':>8} {'runs/CPU s':>10}")
    for r in rows:
        proj = TARGET_RUNS / r["runs_per_s"] / 60
        print(f"{r['case']:<8} {r['runs']:>7} {r['workers']:>7} {r['wall_s']:>9.1f} "
              f"{r['runs_per_s']:>8.2f} {r['robot_ticks_per_s']:>14,.0f} {proj:>9.1f} min "
              f"{r['cpu_s']:>8.1f} {r['runs_per_cpu_s']:>10.2f}")
    print(f"target: {TARGET_RUNS} runs of {ROBOTS} E-Puck2 × {TICKS // 10} s in ≤ "
          f"{TARGET_S // 60} min = {TARGET_RUNS / TARGET_S:.1f} runs/s")


if __name__ == "__main__":
    main()
