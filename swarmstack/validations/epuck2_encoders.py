"""E-Puck2 simulated encoders, paper §3.5 / Table 1 / §4.1.5 / Fig. 8.

One batch at 10 ticks per second (§4), one robot per run with its wheels held at a constant
command: forward and backward at six speeds, spinning on the spot both ways (one wheel forward,
the other backward, as the battery robots of §4.1.7 move), an arc, a wheel turned 0.18° per
tick forwards and backwards (§3.5's example of partial steps), and a 30 s spin at 15 cm/s that
runs the counters past the 16-bit register. Then Fig. 8's scenario: the ToF runs of
``epuck2-tof`` with a controller that stops at a ToF reading of 40 mm.

Reference side, literals of the paper below: 1000 steps per wheel revolution (0.36° per step),
partial steps kept (two 0.18° turns make one step, after the second), the signed 16-bit range
−32768…32767 (§3.5, Table 1). The wheel size and wheel spacing are not in the paper; they are the
plug-in's (the authors' public code), as listed in ``robot-models.md`` §1.1. Every tick, each
counter must equal ``1000 · (wheel travel) / (π · 41 mm)`` wrapped to 16 bits, within one step,
for the commanded speeds; and the counters must agree with the motion the simulator produced
(distance driven, angle turned with the 53 mm wheel spacing).

Every row is two-sided, ``|ours − paper| ≤ tolerance`` (the tolerances are the constants':
counters are whole steps, none where §3.5 gives the exact sequence of partial steps); the
register range −32768…32767 is carried as its centre ± half its width.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, pyplot, save_plot, style_axes, validation
from swarmstack.validations.epuck2_tof import drive_scenario
from swarmstack.validations.sim_robots import explicit, started

# --- reference side ------------------------------------------------------------------------------
STEPS_PER_REV = 1000          # §3.5: precision 0.36° = 1000 steps per wheel revolution
REGISTER_MIN, REGISTER_MAX = -32768, 32767   # §3.5, Table 1: 16-bit registers
HALF_STEP_DEG = 0.18          # §3.5: two rotations of 0.18° → 1 step, after the second only
TICKS_PER_S = 10              # §4
# not in the paper: the plug-in's wheel and axle (robot-models.md §1.1, from the public code)
WHEEL_DIAMETER_M = 0.041
WHEEL_SPACING_M = 0.053
STEPS_PER_M = STEPS_PER_REV / (math.pi * WHEEL_DIAMETER_M)       # 7763.66

# --- tolerances ------------------------------------------------------------------------------
STEP_TOL = 1                  # the counters are whole steps
TURN_REL_TOL = 0.005          # angle turned from the counters vs the simulated heading

# --- the runs (left, right wheel speed in m/s; our choice: the paper lists no speeds) ---------
SPEEDS_M_S = (0.025, 0.05, 0.075, 0.10, 0.125, 0.15)
HALF_STEP_M_S = HALF_STEP_DEG / 360.0 * math.pi * WHEEL_DIAMETER_M * TICKS_PER_S
DURATION_S = 30.0
QUICK_DURATION_S = 5.0
STOP_AT_MM = 40


def runs(quick: bool) -> list[tuple[str, float, float]]:
    """(label, left, right) wheel commands of every run."""
    speeds = SPEEDS_M_S[::3] if quick else SPEEDS_M_S
    out = [(f"forward {100 * v:g} cm/s", v, v) for v in speeds]
    out += [(f"backward {100 * v:g} cm/s", -v, -v) for v in speeds]
    out += [("spin clockwise 5 cm/s", 0.05, -0.05), ("spin anticlockwise 5 cm/s", -0.05, 0.05),
            ("arc 5 / 10 cm/s", 0.05, 0.10),
            ("0.18° per tick forwards", HALF_STEP_M_S, HALF_STEP_M_S),
            ("0.18° per tick backwards", -HALF_STEP_M_S, -HALF_STEP_M_S)]
    if not quick:
        out.append(("spin 15 cm/s, 30 s (wraps)", -0.15, 0.15))
    return out


def wrap16(steps: np.ndarray) -> np.ndarray:
    """A signed 16-bit register holding ``steps`` (whole steps)."""
    return (np.asarray(steps, dtype=np.int64) - REGISTER_MIN) % 65536 + REGISTER_MIN


def unwrap16(counters: np.ndarray) -> np.ndarray:
    """Counter readings int[ticks, …] followed through register wrap-arounds (each tick moves a
    counter by far less than half the register)."""
    c = np.asarray(counters, dtype=np.int64)
    step = (np.diff(c, axis=0) - REGISTER_MIN) % 65536 + REGISTER_MIN
    return np.concatenate([c[:1], c[:1] + np.cumsum(step, axis=0)])


def expected_steps(wheel_m_s: np.ndarray, t_s: np.ndarray) -> np.ndarray:
    """Counter values int[ticks, runs, 2] from the reference: whole steps of the wheel travel,
    partial steps kept (floor of the running total), wrapped to 16 bits."""
    raw = STEPS_PER_M * wheel_m_s[None, :, :] * t_s[:, None, None]
    return wrap16(np.floor(raw + 1e-9))


def spin_scenario(cmds: list[tuple[str, float, float]], seconds: float) -> dict:
    n = len(cmds)
    sim = started({"simulation": {"ticks_per_second": TICKS_PER_S},
                   "arena": {"size": [12.0, 12.0]},
                   "robots": [explicit("epuck", [[0.0, 0.0, 0.0]], sensors={"encoders": True})]},
                  seed=0, runs=n)
    wheels = np.array([[left, right] for _, left, right in cmds])
    sim.commands("epuck")["wheels"][:] = wheels
    ticks = int(round(seconds * TICKS_PER_S))
    b = sim.world.bodies
    enc = np.empty((ticks + 1, n, 2), dtype=np.int64)
    pose = np.empty((ticks + 1, n, 3))
    for t in range(ticks + 1):
        enc[t] = sim.readings("epuck")["encoders"]
        pose[t] = np.stack([b.x, b.y, b.yaw], axis=1)
        if t < ticks:
            sim.step()
    return {"t": np.arange(ticks + 1) / TICKS_PER_S, "encoders": enc, "pose": pose,
            "wheels": wheels}


def _fmt(a) -> str:
    return " / ".join(str(int(v)) for v in a)


def _row(quantity: str, paper: str, ours: str, paper_value: float, ours_value: float,
         tolerance: float, unit: str = "", also: bool = True) -> Row:
    """A two-sided numeric row with its own texts; ``also``: its other conditions (signs,
    order), which must hold as well."""
    return Row.within(quantity, paper_value, ours_value, tolerance, unit, paper=paper,
                      ours=ours, also=also)


@validation("epuck2-encoders")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    cmds = runs(quick)
    seconds = QUICK_DURATION_S if quick else DURATION_S
    data = spin_scenario(cmds, seconds)
    t, enc, pose, wheels = data["t"], data["encoders"], data["pose"], data["wheels"]
    want = expected_steps(wheels, t)
    err = np.abs(enc - want)
    err = np.minimum(err, 65536 - err)              # a step across the wrap is still one step
    rows = []
    label = {name: k for k, (name, _, _) in enumerate(cmds)}
    for k, (name, left, right) in enumerate(cmds):
        if name.startswith("0.18°"):
            continue
        rows.append(_row(f"{name}: max |counter − reference| over {seconds:g} s",
                         f"0 (± {STEP_TOL} step; final {_fmt(want[-1, k])})",
                         f"{int(err[:, k].max())} (final {_fmt(enc[-1, k])})",
                         0, int(err[:, k].max()), STEP_TOL, "step"))

    # agreement with the motion the simulator produced (counters followed through wraps)
    x, y, yaw = (pose[..., i] for i in range(3))
    total = unwrap16(enc)[-1]
    moved = np.hypot(x[-1] - x[0], y[-1] - y[0])
    for sign, word in ((1, "forward"), (-1, "backward")):
        ks = [label[n] for n, l, r in cmds if n.startswith(word)]
        gap = [abs(sign * total[k].mean() - STEPS_PER_M * moved[k]) for k in ks]
        signs = all(np.all(np.sign(total[k]) == sign) for k in ks)
        rows.append(_row(f"{word}: mean counter vs distance driven (steps)",
                         f"{'+' if sign > 0 else '−'}{STEPS_PER_M:.2f} per metre: |Δ| 0 "
                         f"(± {STEP_TOL})",
                         f"max |Δ| {max(gap):.2f}{'' if signs else ' (wrong sign)'}",
                         0, max(gap), STEP_TOL, "step", signs))
    turning = [k for k, (n, _, _) in enumerate(cmds) if n.startswith(("spin", "arc"))]
    turn_err = []
    for k in turning:
        turned = np.unwrap(yaw[:, k])[-1] - yaw[0, k]
        from_counters = int(total[k, 1] - total[k, 0]) / STEPS_PER_M / WHEEL_SPACING_M
        turn_err.append(abs(from_counters / turned - 1))
    rows.append(_row("turning: angle from the counters vs the simulated heading",
                     f"(right − left) / {STEPS_PER_M:.2f} / 53 mm: relative error 0 "
                     f"(± {100 * TURN_REL_TOL:.1f} %)",
                     f"max {100 * max(turn_err):.3f} %", 0, max(turn_err), TURN_REL_TOL))
    cw, ccw = label["spin clockwise 5 cm/s"], label["spin anticlockwise 5 cm/s"]
    rows.append(_row("spinning: left and right counters (final)",
                     "equal and opposite: left + right = 0 (± 1); clockwise +/−, "
                     "anticlockwise −/+",
                     f"clockwise {_fmt(enc[-1, cw])}, anticlockwise {_fmt(enc[-1, ccw])}",
                     0, max(abs(int(enc[-1, cw].sum())), abs(int(enc[-1, ccw].sum()))),
                     STEP_TOL, "step",
                     enc[-1, cw, 0] > 0 > enc[-1, cw, 1] and enc[-1, ccw, 0] < 0 < enc[-1, ccw, 1]))

    fwd, bwd = label["0.18° per tick forwards"], label["0.18° per tick backwards"]
    seq = enc[1:5, fwd, 0]
    rows.append(_row("0.18° per tick forwards: counter after ticks 1–4",
                     "0, 1, 1, 2 (§3.5: one step after the second 0.18°, none after the "
                     "first), exactly; judged on the counter after tick 4",
                     ", ".join(map(str, seq)), 2, int(seq[-1]), 0, "step",
                     list(seq) == [0, 1, 1, 2]))
    n_half = int(round(seconds * TICKS_PER_S))
    rows.append(_row(f"0.18° per tick: counter after {n_half} ticks, forwards / backwards",
                     f"{n_half // 2} / −{n_half // 2} (partial steps add up), exactly; judged "
                     "on forwards",
                     f"{int(enc[-1, fwd, 0])} / {int(enc[-1, bwd, 0])} (backwards after tick 2: "
                     f"{int(enc[2, bwd, 0])})", n_half // 2, int(enc[-1, fwd, 0]), 0, "step",
                     int(enc[-1, bwd, 0]) == -(n_half // 2) and int(enc[2, bwd, 0]) == -1))
    lo, hi = int(enc.min()), int(enc.max())
    if not quick:
        wk = label["spin 15 cm/s, 30 s (wraps)"]
        raw = np.floor(STEPS_PER_M * wheels[wk] * seconds + 1e-9).astype(np.int64)
        rows.append(_row("30 s spin at 15 cm/s: counters past the 16-bit range",
                         f"wrap: raw {_fmt(raw)} → {_fmt(wrap16(raw))} (§3.5, Table 1), "
                         f"± {STEP_TOL}", _fmt(enc[-1, wk]), 0,
                         int(np.abs(enc[-1, wk] - wrap16(raw)).max()), STEP_TOL, "step"))
    mid, half = (REGISTER_MIN + REGISTER_MAX) / 2, (REGISTER_MAX - REGISTER_MIN) / 2
    rows.append(_row("every counter value", f"{REGISTER_MIN} … {REGISTER_MAX} (Table 1)",
                     f"{lo} … {hi}", mid, max(lo, hi, key=lambda v: abs(v - mid)), half,
                     "step"))

    # Fig. 8: the ToF scenario, stopping 40 mm before the obstacle
    fig8 = drive_scenario(stop_at_mm=STOP_AT_MM,
                          speeds=SPEEDS_M_S[-2:] if quick else SPEEDS_M_S,
                          seconds=6.0 if quick else 12.0)
    e8, x8, v8 = fig8["encoders"], fig8["x"], fig8["speeds"]
    d8 = x8 - x8[0]
    gap8 = float(np.max(np.abs(e8 - STEPS_PER_M * d8[..., None])))
    frozen = []
    for k in range(v8.size):
        moving = np.nonzero(np.diff(x8[:, k]) > 0)[0]
        last = moving[-1] + 1 if moving.size else 0
        frozen.append(bool(np.all(e8[last:, k] == e8[last, k])) and last < x8.shape[0] - 1)
    rows.append(_row("Fig. 8 scenario (stop at ToF ≤ 40 mm): counters vs distance driven",
                     f"{STEPS_PER_M:.2f} steps/m: |Δ| 0 (± {STEP_TOL} step); counting stops "
                     "with the robot", f"max |Δ| {gap8:.2f}; "
                     + ", ".join(f"{int(e8[-1, k, 0])} steps over {100 * d8[-1, k]:.2f} cm"
                                 for k in range(v8.size))
                     + ("" if all(frozen) else " (still counting)"),
                     0, gap8, STEP_TOL, "step", all(frozen)))

    plt = pyplot()
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(12, 4.8))
    # Fig. 8 against time: one line per speed (against distance they would all coincide),
    # each with its reference: steps/m × distance driven, dashed on top
    t8 = fig8["t"]
    colours = plt.cm.viridis(np.linspace(0.0, 0.85, v8.size))
    for k, v in enumerate(v8):
        ax.plot(t8, e8[:, k, 0], lw=2.2, color=colours[k], label=f"{100 * v:.1f} cm/s")
        ax.plot(t8, STEPS_PER_M * d8[:, k], "k--", lw=0.8,
                label=f"{STEPS_PER_M:.2f} steps/m × distance" if k == 0 else None)
    style_axes(ax, "time (s)", "encoder steps (left = right)",
               "Fig. 8: drive until ToF ≤ 40 mm")
    # the other runs: left wheel solid, right wheel dashed, one colour per run
    shown = [(k, name) for k, (name, _, _) in enumerate(cmds)
             if name.startswith(("spin", "backward", "arc"))]
    colours = [plt.cm.tab10(c % 10) for c in range(len(shown))]
    for c, (k, name) in enumerate(shown):
        ax2.plot(t, enc[:, k, 0], lw=1.4, color=colours[c], label=name)
        ax2.plot(t, enc[:, k, 1], lw=1.4, ls="--", color=colours[c])
    style_axes(ax2, "time (s)", "counter (steps)", "Backwards, spins, arc (left solid, right dashed)",
               legend={"fontsize": 6.5, "ncol": 1, "loc": "center left",
                       "bbox_to_anchor": (1.01, 0.5)})
    png = save_plot(fig, out_dir / "epuck2_encoders.png")
    notes = ("Reference side: 1000 steps per revolution, partial steps kept and the 16-bit "
             "range (§3.5, Table 1), written as literals here; the wheel diameter (41 mm) and "
             "spacing (53 mm) are not in the paper and come from the plug-in's public code "
             "(robot-models.md §1.1). The paper compares Fig. 8 with a real robot graphically, "
             "without numbers or a speed list (2.5–15 cm/s here are our choice). Backwards "
             "the counter is the floor of the running total, so one 0.18° step back already "
             "reads −1; the paper's example covers forwards only. Real-robot wheel slip and "
             "Wi-Fi sampling jitter are not modelled (noise off)."
             + (" Quick run: two speeds, 5 s, no wrap-around run." if quick else ""))
    return Reproduction("epuck2-encoders",
                        "Encoder steps: forwards, backwards, turning (§3.5, §4.1.5, Fig. 8)",
                        rows, [png], notes)
