"""RVR colour ground sensor noise (Mercator report §4.2.1, Fig. 6).

The report measured the sensor over **300 samples** for each of **4 colours (red, green, blue,
yellow)** and recommends Gaussian noise **N(0, 5)** per colour channel. Here four RVRs stand
still, one on each of four painted colour patches, for 300 ticks; for every colour and channel
the errors (reading − floor colour) are compared with N(0, 5): mean, standard deviation, and
the share of errors within ±5 (the reading is an integer, so ±5 means |noise| < 5.5, whose
N(0, 5) probability is computed from the report's σ).

The patches are mid-tone shades of the four colours (our choice): the sensor clamps to 0–255,
and a pure 255/0 channel would cut half of the noise away.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, save_plot, style_axes, subplots, validation
from swarmstack.validations.sim_robots import explicit, started

# --- the report's numbers (reference side) -----------------------------------------------------
SAMPLES = 300            # §4.2.1: 300 samples per colour
NOISE_MEAN = 0.0         # §4.2.1: N(0, 5)
NOISE_STD = 5.0
COLOURS = ("red", "green", "blue", "yellow")   # §4.2.1, Fig. 6

# --- tolerances: 3 standard errors of the statistics for 300 samples ---------------------------
MEAN_TOL = 3 * NOISE_STD / math.sqrt(SAMPLES)                 # ≈ 0.87
STD_TOL = 3 * NOISE_STD / math.sqrt(2 * (SAMPLES - 1))        # ≈ 0.61
INSIDE_P = math.erf(5.5 / (NOISE_STD * math.sqrt(2)))         # P(|round(N(0, 5))| ≤ 5)
INSIDE_TOL = 3 * math.sqrt(INSIDE_P * (1 - INSIDE_P) / SAMPLES)

# --- the scene (our choice) --------------------------------------------------------------------
SHADES = {"red": (200, 40, 40), "green": (40, 180, 60), "blue": (40, 60, 200),
          "yellow": (210, 200, 50)}
PATCHES = {"red": (-1, -1), "green": (1, -1), "blue": (-1, 1), "yellow": (1, 1)}


def samples(ticks: int = SAMPLES, seed: int = 7) -> dict[str, np.ndarray]:
    """colour → int[ticks, 3] errors (reading − floor colour) of the robot on that patch."""
    regions = [{"color": list(SHADES[c]), "rect": [x - 0.9, y - 0.9, x + 0.9, y + 0.9]}
               for c, (x, y) in PATCHES.items()]
    sim = started({"simulation": {"ticks_per_second": 10, "seed": seed},
                   "arena": {"size": [4.0, 4.0]},
                   "floor": {"background": "white", "regions": regions, "resolution": 0.02},
                   "robots": [explicit("rvr", [[x, y, 0.0] for x, y in PATCHES.values()],
                                       type="rvr", sensors={"ground_color": True})]})
    rd = sim.readings("rvr")["ground_color"]
    out = np.empty((ticks, len(PATCHES), 3), dtype=np.int64)
    for t in range(ticks):
        out[t] = rd
        sim.step()
    return {c: out[:, k] - np.array(SHADES[c]) for k, c in enumerate(PATCHES)}


@validation("rvr-ground-noise")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    errs = samples()
    rows = []
    for c in COLOURS:
        e = errs[c].astype(float)
        mean, std = e.mean(axis=0), e.std(axis=0, ddof=1)
        inside = (np.abs(e) <= 5).mean(axis=0)
        rows.append(Row(f"{c}: mean error R, G, B", f"{NOISE_MEAN:g} ± {MEAN_TOL:.2f}",
                        ", ".join(f"{v:+.2f}" for v in mean),
                        bool(np.all(np.abs(mean - NOISE_MEAN) <= MEAN_TOL))))
        rows.append(Row(f"{c}: standard deviation R, G, B", f"{NOISE_STD:g} ± {STD_TOL:.2f}",
                        ", ".join(f"{v:.2f}" for v in std),
                        bool(np.all(np.abs(std - NOISE_STD) <= STD_TOL))))
        rows.append(Row(f"{c}: share within ±5 R, G, B", f"{INSIDE_P:.3f} ± {INSIDE_TOL:.3f}",
                        ", ".join(f"{v:.3f}" for v in inside),
                        bool(np.all(np.abs(inside - INSIDE_P) <= INSIDE_TOL))))
    fig, axes = subplots(1, 4, figsize=(13, 3.4), sharey=True)
    bins = np.arange(-20.5, 21.5, 1.0)
    xs = np.linspace(-20, 20, 200)
    pdf = np.exp(-0.5 * ((xs - NOISE_MEAN) / NOISE_STD) ** 2) / (NOISE_STD * math.sqrt(2 * math.pi))
    for ax, c in zip(axes, COLOURS):
        for ch, col in enumerate(("tab:red", "tab:green", "tab:blue")):
            ax.hist(errs[c][:, ch], bins=bins, density=True, histtype="step", color=col,
                    label="RGB"[ch])
        ax.plot(xs, pdf, "k--", lw=1, label="N(0, 5)")
        style_axes(ax, "reading − floor", "density" if c == "red" else "", c, legend=c == "red")
    png = save_plot(fig, out_dir / "rvr_ground_noise.png")
    notes = ("Reference side: 300 samples per colour, the four colours and N(0, 5) of §4.2.1 "
             "(Fig. 6), as literals here; tolerances are three standard errors for 300 samples. "
             "The floor shades are our choice (mid-tones: the 0–255 clamp would cut the noise "
             "of a saturated channel). The report's histograms themselves are not published as "
             "numbers; their recommended law is what is checked.")
    return Reproduction("rvr-ground-noise",
                        "RVR colour ground sensor noise, 300 samples × 4 colours (§4.2.1, Fig. 6)",
                        rows, [png], notes)
