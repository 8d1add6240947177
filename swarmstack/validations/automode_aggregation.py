"""automode-aggregation: AutoMoDe's modules as the seeds publish them, and a designed aggregation.

Two parts.

**Module parameters, judged literally.** The Mercator (Sphero RVR) report, §4.5, is the seeds'
one source on AutoMoDe. It restates the modules of AutoMoDe-Chocolate (those of
AutoMoDe-Vanilla, Francesca et al. 2014) and defines AutoMoDe-Watermelon; every number it gives
is compared with the design space swarmstack searches (``swarmstack.design.chocolate``,
``swarmstack.design.watermelon``, ``swarmstack.design.pfsm``), with no tolerance for ranges and
counts:

* Chocolate: exploration turns when ``prox_i ≥ 0.1`` for a front sensor i ∈ {1, 2, 7, 8}, for
  up to τ ∈ {1, …, 100} control cycles; attraction and repulsion α ∈ [1, 5]; the obstacle gain
  k = 5 of ``w = w' − k·w_o``; neighbour count η ∈ [0, 20], ξ ∈ {0, …, 10}; at most 4 states and
  4 outgoing transitions per state;
* Watermelon: black floor below 0.05, white floor above 0.78 (grey level); attraction's
  k_w = 1.2 and k_o = 5 (Eq. 18); colour detection among 4 colours within 15° of hue;
  exploration's τ ∈ {1, …, 100}.

Chocolate's floor thresholds (0.1 and 0.95) are not in the seeds; they come from AutoMoDe's
published source (``AutoMoDeConditionBlackFloor``/``WhiteFloor``) and are not compared here.

**A design.** The protocol of Francesca et al. (2015, §4), not a seed: iterated F-race with a
budget of 20 000 runs of the aggregation mission (20 E-Puck2, 120 s), then the designed PFSM,
20 PFSMs drawn uniformly from the same space and the mission file's hand-written PFSM each run
on 30 fresh seeds. The seeds publish no aggregation score for any AutoMoDe flavour, so no
number is compared; the rows judge swarmstack's own sanity check instead — the design beats
PFSMs drawn at random (one-sided Mann–Whitney test, p < 0.01, and a higher median) — with the
box plots saved. The full design resumes the one already in its folder; the quick form designs
afresh with 1 000 runs of 30 s (300 ticks) instead; at that size the test has too little power
to judge (p ≈ 0.01–0.3 from one design seed to another), so its p is shown for information and
only the higher median is judged.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from swarmstack.validations import Reproduction, Row, validation

BUDGET = 20_000
QUICK_BUDGET = 1_000
QUICK_TICKS = 300
P_MAX = 0.01
SOURCE = "Mercator report §4.5"

# --- what the seed publishes (Mercator report §4.5) --------------------------------------------
PAPER_PROXIMITY_THRESHOLD = 0.1
PAPER_FRONT_SENSORS = (1, 2, 7, 8)          # 1-based, the e-puck's
PAPER_TAU = (1, 100)
PAPER_ALPHA = (1.0, 5.0)
PAPER_OBSTACLE_GAIN = 5.0
PAPER_ETA = (0.0, 20.0)
PAPER_XI = (0, 10)
PAPER_MAX_STATES = 4
PAPER_MAX_TRANSITIONS = 4
PAPER_WATERMELON_BLACK_BELOW = 0.05
PAPER_WATERMELON_WHITE_ABOVE = 0.78
PAPER_WATERMELON_K_W = 1.2
PAPER_WATERMELON_K_O = 5.0
PAPER_WATERMELON_HUE_DEG = 15.0
PAPER_WATERMELON_COLOURS = 4


def _param(modules, module: str, name: str):
    m = next(m for m in modules if m.name == module)
    return next(p for p in m.params if p.name == name)


def _range_rows(flavour: str, modules, module: str, name: str, symbol: str,
                paper: tuple) -> list[Row]:
    p = _param(modules, module, name)
    return [Row.within(f"{flavour} {module}: smallest {symbol} ({SOURCE})", paper[0], p.low, 0.0),
            Row.within(f"{flavour} {module}: largest {symbol} ({SOURCE})", paper[1], p.high, 0.0)]


def module_rows() -> list[Row]:
    """The design space's constants against the seed's numbers."""
    from swarmstack.design import chocolate, pfsm, watermelon

    beh, cond = chocolate.CHOCOLATE.behaviours, chocolate.CHOCOLATE.conditions
    front = tuple(int(i) + 1 for i in chocolate.FRONT)
    rows = [
        Row.within(f"Chocolate exploration: obstacle threshold prox_i ({SOURCE})",
                   PAPER_PROXIMITY_THRESHOLD, chocolate.PROXIMITY_THRESHOLD, 0.0),
        Row(f"Chocolate exploration: front sensors ({SOURCE})",
            ", ".join(map(str, PAPER_FRONT_SENSORS)), ", ".join(map(str, front)),
            front == PAPER_FRONT_SENSORS),
        *_range_rows("Chocolate", beh, "exploration", "rwm", "τ", PAPER_TAU),
        *_range_rows("Chocolate", beh, "attraction", "att", "α", PAPER_ALPHA),
        *_range_rows("Chocolate", beh, "repulsion", "rep", "α", PAPER_ALPHA),
        Row.within(f"Chocolate obstacle gain k of w = w' − k·w_o ({SOURCE}, Eq. 14)",
                   PAPER_OBSTACLE_GAIN, chocolate.OBSTACLE_GAIN, 0.0),
        *_range_rows("Chocolate", cond, "neighbour-count", "w", "η", PAPER_ETA),
        *_range_rows("Chocolate", cond, "neighbour-count", "p", "ξ", PAPER_XI),
        *_range_rows("Chocolate", cond, "inverted-neighbour-count", "w", "η", PAPER_ETA),
        *_range_rows("Chocolate", cond, "inverted-neighbour-count", "p", "ξ", PAPER_XI),
        Row.within(f"PFSM: most states ({SOURCE})", PAPER_MAX_STATES, pfsm.MAX_STATES, 0.0),
        Row.within(f"PFSM: most outgoing transitions per state ({SOURCE})",
                   PAPER_MAX_TRANSITIONS, pfsm.MAX_TRANSITIONS, 0.0),
        *_range_rows("Watermelon", watermelon.WATERMELON.behaviours, "exploration", "rwm", "τ",
                     PAPER_TAU),
        Row.within(f"Watermelon black floor: grey below ({SOURCE}, condition 1)",
                   PAPER_WATERMELON_BLACK_BELOW, watermelon.BLACK_BELOW, 0.0),
        Row.within(f"Watermelon white floor: grey above ({SOURCE}, condition 3)",
                   PAPER_WATERMELON_WHITE_ABOVE, watermelon.WHITE_ABOVE, 0.0),
        Row.within(f"Watermelon attraction k_w ({SOURCE}, Eq. 18)",
                   PAPER_WATERMELON_K_W, watermelon.ATTRACTION_GAIN, 0.0),
        Row.within(f"Watermelon attraction k_o ({SOURCE}, Eq. 18)",
                   PAPER_WATERMELON_K_O, watermelon.OBSTACLE_GAIN, 0.0),
        Row.within(f"Watermelon colour detection: hue tolerance ({SOURCE}, condition 7)",
                   PAPER_WATERMELON_HUE_DEG, watermelon.HUE_TOLERANCE_DEG, 0.0, "°"),
        Row.within(f"Watermelon colour detection: colours ({SOURCE}, condition 7)",
                   PAPER_WATERMELON_COLOURS, len(watermelon.COLOURS), 0.0),
    ]
    return rows


@validation("automode-aggregation")
def automode_aggregation(out_dir: Path, quick: bool = False, budget: int | None = None,
                         ticks: int | None = None, n_fresh: int = 30, n_random: int = 20,
                         workers: int | None = None, seed: int = 1) -> Reproduction:
    from swarmstack.design.missions import EXAMPLES
    from swarmstack.design.run import design

    if budget is None:
        budget = QUICK_BUDGET if quick else BUDGET
    if ticks is None and quick:
        ticks = QUICK_TICKS
    out = Path(out_dir) / ("design-quick" if quick else "design")
    if quick:
        shutil.rmtree(out, ignore_errors=True)   # seconds to redo: never a stale design
    workers = workers or (1 if quick else min(2, os.cpu_count() or 1))
    best, a = design(EXAMPLES / "aggregation.toml", "aggregation", budget, seed, out,
                     workers=workers, resume=True, ticks=ticks, n_fresh=n_fresh,
                     n_random=n_random)
    s = a.summary()
    rows = module_rows() + [
        # a quick design (1 000 short runs) is too small for the test's power: its p is shown,
        # and only the medians are judged
        Row("design beats random PFSMs (one-sided Mann–Whitney p; no seed number)",
            f"< {P_MAX}", f"{a.p_value:.3g}", a.p_value < P_MAX, P_MAX, float(a.p_value),
            informative=quick),
        Row("median fraction of robot-time on black: design (no seed number)", "> random",
            f"{s['design_median']:.3f}", s["design_median"] > s["random_median"],
            ours_value=float(s["design_median"])),
        Row(f"median: {n_random} random PFSMs", "—", f"{s['random_median']:.3f}", True,
            ours_value=float(s["random_median"]), informative=True),
    ]
    if "hand_median" in s:
        rows.append(Row("median: hand-written PFSM", "—", f"{s['hand_median']:.3f}", True,
                        ours_value=float(s["hand_median"]), informative=True))
    length = f"{ticks} ticks" if ticks else "120 s"
    return Reproduction(
        "automode-aggregation",
        f"AutoMoDe-Chocolate aggregation, budget {budget} runs of {length}",
        rows, files=[out / "best.txt", out / "scores.json", out / "scores.png"],
        notes=f"designed PFSM: {best}")
