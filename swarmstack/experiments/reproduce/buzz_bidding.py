"""buzz-bidding: distributed bidding for a task (BittyBuzz thesis §4.7.1, Fig. 4.8).

3, 4 and 6 robots run ``examples/buzz/bidding.bzz``: robot 0 announces a task through virtual
stigmergy, every robot bids, and once a robot holds every bid it picks the winner locally.
As on the Crazyflies, the radio is small and slightly lossy: each robot may send at most
``PAYLOAD_CAP`` bytes per step and each packet is lost with probability ``DROP`` (the thesis
measured 0-4.5 % loss at 20 Hz). The thesis reports that the robots always agree and that the
auction takes longer with more robots (88, 99, 137 ms for 3, 4, 6 drones), because more bids
must cross the same small radio.
"""

from __future__ import annotations

from pathlib import Path

from swarmstack.experiments.reproduce import (Reproduction, Row, pyplot, save_plot,
                                             validation)

SIZES = [3, 4, 6]
RUNS = 20
PAYLOAD_CAP = 24  # bytes per robot per step
DROP = 0.02
MAX_STEPS = 200
STEP_MS = 50


def examples_dir() -> Path:
    return Path(__file__).resolve().parents[3] / "examples" / "buzz"


def expected_winner(robots: int, task: int) -> int:
    """The winner every robot must agree on (same bid rule as the script)."""
    bids = [((id_ + 1) * ((task % 50) * 7 + 3) * 31) % 997 for id_ in range(robots)]
    return max(range(robots), key=lambda i: (bids[i], i))


def bidding_run(robots: int, seed: int, task: int, payload_cap=PAYLOAD_CAP, drop=DROP) -> tuple[list[int], list[int]]:
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
    paper = {3: 88.0, 4: 99.05, 6: 137.1}
    growing = all(means[a] <= means[b] for a, b in zip(SIZES, SIZES[1:])) and means[SIZES[-1]] > means[SIZES[0]]
    rows.append(Row("auction duration grows with robot count",
                    ", ".join(f"{n}: {paper[n]:.0f} ms" for n in SIZES),
                    ", ".join(f"{n}: {means[n]:.2f} steps ({means[n] * STEP_MS:.0f} ms)" for n in SIZES),
                    growing))

    files = []
    plt = pyplot()

    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.boxplot([[x * STEP_MS for x in durations[n]] for n in SIZES], positions=range(len(SIZES)))
    ax.set_xticks(range(len(SIZES)), [str(n) for n in SIZES])
    ax.plot(range(len(SIZES)), [paper[n] for n in SIZES], "r^--", label="thesis mean")
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
               f"packet drop {DROP:.0%}; steps converted at {STEP_MS} ms."),
    )
