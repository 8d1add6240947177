"""buzz-bidding: distributed bidding for a task (BittyBuzz thesis §4.7.1, Fig. 4.8).

What the thesis reports (§4.7.1, Fig. 4.8): a task appears in the virtual stigmergy, every
Crazyflie bids, a barrier waits until every bid is known, and each robot then picks the winner
locally, with no auctioneer. 20 auctions for each of 3, 4 and 6 drones at a 50 ms step period
lasted 88.00 ± 29.25, 99.05 ± 35.30 and 137.10 ± 21.70 ms (mean ± sd; the time of the auction
for one task, from its appearance to the winner being known), longer with more drones.

What we reproduce: 3, 4 and 6 robots, all in each other's radio range, run
``examples/buzz/bidding.bzz`` (robot 0 puts the task at step 1, every robot puts its bid in the
same stigmergy, the stigmergy's size is the barrier, ``reduce`` picks the winner). The radio
loses 1.9 % of the frames, the loss the thesis measured on the same drones at a 50 ms period
(§4.6.1). The thesis gives no frame size; frames hold 250 B (the Xbee frame of the ROSBuzz paper,
Fig. 8), so every
stigmergy message of a step goes out that step (a 24 B frame would hold back a bidder's own bid
a step behind the two entries it relays, about +50 ms). Timed: from the put of the task to the
step at which the last robot knows the winner, in 50 ms steps. We run more auctions than the
thesis (``RUNS`` per size) so that our own sampling error (sd/√RUNS, a few ms) stays small
beside the tolerance.

Tolerance, and why: for each size, the share of auctions in which every robot picks the bid
rule's winner must be 1 (the thesis's winner is "determined locally" from shared bids), and our
mean duration must lie within the thesis's reported sd of its mean. One sd is the thesis's own
spread between auctions, which comes mostly from the phases of its unsynchronised drones: there
a radio hop costs a fraction of a period, while our robots step in lockstep and every hop costs a
whole step, so the shortest auction here is two steps (100 ms, above the thesis's 3-drone mean).
A narrower interval (95 % of the thesis's mean, ±13 ms for 20 auctions) would judge that phase,
which lockstep robots cannot have; with one sd a radio one step late (+100 ms over the two hops),
a wrong step period or a frame too small for a step's messages fails.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from swarmstack.validations import Reproduction, Row, save_plot, style_axes, subplots, validation
from swarmstack.validations.sim_robots import done, harness

SIZES = [3, 4, 6]
RUNS = 100         # auctions per size (the thesis ran 20; see the module docstring)
QUICK_RUNS = 50
PAYLOAD_CAP = 250  # bytes per robot per step
DROP = 0.019       # thesis §4.6.1: 1.9 % mean loss at a 50 ms period
MAX_STEPS = 200
STEP_MS = 50       # thesis §4.7.1: "the step period is 50 ms"
# thesis §4.7.1, Fig. 4.8: auction duration, mean ± sd over 20 runs (ms)
PAPER_MS = {3: (88.00, 29.25), 4: (99.05, 35.30), 6: (137.10, 21.70)}


def expected_winner(robots: int, task: int) -> int:
    """The winner every robot must agree on (same bid rule as the script)."""
    bids = [((id_ + 1) * ((task % 50) * 7 + 3) * 31) % 997 for id_ in range(robots)]
    return max(range(robots), key=lambda i: (bids[i], i))


def bidding_rows(durations: dict[int, list[int]], agree: dict[int, int], runs: int,
                 step_ms: float) -> list[Row]:
    """Per size: every robot agrees on the bid rule's winner in every auction, and the mean
    duration (steps × ``step_ms``) lies within the thesis's sd of its mean."""
    rows = [Row.within(f"§4.7.1, {n} drones: share of auctions where every robot picks the bid "
                       "rule's winner (found locally)", 1.0, agree[n] / runs, 0.0)
            for n in SIZES]
    for n in SIZES:
        mean_ms = statistics.fmean(durations[n]) * step_ms if durations[n] else math.inf
        paper, sd = PAPER_MS[n]
        rows.append(Row.within(f"§4.7.1, Fig. 4.8, {n} drones: mean auction duration "
                               "(tolerance: the thesis's sd)", paper, mean_ms, sd, "ms"))
    return rows


def bidding_result(name: str, title: str, plot_title: str, auctions: dict[int, list], runs: int,
                   step_ms: float, out_dir: Path, notes: str) -> Reproduction:
    """The rows, plot and notes of a bidding validation from its auctions, per size
    ``[(task, winner chosen by each robot, step at which each decided), …]``."""
    good = {n: [steps for task, winners, steps in auctions[n]
                if all(w == expected_winner(n, task) for w in winners) and done(steps)
                and min(steps) > 0] for n in SIZES}
    # the task is put at step 1: the auction lasts until the last robot decides
    durations = {n: [max(steps) - 1 for steps in good[n]] for n in SIZES}
    # our durations per size (box plots and means) over the thesis's mean ± sd
    fig, ax = subplots(figsize=(5.5, 4))
    ax.boxplot([[x * step_ms for x in durations[n]] or [float("nan")] for n in SIZES],
               positions=range(len(SIZES)))
    ax.set_xticks(range(len(SIZES)), [str(n) for n in SIZES])
    ax.errorbar(range(len(SIZES)), [PAPER_MS[n][0] for n in SIZES],
                yerr=[PAPER_MS[n][1] for n in SIZES], fmt="r^--", capsize=3,
                label="thesis mean ± sd")
    ax.plot(range(len(SIZES)),
            [statistics.fmean(durations[n]) * step_ms if durations[n] else float("nan")
             for n in SIZES], "bo-", label="our mean")
    style_axes(ax, "robots", f"auction duration (ms, {step_ms:g} ms steps)", plot_title)
    path = save_plot(fig, out_dir / f"{name.replace('-', '_')}.png")
    return Reproduction(name, title, bidding_rows(durations, {n: len(good[n]) for n in SIZES},
                                                  runs, step_ms), [path], notes)


def bidding_run(robots: int, seed: int, task: int, payload_cap=PAYLOAD_CAP,
                drop=DROP) -> tuple[list[int], list[int]]:
    """(winner chosen by each robot, step at which each robot decided)."""
    h = harness("bidding.bzz", robots, "agreed_at", MAX_STEPS, topology="full", drop=drop,
                seed=seed, payload_cap=payload_cap, params={"ROBOTS": robots, "TASK": task})
    return ([h.get_global(i, "winner") for i in range(robots)],
            [h.get_global(i, "agreed_at") for i in range(robots)])


@validation("buzz-bidding")
def reproduce(out_dir: Path, quick: bool = False, *, payload_cap: int = PAYLOAD_CAP,
              drop: float = DROP, step_ms: float = STEP_MS) -> Reproduction:
    runs = QUICK_RUNS if quick else RUNS
    auctions = {n: [(1 + r, *bidding_run(n, seed=100 * n + r, task=1 + r,
                                         payload_cap=payload_cap, drop=drop))
                    for r in range(runs)] for n in SIZES}
    return bidding_result(
        "buzz-bidding", "distributed bidding with 3, 4 and 6 robots",
        "Distributed bidding (Buzz harness)", auctions, runs, step_ms, out_dir,
        f"{runs} auctions per size, every robot in range of every other, {payload_cap} B "
        f"frames, {drop:.1%} frames lost, {step_ms:g} ms steps. Lockstep robots: every radio "
        "hop costs a whole step (see the module docs).")
