"""sim-bidding: distributed bidding on simulated robots (BittyBuzz thesis §4.7.1, Fig. 4.8).

The experiment, thesis numbers and tolerances of ``buzz-bidding`` (the same script, schedule,
1.9 % frame loss of §4.6.1 and 250 B frames; see that module for the reasons) on 3, 4 and 6
simulated E-Puck2 robots on a 0.25 m circle, inside each other's 0.8 m range on the simulated
range-and-bearing radio, at 20 ticks per second. Timed: from the put of the task (step 1) to
the step at which the last robot knows the winner, times the simulation's tick. The runs of a
size are batched (auction r uses task 1 + r and seed s + r). A radio one step late, a slower
tick or a frame too small for a step's messages moves the means by about 50 ms or more and
fails.
"""

from __future__ import annotations

from pathlib import Path

from swarmstack.validations import Reproduction, validation
from swarmstack.validations.buzz_bidding import (DROP, MAX_STEPS, PAYLOAD_CAP, QUICK_RUNS, RUNS,
                                                 SIZES, bidding_result, expected_winner)
from swarmstack.validations.sim_robots import (buzz_simulation, circle_poses, per_run,
                                               step_until)

RADIUS_M = 0.25
RANGE_M = 0.8


def bidding_runs(robots: int, seed: int, tasks: list[int], range_m: float = RANGE_M,
                 payload_bytes: int = PAYLOAD_CAP, drop: float = DROP,
                 max_steps: int = MAX_STEPS) -> tuple[list[tuple[list, list]], float]:
    """One batched auction per task: ``(winner chosen by each robot, step at which it
    decided)`` per auction, and the length of a step in ms."""
    radio = {"range": range_m, "payload_bytes": payload_bytes, "drop": drop}
    sim = buzz_simulation("bidding.bzz", circle_poses(robots, RADIUS_M),
                          {"ROBOTS": robots, "TASK": tasks[0]}, radio, seed, runs=len(tasks),
                          run_params=[{"ROBOTS": robots, "TASK": t} for t in tasks])
    step_until(sim, "agreed_at", max_steps)
    return (list(zip(per_run(sim, "winner"), per_run(sim, "agreed_at"))),
            1000.0 * sim.world.scene.dt)


@validation("sim-bidding")
def validate(out_dir: Path, quick: bool = False, *, range_m: float = RANGE_M,
             payload_bytes: int = PAYLOAD_CAP, drop: float = DROP,
             max_steps: int = MAX_STEPS) -> Reproduction:
    runs = QUICK_RUNS if quick else RUNS
    tasks = [1 + r for r in range(runs)]
    auctions, step_ms = {}, 0.0
    for n in SIZES:
        outcomes, step_ms = bidding_runs(n, 100 * n, tasks, range_m, payload_bytes, drop,
                                         max_steps)
        auctions[n] = [(task, *outcome) for task, outcome in zip(tasks, outcomes)]
    return bidding_result(
        "sim-bidding", "distributed bidding with 3, 4 and 6 simulated E-Puck2 robots",
        "Distributed bidding, simulated E-Puck2", auctions, runs, step_ms, out_dir,
        f"{runs} auctions per size; robots on a {RADIUS_M} m circle, radio range {range_m:g} m, "
        f"{payload_bytes} B frames, {drop:.1%} frames lost, {step_ms:g} ms steps. Lockstep "
        "robots: every radio hop costs a whole step.")
