"""E-Puck2 camera, paper §4.1.6 / Table 4 / Fig. 9: field of view of the blob camera.

The paper places robots with red LEDs at the borders of the simulated camera's view and a blue
light straight ahead (Fig. 9b); the border LEDs map to the minimum and maximum image columns and
the light to the centre (Fig. 9c). Table 4 (plug-in column) lists the border positions found,
depth x and full separation y: (263, 141) mm and (143, 77) mm, giving α = 2·atan(y / 2x) =
30.0° and 30.1°. Here: the same scene, one run per depth in one batch, must map the border LEDs
to columns 0 and 159 (±1 px) and the light to 79.5 (±1 px); then the detection border itself is
measured — the largest lateral offset still seen at each depth — and turned into α the way
Table 4 does.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.experiments.reproduce import (Reproduction, Row, pyplot, save_plot,
                                             validation)
from swarmstack.robots import epuck2
from swarmstack.sensors.camera import blobs

TABLE4 = ((0.263, 0.141, 30.0), (0.143, 0.077, 30.1))   # plug-in column: x, y (m), α (deg)
LIGHT_X = 0.6
RED = (255, 0, 0)
BLUE = (0, 0, 255)


def _scene(targets_per_run: list[list[tuple[float, float]]]):
    """Camera readings (runs, max_blobs, 5) of an observer at the origin facing +x, with target
    robots whose front red LED sits at camera-frame (x, y) (same count of targets per run)."""
    from swarmstack.experiments.simulation import Simulation

    cam = epuck2.CAMERA_POSITION_M
    n_t = len(targets_per_run[0])
    cfg = {"arena": {"size": [2.0, 2.0], "center": [0.3, 0.0]},
           "lights": [{"position": [LIGHT_X, 0.0, cam[2]], "intensity": 1.0,
                       "color": list(BLUE)}],
           "robots": [
               {"name": "observer", "placement": {"kind": "explicit", "poses": [[0, 0, 0]]},
                "sensors": {"camera": True}},
               {"name": "targets", "placement": {
                   "kind": "explicit", "poses": [[-0.5, -0.8 + 0.1 * k, 0] for k in range(n_t)]}}]}
    sim = Simulation.from_dict(cfg, seed=0, runs=len(targets_per_run))
    b = sim.world.bodies
    sl = sim.group("targets").slice
    pts = np.asarray(targets_per_run, dtype=np.float64).reshape(-1, 2)
    # facing the observer (yaw π): LED 1 (index 0, red) sits 3.7 cm in front of the centre
    b.x[sl.slice] = cam[0] + pts[:, 0] + epuck2.LED_RING_RADIUS_M
    b.y[sl.slice] = cam[1] + pts[:, 1]
    b.yaw[sl.slice] = math.pi
    sim.world.refresh_grid()
    sim.commands("targets")["leds"][:, 0] = RED
    sim.step()  # wheels idle: LEDs switch on, nothing moves
    return sim.readings("observer")["camera"]


def _border(x: float, sign: float, lo: float, hi: float, n: int = 201) -> float:
    """Largest lateral offset (m) in [lo, hi] at depth x at which a LED is still seen."""
    ys = np.linspace(lo, hi, n)
    cams = _scene([[(x, sign * y)] for y in ys])
    seen = np.array([any(rgb == RED for _, _, rgb in blobs(c)) for c in cams])
    return float(ys[seen].max()) if seen.any() else float("nan")


@validation("epuck2-camera")
def reproduce(out_dir: Path) -> Reproduction:
    scene = [[(x, y / 2), (x, -y / 2)] for x, y, _ in TABLE4]
    cams = _scene(scene)
    rows = [Row("horizontal field of view (model)", "α = 30° chosen",
                f"{epuck2.CAMERA_HFOV_DEG:g}°",
                epuck2.CAMERA_HFOV_DEG == 30.0)]
    found_all = []
    for (x, y, alpha), cam in zip(TABLE4, cams):
        found = blobs(cam)
        found_all.append(found)
        red = sorted(c for c, _, rgb in found if rgb == RED)
        blue = [c for c, _, rgb in found if rgb == BLUE]
        tag = f"x = {1000 * x:.0f} mm, y = ±{500 * y:.1f} mm"
        ok_red = len(red) == 2 and abs(red[0] - 0) <= 1 and abs(red[1] - 159) <= 1
        rows.append(Row(f"{tag}: red LED columns", "min / max (0 / 159)",
                        " / ".join(f"{c:.2f}" for c in red) or "not seen", ok_red))
        rows.append(Row(f"{tag}: blue light column", "centre (79.5)",
                        " / ".join(f"{c:.2f}" for c in blue) or "not seen",
                        len(blue) == 1 and abs(blue[0] - 79.5) <= 1))
        rows.append(Row(f"{tag}: α = 2·atan(y / 2x)", f"{alpha:.1f}°",
                        f"{math.degrees(2 * math.atan(y / (2 * x))):.1f}°",
                        abs(math.degrees(2 * math.atan(y / (2 * x))) - alpha) < 0.05))
    # the detection border measured in simulation, as the paper's sim column was found
    for x, y, alpha in TABLE4:
        left = _border(x, +1, 0.4 * y, 0.6 * y)
        right = _border(x, -1, 0.4 * y, 0.6 * y)
        a = math.degrees(math.atan(left / x) + math.atan(right / x))
        rows.append(Row(f"measured border at x = {1000 * x:.0f} mm: separation, α",
                        f"{1000 * y:.0f} mm, {alpha:.1f}°", f"{1000 * (left + right):.1f} mm, "
                        f"{a:.2f}°", abs(a - alpha) <= 0.25))

    plt = pyplot()

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6))
    for ax, (x, y, _), found in zip(axes, TABLE4, found_all):
        for c, r, rgb in found:
            ax.plot(c, r, "o", ms=9, color=np.array(rgb) / 255, mec="k")
            ax.annotate(f"({c:.1f}, {r:.1f})", (c, r), textcoords="offset points",
                        xytext=(4, 8), fontsize=7)
        ax.set_xlim(-5, 164)
        ax.set_ylim(124, -5)
        ax.axvline(0, color="grey", lw=0.6)
        ax.axvline(159, color="grey", lw=0.6)
        ax.set_title(f"LEDs at x = {1000 * x:.0f} mm, y = ±{500 * y:.1f} mm", fontsize=9)
        ax.set_xlabel("column (px)")
        ax.set_ylabel("row (px)")
    fig.suptitle("E-Puck2 camera: detected blobs (160×120 image)")
    png = save_plot(fig, out_dir / "epuck2_camera.png")
    notes = ("Table 4's plug-in column gives the positions of border objects and the resulting "
             "α; y is the full separation, so α = 30° is the full horizontal angle (half-angle "
             "15°). Our camera uses exactly 30°, so the border LEDs land on columns 0 and 159 "
             "(objects up to half a pixel outside the image still light the border pixel) and "
             "the measured border gives α ≈ 30.0–30.1°, as in the plug-in. The robot column of "
             "Table 4 (32.1°, 29.5°; mean 30.8°) is real-camera data that a 30° model is not "
             "meant to match exactly. Rows depend on the LED and camera heights (the plug-in "
             "sets no camera offset; ours sits 3 cm up) and are not compared.")
    return Reproduction("epuck2-camera", "Camera field of view (§4.1.6, Table 4, Fig. 9)", rows,
                        [png], notes)
