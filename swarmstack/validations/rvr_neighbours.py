"""RVR neighbour localisation two ways on the same scenes (Mercator report §4.4, Table 1).

The report's simulator locates neighbours with an omnidirectional camera that sees a beacon
on top of every robot; the real robot clusters its lidar readings instead (§4.4: the 719
readings, those in **[0.10, 0.75] m** kept, consecutive ones joined within **2 cm** and
**10°**). Both run in the same ticks here, on random scenes of ten RVRs in a 2.5 m square
(several runs of one batch), and are compared:

* **offset** — the lidar reads the near surface of the other robot's lidar from its own
  window, the camera the robot's centre: the median difference must be positive and below
  the lidar's 0.10 m minimum range (a larger gap would mean the two paths see different
  things);
* **count** — a robot's number of lidar clusters equals its number of camera neighbours whose
  centre is within 0.75 m + that offset (the lidar's upper bound);
* **distance and bearing** — each cluster, matched to the nearest camera neighbour, agrees
  within the clustering thresholds: 2 cm (after the offset) and 10°.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, save_plot, style_axes, subplots, validation
from swarmstack.validations.sim_robots import started

# --- the report's numbers (reference side) -----------------------------------------------------
LIDAR_MIN_M = 0.10       # §4.4 step 2
LIDAR_MAX_M = 0.75       # §4.4 step 2
GAP_M = 0.02             # §4.4 step 3
GAP_DEG = 10.0           # §4.4 step 3
CAMERA_MAX_M = 10.0      # Table 1: d ∈ [0, 10] m

# --- agreement asked for (our choice: borderline robots at 0.75 m and robots hidden behind
# another's lidar make a few counts differ) ------------------------------------------------------
COUNT_AGREEMENT = 0.90
MATCH_AGREEMENT = 0.95

RUNS = 8
ROBOTS = 10


def scenes(runs: int = RUNS, seed: int = 4):
    sim = started({"simulation": {"ticks_per_second": 10, "seed": seed},
                   "arena": {"size": [2.5, 2.5]},
                   "robots": [{"name": "rvr", "type": "rvr", "count": ROBOTS,
                               "sensors": {"reference": True}}]}, runs=runs)
    return sim.readings("rvr")["reference"].copy()


def compare(rec) -> dict:
    """Per robot counts and matched (camera d, lidar d, bearing difference) triples."""
    cam_pts, pairs = [], []
    for i in range(rec.shape[0]):
        cd = rec["camera_distance"][i, :rec["camera_count"][i]]
        ca = rec["camera_angle"][i, :rec["camera_count"][i]]
        ld = rec["lidar_distance"][i, :rec["lidar_count"][i]]
        la = rec["lidar_angle"][i, :rec["lidar_count"][i]]
        cam_pts.append(cd)
        for d, a in zip(ld, la):
            da = np.abs((ca - a + math.pi) % (2 * math.pi) - math.pi)
            pairs.append((i, d, a, cd, ca, da))
    # the offset from the pairs whose nearest-bearing match is unambiguous
    raw = np.array([cd[np.argmin(da)] - d for _, d, _, cd, _, da in pairs if len(cd)])
    offset = float(np.median(raw)) if raw.size else float("nan")
    matched = []
    for _, d, a, cd, ca, da in pairs:
        if not len(cd):
            matched.append((np.nan, d, np.inf))
            continue
        # nearest camera neighbour in the plane, the lidar point moved back by the offset
        px, py = (d + offset) * math.cos(a), (d + offset) * math.sin(a)
        k = int(np.argmin((cd * np.cos(ca) - px) ** 2 + (cd * np.sin(ca) - py) ** 2))
        matched.append((cd[k], d, math.degrees(da[k])))
    lidar_count = rec["lidar_count"].astype(int)
    cam_count = np.array([(c <= LIDAR_MAX_M + offset).sum() for c in cam_pts])
    return {"offset": offset, "matched": np.array(matched).reshape(-1, 3),
            "lidar_count": lidar_count, "camera_count": cam_count,
            "camera_all": np.concatenate(cam_pts) if cam_pts else np.zeros(0)}


@validation("rvr-neighbours")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    rec = scenes(runs=3 if quick else RUNS)
    c = compare(rec)
    off, m = c["offset"], c["matched"]
    rows = [Row("camera neighbour distances (m)", f"within [0, {CAMERA_MAX_M:g}] (Table 1)",
                f"{c['camera_all'].min():.3f}–{c['camera_all'].max():.3f}",
                bool(c["camera_all"].size and c["camera_all"].min() >= 0
                     and c["camera_all"].max() <= CAMERA_MAX_M)),
            Row("lidar cluster distances (m)", f"within [{LIDAR_MIN_M}, {LIDAR_MAX_M}] (§4.4)",
                f"{m[:, 1].min():.3f}–{m[:, 1].max():.3f}" if len(m) else "none",
                bool(len(m)) and bool(np.all((m[:, 1] >= LIDAR_MIN_M)
                                             & (m[:, 1] <= LIDAR_MAX_M)))),
            Row("offset camera − lidar distance, median (m)",
                f"in (0, {LIDAR_MIN_M}) (lidar's minimum range)", f"{off:.4f}",
                bool(0 < off < LIDAR_MIN_M))]
    same = c["lidar_count"] == c["camera_count"]
    rows.append(Row(f"robots whose lidar count = camera count within {LIDAR_MAX_M} m + offset",
                    f"≥ {COUNT_AGREEMENT:.0%}", f"{same.mean():.1%} of {same.size}",
                    bool(same.mean() >= COUNT_AGREEMENT)))
    close = np.abs(m[:, 0] - off - m[:, 1]) <= GAP_M
    rows.append(Row("clusters within 2 cm of their camera neighbour (after the offset)",
                    f"≥ {MATCH_AGREEMENT:.0%} (§4.4: 2 cm)", f"{close.mean():.1%} of {len(m)}",
                    bool(len(m)) and bool(close.mean() >= MATCH_AGREEMENT)))
    aligned = m[:, 2] <= GAP_DEG
    rows.append(Row("clusters within 10° of their camera neighbour's bearing",
                    f"≥ {MATCH_AGREEMENT:.0%} (§4.4: 10°)", f"{aligned.mean():.1%} of {len(m)}",
                    bool(len(m)) and bool(aligned.mean() >= MATCH_AGREEMENT)))
    fig, (a1, a2) = subplots(1, 2, figsize=(11, 4.5))
    a1.plot(m[:, 0], m[:, 1], ".", ms=5, label="matched clusters")
    xs = np.array([0.3, 0.9])
    a1.plot(xs, xs - off, "k--", lw=0.8, label=f"camera − {off:.3f} m")
    a1.axhline(LIDAR_MAX_M, color="grey", lw=0.6)
    style_axes(a1, "camera distance (m)", "lidar cluster distance (m)",
               "Distance: camera beacons vs lidar clusters")
    top = int(max(c["camera_count"].max(), c["lidar_count"].max())) + 1
    grid = np.zeros((top, top))
    for a, b in zip(c["camera_count"], c["lidar_count"]):
        grid[b, a] += 1
    a2.imshow(grid, origin="lower", cmap="Blues")
    for (y, x), v in np.ndenumerate(grid):
        if v:
            a2.text(x, y, int(v), ha="center", va="center", fontsize=8)
    style_axes(a2, f"camera count (≤ {LIDAR_MAX_M} m + offset)", "lidar count",
               "Neighbour counts per robot", legend=False)
    png = save_plot(fig, out_dir / "rvr_neighbours.png")
    notes = ("Reference side: the clustering range [0.10, 0.75] m, the 2 cm and 10° thresholds "
             "(§4.4) and Table 1's 10 m, as literals here. The report compares no numbers "
             "between the two paths (its simulator cannot see lidar on lidar); the agreement "
             "rates asked for are ours, and the lidar runs noise-free (its noise width is "
             "user-set, §4.2.10).")
    return Reproduction("rvr-neighbours",
                        "RVR neighbours: omnidirectional camera vs lidar clusters (§4.4, Table 1)",
                        rows, [png], notes)
