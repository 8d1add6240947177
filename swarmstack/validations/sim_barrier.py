"""sim-barrier: the rosbuzz barrier (Listing 1) on simulated E-Puck2 robots under packet loss.

The same script as ``buzz-barrier`` (``examples/buzz/barrier.bzz``), but run by six simulated
E-Puck2 robots standing on a circle of radius 0.25 m: every robot is inside every other's
0.8 m range-and-bearing radius, so the neighbours each robot hears come from the simulated
radio, not from a topology given by hand. Each frame a robot would hear is lost with
probability p (the receiver's Bernoulli draw, as the paper's relay node). For p = 0 %, 10 %,
..., 90 % and 20 seeds each (batched: run k of a batch uses seed s + k) we record the control
step at which each robot leaves the barrier (one step = one 50 ms tick).

The paper reports that consensus was always reached up to 90 % loss and that the swarm takes
longer as more packets are dropped (Fig. 4). Besides those two claims we check that the radio
really lost the fraction p of what it carried, so that a world without losses cannot pass.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Optional

from swarmstack.validations import Reproduction, Row, validation
from swarmstack.validations.buzz_barrier import consensus_rows, plot_barrier
from swarmstack.validations.sim_robots import (TICKS_PER_SECOND, buzz_simulation, circle_poses,
                                               per_run, step_until)

ROBOTS = 6
RADIUS_M = 0.25       # robots on a circle: the farthest pair is 0.5 m apart
RANGE_M = 0.8         # the E-Puck2 range-and-bearing board's range: all robots in range
PAYLOAD_BYTES = 250   # an Xbee frame, as in the paper
DROPS = [i / 10 for i in range(10)]
SEEDS = 20
MAX_STEPS = 600       # the listing's BARRIER_TIMEOUT


def barrier_runs(drop: float, seed: int, runs: int = 1, robots: int = ROBOTS,
                 range_m: float = RANGE_M, payload_bytes: int = PAYLOAD_BYTES,
                 applied_drop: Optional[float] = None,
                 max_steps: int = MAX_STEPS) -> tuple[list[list[int]], dict]:
    """``runs`` barrier runs (seeds ``seed`` … ``seed + runs - 1``) at packet drop ``drop``.

    Returns the step at which each robot left the barrier, per run (-1: never), and the
    radio counters. ``applied_drop`` is the loss actually given to the radio (default
    ``drop``): a different value models a radio that ignores the requested loss.
    """
    radio = {"range": range_m, "payload_bytes": payload_bytes,
             "drop": drop if applied_drop is None else applied_drop}
    sim = buzz_simulation("barrier.bzz", circle_poses(robots, RADIUS_M), {"ROBOTS": robots},
                          radio, seed, runs)
    step_until(sim, "done_at", max_steps)
    left = [[-1 if t is None else int(t) for t in run] for run in per_run(sim, "done_at")]
    return left, sim.radio_stats()


def loss_tolerance(p: float, frames: int) -> float:
    """How far the measured loss may sit from p: 4 binomial standard deviations (at least 1 %)."""
    return max(0.01, 4 * math.sqrt(p * (1 - p) / max(frames, 1)))


@validation("sim-barrier")
def validate(out_dir: Path, quick: bool = False, *, range_m: float = RANGE_M,
             payload_bytes: int = PAYLOAD_BYTES, apply_drop: bool = True,
             max_steps: int = MAX_STEPS) -> Reproduction:
    """The validation; the keyword arguments change the simulated radio (to show that a wrong
    world fails it)."""
    seeds = 4 if quick else SEEDS
    drops = [0.0, 0.5, 0.9] if quick else DROPS
    results: dict[float, list[list[int]]] = {}
    loss: dict[float, tuple[float, int]] = {}
    for p in drops:
        left, stats = barrier_runs(p, 1000 * int(round(p * 100)), seeds, range_m=range_m,
                                   payload_bytes=payload_bytes,
                                   applied_drop=None if apply_drop else 0.0, max_steps=max_steps)
        results[p] = left
        heard = stats["messages_delivered"] + stats["messages_dropped"]
        loss[p] = (stats["messages_dropped"] / heard if heard else float("nan"), heard)

    rows, means = consensus_rows(results, drops, "every robot leaves the barrier",
                                 "last robot out after {:.1f} steps on average")
    worst = max(abs(loss[p][0] - p) / loss_tolerance(p, loss[p][1]) if loss[p][1] else math.inf
                for p in drops)
    rows.append(Row("radio lost the requested fraction of frames", "Bernoulli(p) per packet",
                    ", ".join(f"{p:.0%}: {loss[p][0]:.1%}" for p in drops),
                    worst <= 1.0))
    path = plot_barrier(results, drops, means, ROBOTS,
                        f"control step ({1000 // TICKS_PER_SECOND} ms)",
                        "Barrier, 6 simulated E-Puck2 vs packet drop",
                        out_dir / "sim_barrier.png")
    return Reproduction(
        "sim-barrier",
        "rosbuzz barrier (Listing 1) on 6 simulated E-Puck2 robots under packet loss", rows,
        [path], f"{len(drops)} drop rates x {seeds} seeds; robots on a {RADIUS_M} m circle, radio "
        f"range {range_m} m, {payload_bytes} B per robot per step, "
        f"{1000 // TICKS_PER_SECOND} ms steps. The paper plots seconds of a ROS loop on "
        "simulated M100s, so only the trends compare.")

