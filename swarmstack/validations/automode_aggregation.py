"""automode-aggregation: AutoMoDe's modules as the seeds publish them, and a designed aggregation.

**Module parameters, judged literally.** The Mercator (Sphero RVR) report, §4.5, is the seeds'
one source on AutoMoDe. It restates the modules of AutoMoDe-Chocolate (those of
AutoMoDe-Vanilla, Francesca et al. 2014) and defines AutoMoDe-Watermelon; every number it gives
(the table below) is compared with the design space swarmstack searches
(``swarmstack.design.chocolate``, ``swarmstack.design.watermelon``, ``swarmstack.design.pfsm``),
with no tolerance. Chocolate's floor thresholds (0.1 and 0.95) are not in the seeds; they come
from AutoMoDe's published source (``AutoMoDeConditionBlackFloor``/``WhiteFloor``) and are not
compared here.

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

# --- what the seed publishes (Mercator report §4.5), in the rows' order ------------------------
# (row, the seed's number or (smallest, largest), where the design space keeps it: "module.NAME"
# or (flavour, behaviours|conditions, module, parameter, symbol); then where in §4.5 and a unit)
PAPER = (
    ("Chocolate exploration: obstacle threshold prox_i", 0.1, "chocolate.PROXIMITY_THRESHOLD"),
    ("Chocolate exploration", (1, 100), ("chocolate", "behaviours", "exploration", "rwm", "τ")),
    ("Chocolate attraction", (1.0, 5.0), ("chocolate", "behaviours", "attraction", "att", "α")),
    ("Chocolate repulsion", (1.0, 5.0), ("chocolate", "behaviours", "repulsion", "rep", "α")),
    ("Chocolate obstacle gain k of w = w' − k·w_o", 5.0, "chocolate.OBSTACLE_GAIN", "Eq. 14"),
    ("Chocolate neighbour-count", (0.0, 20.0),
     ("chocolate", "conditions", "neighbour-count", "w", "η")),
    ("Chocolate neighbour-count", (0, 10), ("chocolate", "conditions", "neighbour-count", "p", "ξ")),
    ("Chocolate inverted-neighbour-count", (0.0, 20.0),
     ("chocolate", "conditions", "inverted-neighbour-count", "w", "η")),
    ("Chocolate inverted-neighbour-count", (0, 10),
     ("chocolate", "conditions", "inverted-neighbour-count", "p", "ξ")),
    ("PFSM: most states", 4, "pfsm.MAX_STATES"),
    ("PFSM: most outgoing transitions per state", 4, "pfsm.MAX_TRANSITIONS"),
    ("Watermelon exploration", (1, 100), ("watermelon", "behaviours", "exploration", "rwm", "τ")),
    ("Watermelon black floor: grey below", 0.05, "watermelon.BLACK_BELOW", "condition 1"),
    ("Watermelon white floor: grey above", 0.78, "watermelon.WHITE_ABOVE", "condition 3"),
    ("Watermelon attraction k_w", 1.2, "watermelon.ATTRACTION_GAIN", "Eq. 18"),
    ("Watermelon attraction k_o", 5.0, "watermelon.OBSTACLE_GAIN", "Eq. 18"),
    ("Watermelon colour detection: hue tolerance", 15.0, "watermelon.HUE_TOLERANCE_DEG",
     "condition 7", "°"),
)
PAPER_FRONT_SENSORS = (1, 2, 7, 8)          # Chocolate's exploration; 1-based, the e-puck's
PAPER_WATERMELON_COLOURS = 4                # condition 7


def module_rows() -> list[Row]:
    """The design space's constants against the seed's numbers."""
    from swarmstack.design import chocolate, pfsm, watermelon

    modules = {"chocolate": chocolate, "pfsm": pfsm, "watermelon": watermelon}
    rows = []
    for what, paper, ours, *more in PAPER:
        cite, unit = ", ".join([SOURCE, *more[:1]]), "".join(more[1:])
        if isinstance(ours, str):        # a module's constant
            module, constant = ours.split(".")
            rows.append(Row.within(f"{what} ({cite})", paper, getattr(modules[module], constant),
                                   0.0, unit))
            continue
        flavour, kind, module, name, symbol = ours     # a parameter's range
        space = getattr(getattr(modules[flavour], flavour.upper()), kind)
        p = next(p for p in next(m for m in space if m.name == module).params if p.name == name)
        rows += [Row.within(f"{what}: smallest {symbol} ({cite})", paper[0], p.low, 0.0),
                 Row.within(f"{what}: largest {symbol} ({cite})", paper[1], p.high, 0.0)]
    front = tuple(int(i) + 1 for i in chocolate.FRONT)
    rows.insert(1, Row(f"Chocolate exploration: front sensors ({SOURCE})",
                       ", ".join(map(str, PAPER_FRONT_SENSORS)), ", ".join(map(str, front)),
                       front == PAPER_FRONT_SENSORS))
    rows.append(Row.within(f"Watermelon colour detection: colours ({SOURCE}, condition 7)",
                           PAPER_WATERMELON_COLOURS, len(watermelon.COLOURS), 0.0))
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
