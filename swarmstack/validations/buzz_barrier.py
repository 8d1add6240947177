"""buzz-barrier: the rosbuzz barrier (Listing 1) under packet loss (rosbuzz paper, Fig. 4).

Six robots, all in radio range of each other, run ``examples/buzz/barrier.bzz`` in the
standalone harness; every packet on every link is dropped with probability p (Bernoulli, as
the paper's relay node). For p = 0 %, 10 %, ..., 90 % and 10 seeds each we record the step at
which each robot leaves the barrier. The paper reports that consensus was always reached up
to 90 % loss and that the swarm takes longer as more packets are dropped.
"""

from __future__ import annotations

import math
from pathlib import Path

from swarmstack.validations import Reproduction, Row, save_plot, style_axes, subplots, validation
from swarmstack.validations.sim_robots import harness

ROBOTS = 6
DROPS = [i / 10 for i in range(10)]
SEEDS = 10
MAX_STEPS = 600  # the listing's BARRIER_TIMEOUT


def barrier_run(drop: float, seed: int, robots: int = ROBOTS, max_steps: int = MAX_STEPS) -> list[int]:
    """Steps at which each robot left the barrier (-1: never)."""
    h = harness("barrier.bzz", robots, "done_at", max_steps, topology="full", drop=drop,
                seed=seed, params={"ROBOTS": robots})
    return [h.get_global(i, "done_at") if h.get_global(i, "done_at") is not None else -1 for i in range(robots)]


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (ties share their mean rank; 0 when either side is
    constant)."""
    from scipy.stats import rankdata

    rx, ry = rankdata(xs), rankdata(ys)
    if rx.std() == 0 or ry.std() == 0:
        return 0.0
    return float(((rx - rx.mean()) * (ry - ry.mean())).sum()
                 / math.sqrt(((rx - rx.mean()) ** 2).sum() * ((ry - ry.mean()) ** 2).sum()))


def consensus_rows(results: dict, drops, what: str, mean_text: str) -> tuple[list[Row], list]:
    """Per drop rate, whether every robot of every run left the barrier (``what``; ``mean_text``
    formats the mean step at which the last one left), then whether the steps to consensus grow
    with the drop rate (Fig. 4); the rows and the means."""
    rows, means = [], []
    for p in drops:
        done = [max(r) for r in results[p] if all(t > 0 for t in r)]
        means.append(sum(done) / len(done) if done else float("nan"))
        rows.append(Row(f"drop {p:.0%}: {what}", "always (up to 90 %)",
                        f"{len(done)}/{len(results[p])} seeds, " + mean_text.format(means[-1]),
                        len(done) == len(results[p])))
    rho = spearman(drops, means)
    rows.append(Row("steps to consensus grow with drop rate", "yes (Fig. 4)",
                    f"Spearman rho = {rho:.2f}; {means[0]:.1f} -> {means[-1]:.1f} steps",
                    all(m == m for m in means) and rho >= 0.8 and means[-1] > means[0]))
    return rows, means


def plot_barrier(results: dict, drops, means, robots: int, step_label: str, title: str,
                 path: Path) -> Path:
    """The barrier figure of buzz- and sim-barrier: fraction of robots through the barrier
    against steps, and steps to consensus against drop rate. Both step axes are logarithmic:
    at 90 % loss one slow run takes ten times the others, which would squash every other
    curve into the first few steps of a linear axis."""
    fig, (ax1, ax2) = subplots(1, 2, figsize=(10, 4))
    horizon = max(max(max(r) for r in results[p]) for p in drops)
    xs = list(range(1, max(horizon, 1) + 2))
    for p in drops:
        times = sorted(t for r in results[p] for t in r if t > 0)
        n = len(results[p]) * robots
        ax1.step(xs, [sum(t <= x for t in times) / n for x in xs], where="post", label=f"{p:.0%}")
    ax1.set_xscale("log")
    style_axes(ax1, f"{step_label} (log scale)", "fraction of robots through the barrier", title,
               legend={"fontsize": 7, "ncol": 2})
    ax2.plot([p * 100 for p in drops], means, "o-", label="mean")
    for k, p in enumerate(drops):
        ax2.scatter([p * 100] * len(results[p]), [max(r) for r in results[p]], s=8,
                    alpha=0.4, color="gray", label="one run" if k == 0 else None)
    ax2.set_yscale("symlog", linthresh=1.0)   # a run that never finished counts 0 steps
    style_axes(ax2, "packet drop (%)", "steps until the last robot leaves (log scale)",
               "Steps to consensus")
    return save_plot(fig, path)


def field_rows() -> list[Row]:
    """The paper's field results (§V-B, Figs. 6-7): listed as not reproducible, with why."""
    return [
        Row("Fig. 6: time for each robot to join the graph formation (field, 5-6 DJI M100)",
            "first join > 150 s; then < 30 s per robot on average (except experiment 3); "
            "drop rate estimated at 75–90 % from Fig. 4",
            "not reproducible: field times of the DJI M100s' take-off, GPS flight and XBee "
            "ground-to-air links; the text gives bounds only", True, informative=True),
        Row("Fig. 7: ratio of neighbour messages received over the swarm size, per state",
            "lower in Turned Off and Take Off (no numbers in the text)",
            "not reproducible: the paper attributes the ratios to radio waves deflected by "
            "the ground, which a simulated medium does not model", True, informative=True),
    ]


@validation("buzz-barrier")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    seeds = 3 if quick else SEEDS
    drops = [0.0, 0.5, 0.9] if quick else DROPS
    results = {p: [barrier_run(p, 1000 * int(round(p * 100)) + s) for s in range(seeds)]
               for p in drops}
    rows, means = consensus_rows(results, drops, "consensus reached", "mean {:.1f} steps")
    path = plot_barrier(results, drops, means, ROBOTS, "control step",
                        "Barrier (6 robots) vs packet drop", out_dir / "buzz_barrier.png")
    return Reproduction(
        "buzz-barrier", "rosbuzz barrier (Listing 1) with 6 robots under packet loss",
        rows + field_rows(), [path],
        f"{len(drops)} drop rates x {seeds} seeds; full connectivity; a step is one Buzz "
        "control step (the paper plots seconds of a ROS loop, so only trends compare).")
