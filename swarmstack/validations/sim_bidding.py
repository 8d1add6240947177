"""sim-bidding: distributed bidding on simulated robots (BittyBuzz thesis §4.7.1, Fig. 4.8).

What the thesis reports: a task appears in the virtual stigmergy, every Crazyflie bids, a
barrier waits until every bid is known, and each robot then picks the winner locally. 20
auctions for each of 3, 4 and 6 drones at a 50 ms step period lasted 88.00 ± 29.25,
99.05 ± 35.30 and 137.10 ± 21.70 ms (mean ± sd), longer with more drones.

What we reproduce: the conditions of ``buzz-bidding`` (the same script, schedule, 1.9 % frame
loss of §4.6.1 and 250 B frames; see that module for the reasons) on 3, 4 and 6 simulated E-Puck2
robots on a 0.25 m circle, inside each other's 0.8 m range on the simulated range-and-bearing
radio, at 20 ticks per second. Timed: from the put of the task (step 1) to the step at which the
last robot knows the winner, times the simulation's tick. The runs of a size are batched
(auction r uses task 1 + r and seed s + r).

Tolerance, and why (as in ``buzz-bidding``): every robot picks the bid rule's winner in every
auction, and each size's mean duration lies within the thesis's reported sd of its mean. The sd
is the thesis's own spread between auctions, mostly the phases of unsynchronised drones, which
lockstep robots cannot have (a hop costs them a whole step, so an auction takes at least two
steps, 100 ms); a radio one step late, a slower tick or a frame too small for a step's messages
moves the means by about 50 ms or more and fails.
"""

from __future__ import annotations

from pathlib import Path

from swarmstack.validations import Reproduction, validation
from swarmstack.validations.buzz_bidding import (DROP, MAX_STEPS, PAYLOAD_CAP,
                                                           QUICK_RUNS, RUNS, SIZES, bidding_plot,
                                                           bidding_rows, expected_winner)
from swarmstack.validations.sim_robots import (GROUP, buzz_simulation, check_failures,
                                                        circle_poses, done, per_run)

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
    ctrl = sim.buzz(GROUP)
    n = len(ctrl.robots)
    for _ in range(max_steps):
        sim.step()
        if done([ctrl.get_global(k, "agreed_at") for k in range(n)]):
            break
    check_failures(sim)
    return (list(zip(per_run(sim, "winner"), per_run(sim, "agreed_at"))),
            1000.0 * sim.world.scene.dt)


def validate(out_dir: Path, quick: bool = False, *, range_m: float = RANGE_M,
             payload_bytes: int = PAYLOAD_CAP, drop: float = DROP,
             max_steps: int = MAX_STEPS) -> Reproduction:
    runs = QUICK_RUNS if quick else RUNS
    durations: dict[int, list[int]] = {}
    agree: dict[int, int] = {}
    step_ms = 0.0
    for n in SIZES:
        tasks = [1 + r for r in range(runs)]
        durations[n], agree[n] = [], 0
        auctions, step_ms = bidding_runs(n, 100 * n, tasks, range_m, payload_bytes, drop,
                                         max_steps)
        for task, (winners, steps) in zip(tasks, auctions):
            if all(w == expected_winner(n, task) for w in winners) and done(steps):
                agree[n] += 1
                # the task is put at step 1: the auction lasts until the last robot decides
                durations[n].append(max(steps) - 1)
    path = bidding_plot(durations, step_ms, out_dir / "sim_bidding.png",
                        "Distributed bidding, simulated E-Puck2")
    return Reproduction(
        name="sim-bidding",
        title="distributed bidding with 3, 4 and 6 simulated E-Puck2 robots",
        rows=bidding_rows(durations, agree, runs, step_ms),
        files=[path],
        notes=(f"{runs} auctions per size; robots on a {RADIUS_M} m circle, radio range "
               f"{range_m:g} m, {payload_bytes} B frames, {drop:.1%} frames lost, "
               f"{step_ms:g} ms steps. Lockstep robots: every radio hop costs a whole step."),
    )


@validation("sim-bidding")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    return validate(out_dir, quick)
