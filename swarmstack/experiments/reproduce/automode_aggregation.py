"""automode-aggregation: AutoMoDe-Chocolate designs aggregation better than chance.

The protocol of Francesca et al. (2015, §4): a design by iterated F-race with a budget of
20 000 simulation runs of the mission (20 E-Puck2, 120 s), then the designed PFSM, 20 PFSMs
sampled uniformly from the same space and a hand-written PFSM (the mission file's own) each
run on 30 fresh seeds. The claim checked is the paper's qualitative one — the design beats
PFSMs drawn at random, one-sided Mann–Whitney test, p < 0.01 — with the box plots saved.
"""

from __future__ import annotations

import os
from pathlib import Path

from swarmstack.experiments.reproduce import Reproduction, Row, validation

BUDGET = 20_000
P_MAX = 0.01


@validation("automode-aggregation")
def automode_aggregation(out_dir: Path, budget: int = BUDGET, ticks: int | None = None,
                         n_fresh: int = 30, n_random: int = 20,
                         workers: int | None = None, seed: int = 1) -> Reproduction:
    from swarmstack.design.missions import EXAMPLES
    from swarmstack.design.run import design

    out = Path(out_dir) / "design"
    workers = workers or min(2, os.cpu_count() or 1)
    best, a = design(EXAMPLES / "aggregation.toml", "aggregation", budget, seed, out,
                     workers=workers, resume=True, ticks=ticks, n_fresh=n_fresh,
                     n_random=n_random)
    s = a.summary()
    rows = [
        Row("design beats random PFSMs (one-sided Mann–Whitney p)", f"< {P_MAX}",
            f"{a.p_value:.3g}", a.p_value < P_MAX),
        Row("median fraction of robot-time on black: design", "> random",
            f"{s['design_median']:.3f}", s["design_median"] > s["random_median"]),
        Row(f"median: {n_random} random PFSMs", "—", f"{s['random_median']:.3f}", True),
    ]
    if "hand_median" in s:
        rows.append(Row("median: hand-written PFSM", "—", f"{s['hand_median']:.3f}", True))
    return Reproduction(
        "automode-aggregation", f"AutoMoDe-Chocolate aggregation, budget {budget} runs",
        rows, files=[out / "best.txt", out / "scores.json", out / "scores.png"],
        notes=f"designed PFSM: {best}")
