"""RVR velocity, accelerometer and gyroscope on a scripted path (Mercator report §4.2.2–4.2.4).

An RVR, booted with a heading of 40°, drives a scripted sequence of tread speeds (straight,
speed steps, arcs both ways, a turn on the spot, a stop) at 10 ticks per second, the ARGoS
tick the report's simulator used. At every tick the readings are compared with the values the
report's equations give for the path actually driven (velocity Eqs. 3–5, accelerometer
Eqs. 6–9, gyroscope Eqs. 10–11: :func:`analytic`), computed here from the commanded tread
speeds and the body's logged pose.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, save_plot, style_axes, subplots, validation
from swarmstack.validations.sim_robots import explicit, started

# --- the report's numbers (reference side) -----------------------------------------------------
G_M_S2 = 9.81            # §4.2.3, Eq. 9
DT_S = 0.1               # the ARGoS physics tick of the report's simulations (10 ticks/s)
TOL = 1e-9               # the equations are exact: floating-point agreement

# --- the scripted path (our choice): (seconds, v_left, v_right) m/s ----------------------------
SCRIPT = ((1.0, 0.0, 0.0), (2.0, 0.2, 0.2), (1.5, 0.4, 0.4), (2.0, 0.2, 0.35),
          (2.0, 0.35, 0.1), (1.5, -0.15, 0.15), (1.0, 0.3, -0.1), (1.0, 0.0, 0.0))
BOOT_YAW_RAD = math.radians(40.0)


def drive() -> dict:
    sim = started({"simulation": {"ticks_per_second": 1.0 / DT_S, "seed": 3},
                   "arena": {"size": [20.0, 20.0]},
                   "robots": [explicit("rvr", [[0.0, 0.0, BOOT_YAW_RAD]], type="rvr",
                                       sensors={"velocity": True, "accelerometer": True,
                                                "gyroscope": True})]})
    rd = sim.readings("rvr")
    wheels = sim.commands("rvr")["wheels"]
    b = sim.world.bodies
    cmd, yaw, vel, acc, gyr = [], [float(b.yaw[0])], [], [], []
    for seconds, vl, vr in SCRIPT:
        for _ in range(int(round(seconds / DT_S))):
            wheels[0] = (vl, vr)
            sim.step()
            cmd.append((vl, vr))
            yaw.append(float(b.yaw[0]))
            vel.append(rd["velocity"][0].copy())
            acc.append(rd["accelerometer"][0].copy())
            gyr.append(rd["gyroscope"][0].copy())
    return {"cmd": np.array(cmd), "yaw": np.array(yaw), "velocity": np.array(vel),
            "accelerometer": np.array(acc), "gyroscope": np.array(gyr)}


def analytic(cmd: np.ndarray, yaw: np.ndarray) -> dict:
    """The report's equations on the driven path (``yaw`` has the boot heading first)."""
    heading = np.unwrap(yaw)
    v = 0.5 * (cmd[:, 0] + cmd[:, 1])                       # Eqs. 3, 6
    alpha = heading[1:] - heading[0]                        # Eqs. 4, 7: relative to boot
    vel = np.stack([v * np.cos(alpha), v * np.sin(alpha)], axis=1)   # Eqs. 5, 8
    prev = np.vstack([np.zeros((1, 2)), vel[:-1]])          # at rest before the first tick
    acc = (vel - prev) / (G_M_S2 * DT_S)                    # Eq. 9
    rate = np.diff(heading) / DT_S                          # Eqs. 10–11 about z
    gyr = np.stack([np.zeros_like(rate), np.zeros_like(rate), rate], axis=1)
    return {"velocity": vel, "accelerometer": np.column_stack([acc, np.zeros(len(acc))]),
            "gyroscope": gyr}


@validation("rvr-imu")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    run = drive()
    want = analytic(run["cmd"], run["yaw"])
    rows = []
    for name, eq, unit in (("velocity", "Eqs. 3–5", "m/s"), ("accelerometer", "Eqs. 6–9", "g"),
                           ("gyroscope", "Eqs. 10–11", "rad/s")):
        err = np.abs(run[name] - want[name]).max()
        rows.append(Row(f"{name}: largest |reading − {eq}| over {len(run['cmd'])} ticks ({unit})",
                        f"0 (± {TOL:g})", f"{err:.2e}", bool(err <= TOL)))
    start = int(round(SCRIPT[0][0] / DT_S))      # the first tick the treads turn
    first = run["accelerometer"][start]
    rows.append(Row("accelerometer at the start, 0 → 0.2 m/s in one tick (g, boot x, y)",
                    f"{0.2 / (G_M_S2 * DT_S):.4f}, 0 (0.2 / (9.81 · 0.1))",
                    f"{first[0]:.4f}, {first[1]:.1e}",
                    abs(first[0] - 0.2 / (G_M_S2 * DT_S)) <= TOL and abs(first[1]) <= TOL))
    fig, axes = subplots(3, 1, figsize=(8, 7), sharex=True)
    t = DT_S * np.arange(1, len(run["cmd"]) + 1)
    for ax, name, labels in ((axes[0], "velocity", "xy"), (axes[1], "accelerometer", "xy"),
                             (axes[2], "gyroscope", "z")):
        for k, lab in enumerate(labels):
            col = k if lab != "z" else 2
            ax.plot(t, run[name][:, col], lw=1.6, label=f"{name} {lab}")
            ax.plot(t, want[name][:, col], "k--", lw=0.8, label=f"equations {lab}")
        style_axes(ax, "time (s)" if name == "gyroscope" else "", name, "")
    axes[0].set_title("RVR inertial readings on a scripted path (dashed: the report's equations)")
    png = save_plot(fig, out_dir / "rvr_imu.png")
    notes = ("Reference side: Eqs. 3–11 of §4.2.2–4.2.4 with G = 9.81 m/s² and the 0.1 s tick, "
             "written here and evaluated on the commanded tread speeds and the logged pose, "
             "never on the sensors' code. The path is our choice; the report publishes no "
             "inertial traces, so its equations are the reference.")
    return Reproduction("rvr-imu", "RVR velocity, accelerometer and gyroscope (§4.2.2–4.2.4)",
                        rows, [png], notes)
