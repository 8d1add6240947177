"""sim-vs-consensus: virtual-stigmergy consensus on simulated robots (BittyBuzz thesis §4.6.2,
Fig. 4.7).

The experiment, thesis numbers and tolerances of ``buzz-vs-consensus`` (the same layouts,
script, schedule, radio range, 1.9 % frame loss of §4.6.1 and 250 B frames; see that module for
the assumptions) on ten simulated E-Puck2 robots whose neighbours and frames come from the
simulated range-and-bearing radio, at 20 ticks per second. Times are the steps from the put to
each reader's first read times the simulation's tick. A radio one step late, a slower tick or a
radio range that makes the chain relay hop by hop moves the mean by 50 ms or more and fails.
"""

from __future__ import annotations

from pathlib import Path

from swarmstack.validations import Reproduction, validation
from swarmstack.validations.buzz_vs_consensus import (LOSS, PAYLOAD_BYTES, QUICK_TESTS, RANGE_M,
                                                      ROBOTS, SPACING_M, TESTS, consensus_result,
                                                      positions, schedule)
from swarmstack.validations.sim_robots import buzz_simulation, per_run, step_until


def consensus_runs(layout: str, put_steps: list[int], seed: int, drop: float = LOSS,
                   range_m: float = RANGE_M) -> tuple[list[list[int]], float]:
    """One batched run per entry of ``put_steps`` (seeds ``seed``, ``seed + 1`` ...): the steps
    from the put to each reader's first read (robots 1 … n-1; -1: never read), and the length
    of a step in ms."""
    poses = [[x, y, 0.0] for x, y, _ in positions(layout)]
    radio = {"range": range_m, "payload_bytes": PAYLOAD_BYTES, "drop": drop}
    sim = buzz_simulation("vstig_consensus.bzz", poses, {"WRITER": 0, "PUT_STEP": 2}, radio,
                          seed, runs=len(put_steps),
                          run_params=[{"WRITER": 0, "PUT_STEP": s} for s in put_steps],
                          arena=ROBOTS * SPACING_M + 2.0)
    step_until(sim, "seen_at", max(put_steps) + 3 * ROBOTS)
    return ([[s - put if s not in (None, -1) else -1 for s in seen[1:]]
             for put, seen in zip(put_steps, per_run(sim, "seen_at"))],
            1000.0 * sim.world.scene.dt)


@validation("sim-vs-consensus")
def validate(out_dir: Path, quick: bool = False, *, range_m: float = RANGE_M,
             loss: float = LOSS) -> Reproduction:
    tests = QUICK_TESTS if quick else TESTS
    steps: dict[str, list[int]] = {}
    step_ms = 0.0
    for layout, puts in schedule(tests).items():
        runs, step_ms = consensus_runs(layout, puts, 1 + 1000 * (layout == "chain"), loss,
                                       range_m)
        steps[layout] = [d for run in runs for d in run]
    return consensus_result("sim-vs-consensus", "virtual-stigmergy consensus on 10 simulated "
                            "E-Puck2 robots 0.5 m apart, chain and circle", "simulated E-Puck2",
                            steps, step_ms, out_dir, tests, range_m, loss)
