"""sim-bidding: distributed bidding on simulated robots (BittyBuzz thesis §4.7.1, Fig. 4.8).

In the thesis a task appears in the virtual stigmergy, every Crazyflie bids, a barrier waits
until every bid is known, and each robot then picks the winner locally, with no auctioneer. 20
auctions with 3, 4 and 6 robots at 50 ms steps took 88.00 ± 29.25, 99.05 ± 35.30 and
137.10 ± 21.70 ms: the robots always agree and the auction takes longer with more robots, as
more bids must cross the radio.

Here 3, 4 and 6 simulated E-Puck2 robots, on a 0.25 m circle inside each other's 0.8 m radio
range, run ``examples/buzz/bidding.bzz`` (the script of ``buzz-bidding``: robot 0 puts the task,
every robot puts its bid, the stigmergy's size is the barrier, ``reduce`` picks the winner).
The radio is small and slightly lossy as on the Crazyflies: 24 bytes per robot per 50 ms tick
and 2 % of the frames lost (the thesis measured 0-4.5 %, 1.9 % on average, at 20 Hz). Auction r
of a size uses task 1 + r; the runs of a size are batched (run r uses seed s + r).

Robots step in lockstep and each has its own frame, so on a loss-free radio every auction takes
the same number of steps whatever the swarm size; the size matters through losses: with n robots
n(n - 1) bids must cross the radio, and every lost one costs a step or more (a neighbour's
re-broadcast or a ``get`` query recovers it). At 2 % loss that effect is a fraction of a step,
so we run 100 auctions per size and call the growth real only when it exceeds twice its
standard error (3 -> 6 robots) and no step (3 -> 4, 4 -> 6) shrinks by more than that.

The durations are compared as a trend only, with two sanity bounds on their absolute value
(see ``buzz_bidding.TIMING_NOTE``): lockstep robots pay a whole step per radio hop, the
thesis's unsynchronised drones a fraction of one.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from swarmstack.experiments.reproduce import (Reproduction, Row, pyplot, save_plot,
                                             validation)
from swarmstack.experiments.reproduce.buzz_bidding import (MAX_MEAN_STEPS, MIN_HOPS, PAPER_MS,
                                                           TIMING_NOTE, expected_winner,
                                                           timing_rows)
from swarmstack.experiments.reproduce.sim_robots import (GROUP, buzz_simulation, check_failures,
                                                        circle_poses, done, per_run)

SIZES = [3, 4, 6]
RUNS = 100           # auctions per size (the thesis ran 20; see the module docstring)
QUICK_RUNS = 50
RADIUS_M = 0.25
RANGE_M = 0.8
PAYLOAD_BYTES = 24   # bytes per robot per step
DROP = 0.02
MAX_STEPS = 200
STEP_MS = 50


def bidding_runs(robots: int, seed: int, tasks: list[int], range_m: float = RANGE_M,
                 payload_bytes: int = PAYLOAD_BYTES, drop: float = DROP,
                 max_steps: int = MAX_STEPS) -> list[tuple[list, list]]:
    """One batched auction per task: ``(winner chosen by each robot, step at which it decided)``."""
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
    return list(zip(per_run(sim, "winner"), per_run(sim, "agreed_at")))


def validate(out_dir: Path, quick: bool = False, *, range_m: float = RANGE_M,
             payload_bytes: int = PAYLOAD_BYTES, drop: float = DROP,
             max_steps: int = MAX_STEPS) -> Reproduction:
    runs = QUICK_RUNS if quick else RUNS
    durations: dict[int, list[int]] = {}
    agree: dict[int, int] = {}
    for n in SIZES:
        tasks = [1 + r for r in range(runs)]
        durations[n], agree[n] = [], 0
        for task, (winners, steps) in zip(tasks, bidding_runs(n, 100 * n, tasks, range_m,
                                                              payload_bytes, drop, max_steps)):
            if all(w == expected_winner(n, task) for w in winners) and done(steps):
                agree[n] += 1
                # the task is put at step 1: the auction lasts until the last robot decides
                durations[n].append(max(steps) - 1)

    rows = []
    means: dict[int, float] = {}
    for n in SIZES:
        d = durations[n]
        means[n] = statistics.fmean(d) if d else float("nan")
        rows.append(Row(f"{n} robots: all agree on the winner of the bid rule",
                        "one winner, found locally (20 auctions per size)",
                        f"{agree[n]}/{runs} auctions", agree[n] == runs))
    def se_diff(a: int, b: int) -> float:
        return math.sqrt(sum(statistics.variance(durations[n]) / len(durations[n])
                             if len(durations[n]) > 1 else math.inf for n in (a, b)))

    first, last = SIZES[0], SIZES[-1]
    growing = all(means[b] >= means[a] - 2 * se_diff(a, b) for a, b in zip(SIZES, SIZES[1:])) \
        and means[last] - means[first] > 2 * se_diff(first, last)
    rows += timing_rows(durations, growing,
                        ", ".join(f"{n}: {means[n]:.2f} steps ({means[n] * STEP_MS:.0f} ms)"
                                  for n in SIZES)
                        + f"; {last} vs {first}: +{means[last] - means[first]:.2f} ± "
                          f"{se_diff(first, last):.2f} steps")

    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.boxplot([[x * STEP_MS for x in durations[n]] or [float("nan")] for n in SIZES],
               positions=range(len(SIZES)))
    ax.set_xticks(range(len(SIZES)), [str(n) for n in SIZES])
    ax.errorbar(range(len(SIZES)), [PAPER_MS[n][0] for n in SIZES],
                yerr=[PAPER_MS[n][1] for n in SIZES], fmt="r^--", capsize=3,
                label="thesis mean ± sd (wall clock)")
    ax.axhline(MAX_MEAN_STEPS * STEP_MS, color="grey", ls=":", lw=0.8, label="sanity bounds")
    ax.axhline(MIN_HOPS * STEP_MS, color="grey", ls=":", lw=0.8)
    ax.plot(range(len(SIZES)), [means[n] * STEP_MS for n in SIZES], "bo-", label="simulated mean")
    ax.set_xlabel("robots")
    ax.set_ylabel(f"auction duration (ms at {STEP_MS} ms per step)")
    ax.set_title("Distributed bidding, simulated E-Puck2")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    path = save_plot(fig, out_dir / "sim_bidding.png")

    return Reproduction(
        name="sim-bidding",
        title="distributed bidding with 3, 4 and 6 simulated E-Puck2 robots",
        rows=rows,
        files=[path],
        notes=(f"{runs} auctions per size; robots on a {RADIUS_M} m circle, radio range "
               f"{range_m} m, {payload_bytes} B per robot per step, {drop:.0%} frames lost; "
               f"{STEP_MS} ms steps.\n" + TIMING_NOTE),
    )


@validation("sim-bidding")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    return validate(out_dir, quick)
