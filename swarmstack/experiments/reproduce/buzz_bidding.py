"""buzz-bidding: distributed bidding for a task (BittyBuzz thesis §4.7.1, Fig. 4.8).

3, 4 and 6 robots run ``examples/buzz/bidding.bzz``: robot 0 announces a task through virtual
stigmergy, every robot bids, and once a robot holds every bid it picks the winner locally.
As on the Crazyflies, the radio is small and slightly lossy: each robot may send at most
``PAYLOAD_CAP`` bytes per step and each packet is lost with probability ``DROP`` (the thesis
measured 0-4.5 % loss at 20 Hz). The thesis reports that the robots always agree and that the
auction takes longer with more robots (88.00 ± 29.25, 99.05 ± 35.30 and 137.10 ± 21.70 ms for
3, 4 and 6 drones at 50 ms steps), because more bids must cross the same small radio.

Only the agreement and the trend are compared; the milliseconds are not (see
:data:`TIMING_NOTE`). Two sanity bounds keep the absolute durations honest: no auction can be
shorter than its two radio hops, and no size may average slower than the thesis's slowest
envelope rounded up to whole steps.
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from swarmstack.experiments.reproduce import (Reproduction, Row, pyplot, save_plot,
                                             validation)

SIZES = [3, 4, 6]
RUNS = 20
PAYLOAD_CAP = 24  # bytes per robot per step
DROP = 0.02
MAX_STEPS = 200
STEP_MS = 50      # thesis §4.7.1: "the step period is 50 ms"
# thesis §4.7.1, Fig. 4.8: auction duration, mean ± sd over 20 runs (ms)
PAPER_MS = {3: (88.00, 29.25), 4: (99.05, 35.30), 6: (137.10, 21.70)}
# the causal minimum: the task must reach the bidders, then their bids everyone (one step each)
MIN_HOPS = 2
# the thesis's slowest envelope, mean + 2 sd of the 6-drone runs, in whole steps (4 = 200 ms)
MAX_MEAN_STEPS = math.ceil(max(m + 2 * sd for m, sd in PAPER_MS.values()) / STEP_MS)
TIMING_NOTE = (
    "Trend only for the durations: the thesis's milliseconds are wall-clock times on "
    "unsynchronised Crazyflies, where a frame is handled at the receiver's next step, at a "
    "random phase; its own consensus test (§4.6.2) reports 17-87 ms (56.8 ms mean) for values "
    "that arrive in one or two steps, so a hop costs less than a period on average. Here robots "
    "step in lockstep and a frame is heard the step after it is sent, so every hop costs a "
    "whole 50 ms step and durations are whole steps. The loss-free auction takes 3 steps "
    "(150 ms, already above the thesis's 3- and 4-drone means): 2 hops, plus 1 step because a "
    "bidder's 24-byte frame is filled by the two entries it relays (the task and robot 0's "
    "bid), so its own bid waits a step. The thesis says neither what its radio frame holds nor "
    "when its clock starts and stops, so the absolute times cannot be matched honestly; only "
    f"two sanity bounds are checked: every auction takes at least the {MIN_HOPS} radio hops it "
    "needs, and no size averages slower than the thesis's slowest envelope (137.10 + 2 x 21.70 "
    f"= 180.5 ms) rounded up to whole steps ({MAX_MEAN_STEPS} steps, "
    f"{MAX_MEAN_STEPS * STEP_MS} ms)."
)


def timing_rows(durations: dict[int, list[int]], growing: bool, ours: str) -> list[Row]:
    """The trend row (trend only) and the two sanity bounds on the absolute durations."""
    means = {n: (statistics.fmean(d) if d else float("nan")) for n, d in durations.items()}
    every = [x for d in durations.values() for x in d]
    shortest = min(every) if every else float("nan")
    slowest = max(means.values()) if means else float("nan")
    return [
        Row("auction duration grows with robot count",
            "trend only (ms not comparable, see notes); thesis "
            + ", ".join(f"{n}: {m:.2f} ± {sd:.2f} ms" for n, (m, sd) in PAPER_MS.items()),
            ours, growing),
        Row(f"sanity bound: every auction takes ≥ {MIN_HOPS} steps",
            f"{MIN_HOPS} radio hops (task out, bids back); the thesis's 88 ms also exceeds one "
            f"{STEP_MS} ms period",
            f"shortest {shortest} steps", bool(every) and shortest >= MIN_HOPS),
        Row(f"sanity bound: mean auction ≤ {MAX_MEAN_STEPS} steps "
            f"({MAX_MEAN_STEPS * STEP_MS} ms) for every size",
            "thesis's slowest mean + 2 sd (137.10 + 2 × 21.70 = 180.5 ms) in whole steps",
            f"slowest mean {slowest:.2f} steps ({slowest * STEP_MS:.0f} ms)",
            bool(slowest <= MAX_MEAN_STEPS)),
    ]


def examples_dir() -> Path:
    return Path(__file__).resolve().parents[3] / "examples" / "buzz"


def expected_winner(robots: int, task: int) -> int:
    """The winner every robot must agree on (same bid rule as the script)."""
    bids = [((id_ + 1) * ((task % 50) * 7 + 3) * 31) % 997 for id_ in range(robots)]
    return max(range(robots), key=lambda i: (bids[i], i))


def bidding_run(robots: int, seed: int, task: int, payload_cap=PAYLOAD_CAP,
                drop=DROP) -> tuple[list[int], list[int]]:
    """(winner chosen by each robot, step at which each robot decided)."""
    from swarmstack.buzz.swarm import Harness

    src = (examples_dir() / "bidding.bzz").read_text()
    h = Harness(src, robots, filename="bidding.bzz", topology="full", drop=drop, seed=seed,
                payload_cap=payload_cap, params={"ROBOTS": robots, "TASK": task}).load()
    for _ in range(MAX_STEPS):
        h.step()
        if all(h.get_global(i, "agreed_at") not in (None, -1) for i in range(robots)):
            break
    if any(r.failed for r in h.results):
        bad = [r for r in h.results if r.failed][0]
        raise RuntimeError(f"robot {bad.id} failed: {bad.error}")
    winners = [h.get_global(i, "winner") for i in range(robots)]
    steps = [h.get_global(i, "agreed_at") for i in range(robots)]
    return winners, steps


@validation("buzz-bidding")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    runs = 5 if quick else RUNS
    durations: dict[int, list[int]] = {}
    agree: dict[int, int] = {}
    for n in SIZES:
        durations[n] = []
        agree[n] = 0
        for r in range(runs):
            task = 1 + r
            winners, steps = bidding_run(n, seed=100 * n + r, task=task)
            if all(w == expected_winner(n, task) for w in winners) and all(s > 0 for s in steps):
                agree[n] += 1
                # the task is announced at step 1: the auction lasts until the last robot decides
                durations[n].append(max(steps) - 1)

    rows = []
    means = {}
    for n in SIZES:
        d = durations[n]
        means[n] = sum(d) / len(d) if d else float("nan")
        rows.append(Row(f"{n} robots: all agree on the winner", "every auction",
                        f"{agree[n]}/{runs} runs", agree[n] == runs))
    growing = (all(means[a] <= means[b] for a, b in zip(SIZES, SIZES[1:]))
               and means[SIZES[-1]] > means[SIZES[0]])
    rows += timing_rows(durations, growing,
                        ", ".join(f"{n}: {means[n]:.2f} steps ({means[n] * STEP_MS:.0f} ms)"
                                  for n in SIZES))

    files = []
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.boxplot([[x * STEP_MS for x in durations[n]] for n in SIZES], positions=range(len(SIZES)))
    ax.set_xticks(range(len(SIZES)), [str(n) for n in SIZES])
    ax.errorbar(range(len(SIZES)), [PAPER_MS[n][0] for n in SIZES],
                yerr=[PAPER_MS[n][1] for n in SIZES], fmt="r^--", capsize=3,
                label="thesis mean ± sd (wall clock)")
    ax.axhline(MAX_MEAN_STEPS * STEP_MS, color="grey", ls=":", lw=0.8, label="sanity bounds")
    ax.axhline(MIN_HOPS * STEP_MS, color="grey", ls=":", lw=0.8)
    ax.set_xlabel("robots")
    ax.set_ylabel(f"auction duration (ms at {STEP_MS} ms per step)")
    ax.set_title("Distributed bidding")
    ax.legend()
    path = save_plot(fig, out_dir / "buzz_bidding.png")
    files.append(path)

    return Reproduction(
        name="buzz-bidding",
        title="distributed bidding with 3, 4 and 6 robots",
        rows=rows,
        files=files,
        notes=(f"{runs} runs per size, full connectivity, payload cap {PAYLOAD_CAP} B/step, "
               f"packet drop {DROP:.0%}; steps converted at {STEP_MS} ms.\n" + TIMING_NOTE),
    )
