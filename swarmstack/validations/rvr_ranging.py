"""RVR proximity sensors and lidar (Mercator report §4.2.9-§4.2.10, Figs. 8-9).

§4.2.9: the proximity sensors "detect obstacles between 0.05 and 2 meters": a reading is the
distance to the first occluding object when it lies in [0.05, 2], "−∞ or +∞ if the object is
too close or too far"; their noise "is normally-distributed with a low deviation" (Fig. 8).
§4.2.10: the lidar is "implemented in the same way … many more readings (719 against 8), and a
broader range: [0.10, 12] meters"; its noise is uniform, with a width "the user can tweak"
(Fig. 9).

Here one RVR faces a 1 m wide box whose face is set at chosen distances from its front
proximity sensor (0°) and from its lidar, noise off: each reading is compared with the
distance (± 1 mm), and with ∓∞ / the lidar's no-return value outside the range. Noise: 600
ticks in front of the box at 1 m with the defaults (proximity N(0, 0.005 m), chosen: Fig. 8
gives no σ) and with a lidar width of 0.02 m (the user's choice, Fig. 9): the errors' excess
kurtosis tells a normal (0) from a uniform (−1.2) distribution, judged within ± 0.6 (3 standard
errors of the excess kurtosis over 600 samples: √(24/600) = 0.2 for a normal, less for a
uniform); the lidar errors stay within ± the width.

Figs. 8-9 themselves are histograms of the real sensors without numbers (no σ, no width):
listed as not reproducible beyond their shapes.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, validation
from swarmstack.validations.sim_robots import explicit, started

# --- the report's numbers (reference side) -----------------------------------------------------
PAPER_PROX_RANGE_M = (0.05, 2.0)     # §4.2.9
PAPER_LIDAR_RANGE_M = (0.10, 12.0)   # §4.2.10
PAPER_LIDAR_READINGS = 719           # §4.2.10
PAPER_PROX_READINGS = 8              # §4.2.10: "719 against 8"
NORMAL_EXCESS_KURTOSIS = 0.0         # Fig. 8: "normally-distributed"
UNIFORM_EXCESS_KURTOSIS = -1.2       # Fig. 9: "a uniform noise"

# --- the scene and tolerances (our choice) -----------------------------------------------------
DISTANCE_TOL_M = 0.001
KURTOSIS_TOL = 0.6
NOISE_TICKS = 600
QUICK_NOISE_TICKS = 600
LIDAR_WIDTH_M = 0.02
PROX_DISTANCES_M = (0.03, 0.5, 1.5, 2.5)   # from the front proximity sensor
LIDAR_DISTANCES_M = (5.0, 13.0)            # from the lidar's ring (closer than 0.10 m is
#                                            inside the RVR's own body: not testable)


def _read(face_x: float, ticks: int = 1, prox=None, lidar=None):
    """(proximity, lidar) readings of the still RVR facing a box at ``face_x``, one row per
    tick."""
    sim = started({
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [30.0, 30.0]},
        "boxes": [{"center": [face_x + 0.05, 0.0], "size": [0.1, 1.0, 0.3]}],
        "robots": [explicit("rvr", [[0.0, 0.0, 0.0]], type="rvr", count=1,
                            sensors={"proximity": {"noise_std": 0.0} if prox is None else prox,
                                     "lidar": {"noise_width": 0.0} if lidar is None else lidar})],
    }, seed=3)
    p, li = [], []
    for _ in range(ticks):
        sim.step()
        r = sim.readings("rvr")
        p.append(np.array(r["proximity"][0], dtype=float))
        li.append(np.array(r["lidar"][0], dtype=float))
    return np.array(p), np.array(li)


def _excess_kurtosis(x: np.ndarray) -> float:
    d = x - x.mean()
    return float(np.mean(d ** 4) / np.mean(d ** 2) ** 2 - 3.0)


@validation("rvr-ranging")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    from swarmstack.robots import rvr

    front = rvr.PROX_ANGLES_DEG.index(0.0)
    ring = rvr.PROX_RING_M
    rows = []
    p, li = _read(ring + 1.0)
    clean_front, clean_ray0 = p[0, front], li[0, 0]   # noise off: the exact distances
    rows.append(Row.within("lidar readings per scan (§4.2.10)", PAPER_LIDAR_READINGS,
                           li.shape[1], 0))
    rows.append(Row.within("proximity readings (§4.2.10: “719 against 8”)",
                           PAPER_PROX_READINGS, p.shape[1], 0))
    lo, hi = PAPER_PROX_RANGE_M
    for d in PROX_DISTANCES_M:
        reading = _read(ring + d)[0][0, front]
        if lo <= d <= hi:
            rows.append(Row.within(f"front proximity, obstacle {d:g} m away (m; §4.2.9: the "
                                   f"distance in [{lo:g}, {hi:g}] m; ± 1 mm)", d, reading,
                                   DISTANCE_TOL_M, "m"))
        else:
            want = -math.inf if d < lo else math.inf
            rows.append(Row(f"front proximity, obstacle {d:g} m away (§4.2.9: "
                            f"{'−∞ too close' if d < lo else '+∞ too far'})",
                            f"{want:g}", f"{reading:g}", reading == want))
    lo, hi = PAPER_LIDAR_RANGE_M
    lidar_ring = rvr.LIDAR_RING_M
    for d in LIDAR_DISTANCES_M:
        scan = _read(lidar_ring + d)[1][0]
        if lo <= d <= hi:
            nearest = float(scan[scan > 0].min())
            rows.append(Row.within(f"lidar, obstacle {d:g} m away: nearest reading (m; "
                                   f"§4.2.10: range [{lo:g}, {hi:g}] m; ± 1 mm)", d, nearest,
                                   DISTANCE_TOL_M, "m"))
        else:
            rows.append(Row.within(f"lidar, obstacle {d:g} m away (beyond {hi:g} m): every ray "
                                   "reads the no-return value (m)", hi, float(scan.max()), 0.0,
                                   "m"))
    ticks = QUICK_NOISE_TICKS if quick else NOISE_TICKS
    p, li = _read(ring + 1.0, ticks, prox={}, lidar={"noise_width": LIDAR_WIDTH_M})
    prox_err = p[:, front] - clean_front
    lidar_err = li[:, 0] - clean_ray0
    rows.append(Row.within("proximity noise shape: excess kurtosis of the errors (Fig. 8: "
                           f"normal; ± {KURTOSIS_TOL:g})", NORMAL_EXCESS_KURTOSIS,
                           _excess_kurtosis(prox_err), KURTOSIS_TOL))
    rows.append(Row.within("lidar noise shape: excess kurtosis of the errors (Fig. 9: uniform; "
                           f"± {KURTOSIS_TOL:g})", UNIFORM_EXCESS_KURTOSIS,
                           _excess_kurtosis(lidar_err), KURTOSIS_TOL))
    rows.append(Row(f"lidar noise stays within the width set ({LIDAR_WIDTH_M:g} m; Fig. 9: the "
                    "user tweaks the range)", f"|error| ≤ {LIDAR_WIDTH_M:g}",
                    f"{np.abs(lidar_err).max():.4f}",
                    bool(np.abs(lidar_err).max() <= LIDAR_WIDTH_M + 1e-9)))
    rows.append(Row("Figs. 8-9: the real sensors' noise histograms", "plots without σ or width",
                    "not reproducible: the report gives the shapes (compared above), not their "
                    "sizes", True, informative=True))
    notes = (f"one still RVR facing a box; noise rows over {ticks} ticks at 1 m (proximity "
             f"N(0, 0.005 m) by default; lidar width {LIDAR_WIDTH_M:g} m)")
    return Reproduction("rvr-ranging", "RVR proximity sensors and lidar: ranges and noise shapes "
                        "(Mercator §4.2.9-4.2.10, Figs. 8-9)", rows, [], notes)

