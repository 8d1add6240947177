"""E-Puck2 ground sensor (paper §3.3, Table 1, §4.1.3 and Fig. 6).

§3.3: the ground module is "three different sensors located at the bottom front of the
E-Puck2 … arranged in a row perpendicular to the robot moving direction" measuring the grey
level under the robot, whose "range goes from 0 (black) to 1023 (white)"; Table 1: "Ground 3
[0.0-1.0] 3 [0 - 1023]" (ARGoS's generic sensor, then the plug-in's). Here three E-Puck2
robots stand on a black, a mid-grey and a white floor (one run each) and read their three
sensors once:

* three readings per robot (Table 1);
* black reads 0, white 1023, and the grey floor its level scaled to 0–1023, each within one
  step of the floor's 8-bit grey (1023/255 ≈ 4 units): the floor is an 8-bit texture;
* on a uniform floor the three sensors agree (§4.1.3: "almost coincident" readings).

§4.1.3's Fig. 6 (a robot crossing grey stripes and one rotating on them, against the robot's
readings) is published as plots only, with "some residual detections for black" on the robot
that the text does not quantify: listed as not reproducible.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, validation
from swarmstack.validations.sim_robots import explicit, started

# --- the paper's numbers (reference side) ------------------------------------------------------
PAPER_SENSORS = 3             # §3.3, Table 1
PAPER_WHITE = 1023            # §3.3: "to 1023 (white)"
GREYS = {"black": 0.0, "grey": 0.5, "white": 1.0}

# --- tolerance: one 8-bit floor step on the 0-1023 scale ---------------------------------------
STEP = PAPER_WHITE / 255.0


def _reading(grey: float) -> np.ndarray:
    """The three ground readings of a still E-Puck2 on a uniform floor of ``grey`` (0-1)."""
    sim = started({"simulation": {"ticks_per_second": 10}, "arena": {"size": [1.0, 1.0]},
                   "floor": {"grey": grey},
                   "robots": [explicit("epuck2", [[0.0, 0.0, 0.0]], type="epuck2", count=1,
                                       sensors={"ground": True})]}, seed=1)
    sim.step()
    return np.array(sim.readings("epuck2")["ground"][0], dtype=float)


@validation("epuck2-ground")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    readings = {name: _reading(g) for name, g in GREYS.items()}
    rows = [Row("ground sensors per robot (Table 1)", f"{PAPER_SENSORS}",
                f"{len(readings['grey'])}", len(readings["grey"]) == PAPER_SENSORS)]
    for name, g in GREYS.items():
        paper = g * PAPER_WHITE
        r = readings[name]
        rows.append(Row.within(
            f"{name} floor (grey {g:g}): mean of the three readings (§3.3: 0 black – 1023 "
            f"white; ± one 8-bit floor step, 1023/255)", paper, float(r.mean()), STEP,
            digits=4))
        rows.append(Row.within(
            f"{name} floor: spread of the three readings (§4.1.3: “almost coincident”; "
            "± one floor step)", 0.0, float(r.max() - r.min()), STEP, digits=3))
    rows.append(Row("Fig. 6(c)–(f): readings crossing and rotating over grey stripes, "
                    "against the robot's", "plots only; the robot's residual black detections "
                    "are not quantified",
                    "not reproducible: the paper publishes these curves without numbers", True,
                    informative=True))
    notes = ("one still E-Puck2 per floor (black, grey 0.5, white), one tick; readings: "
             + "; ".join(f"{k} {', '.join(f'{v:g}' for v in r)}" for k, r in readings.items()))
    return Reproduction("epuck2-ground", "E-Puck2 ground sensor: range and agreement (§3.3, "
                        "Table 1, §4.1.3)", rows, [], notes)

