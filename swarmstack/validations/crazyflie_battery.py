"""Crazyflie battery, paper §3.2.2 / §4.3.1 / Alg. 1 / Fig. 9: simulated charge vs the polynomial.

Stolfi & Danoy, *An ARGoS plug-in for the Crazyflie drone* (arXiv 2401.16948). The paper fits
``P(t) = D + C·t + B·t² + A·t³`` to three drones hovering and flying, cut at the observed
maximum flight time Tmax = 427.21 s (Fig. 9a), then checks in simulation that the plug-in
follows the polynomial from initial charges of 25, 50, 75 and 100 % (Fig. 9b), at 10 ticks per
second (§4). The quick and the full run are the same (under a second).

Here the battery device runs tick by tick from the four start charges and is compared with the
paper's numbers, written below as literals (the reference side never reads the model's data
file), each row two-sided: the device's coefficients (those of Fig. 9(a) as the authors'
public plug-in defines them; the text names only the polynomial and Tmax) and Tmax; from each
start charge the gap to ``P(t0 + t)`` before the drop (``t0`` the point of the curve holding
the start charge: Fig. 9(b)'s check, the plug-in against its own polynomial, which says
nothing about the drones), the time to empty ``Tmax − t0`` and the last charge before the drop
(the battery empties once ``t* + dt`` passes Tmax); the exposed time left against ``Tmax − t``;
idle and moving robots on one curve (§4.3.1). The paper's MSE = 0.002114 is against the
drones' discharge data, which are not published: an informative row.

If the ``crazyflie`` robot type is registered with a ``battery`` device, two drones per start
charge carry it in a Simulation: all take off to 0.5 m, then one hovers and one flies circles,
and the drones that emptied must be back on the floor at the end (the flight model reads the
charge 0). Otherwise the device is driven directly on a minimal world of E-Puck2 robots (half
idle, half driving), which only provides the clock, and the notes say so.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from swarmstack.validations import Reproduction, Row, save_plot, style_axes, subplots, validation
from swarmstack.validations.sim_robots import explicit, started

# --- the paper's numbers (reference side) ------------------------------------------------------
A = -2.347383e-08            # §4.3.1 / Fig. 9(a): coefficient of t³ (1/s³)
B = 1.582833e-05             # … of t² (1/s²)
C = -4.506692e-03            # … of t (1/s)
D = 1.009061                 # … constant
COEFFICIENTS = (("D", 0, D), ("C", 1, C), ("B", 2, B), ("A", 3, A))   # the device's order
TMAX_S = 427.21              # §4.3.1: observed maximum flight time
PAPER_MSE = 0.002114         # §4.3.1: against the drones' data (not published)
START_CHARGES = (0.25, 0.50, 0.75, 1.00)   # §4.3.1 / Fig. 9(b)
TICKS_PER_S = 10             # §4: 10 ticks per second

# --- tolerances (two-sided) ----------------------------------------------------------------------
TMAX_TOL_S = 0.005           # Tmax is printed to 0.01 s
CHARGE_TOL = 1e-6            # Alg. 1 steps along P itself: only the root finding separates them
EMPTY_TOL_S = 1.0 / TICKS_PER_S + 1e-9     # one tick
TIME_LEFT_TOL_S = 1e-6

# --- the scene ---------------------------------------------------------------------------------
ROBOTS_PER_GROUP = 2         # one idle, one moving
MOVING_WHEELS_M_S = (0.15, 0.10)
HORIZON_S = TMAX_S + 5.0
HOVER_Z_M = 0.5              # drones: take off to this height …
TAKEOFF_TICKS = 30           # … for 3 s, then half hover, half fly circles
CIRCLE_SPEED_M_S = 0.3
CIRCLE_PERIOD_S = 8.0
DOWN_Z_M = 0.05              # an emptied drone is on the floor (its body's base at z ≈ 0)


def _p(t):
    t = np.asarray(t, dtype=np.float64)
    return D + t * (C + t * (B + t * A))


def _half_unit(x: float) -> float:
    """Half a unit in the 7th significant digit, the precision the coefficients are given to."""
    return 0.5 * 10.0 ** (np.floor(np.log10(abs(x))) - 6)


P_AT_TMAX = float(_p(TMAX_S))     # the charge just before the drop (≈ 0.1423)
# Alg. 1 empties the battery once t* + dt passes Tmax: the last charge lies within one tick of
# the curve before P(Tmax), i.e. within |P'(Tmax)|·dt of it
DROP_TOL = abs(C + TMAX_S * (2 * B + 3 * A * TMAX_S)) / TICKS_PER_S + 1e-9


def reference_start(q: float) -> float:
    """``t0`` with ``P(t0) = q`` on ``[0, Tmax]`` from the literal polynomial (bisection)."""
    if q >= D:
        return 0.0
    lo, hi = 0.0, TMAX_S
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _p(mid) > q:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def reference_curve(q0: float, t_s: np.ndarray) -> np.ndarray:
    """The paper's charge at times ``t_s`` after starting at ``q0``: ``P(t0 + t)``, 0 past Tmax."""
    tt = reference_start(q0) + np.asarray(t_s, dtype=np.float64)
    y = np.where(tt <= TMAX_S, np.maximum(_p(tt), 0.0), 0.0)
    return np.where(np.asarray(t_s) <= 0.0, q0, y)


def _group_name(q0: float) -> str:
    return f"start{int(round(100 * q0))}"


def _crazyflie_registered() -> bool:
    from swarmstack.robots import ROBOT_TYPES

    rt = ROBOT_TYPES.get("crazyflie")
    return rt is not None and "battery" in rt.devices


def _config(drones: bool) -> dict:
    """Two robots per start charge: drones of the crazyflie type carrying the battery, or
    E-Puck2 robots that only provide the clock."""
    groups = [explicit(_group_name(q0), [[-1.0 + 0.6 * k, -1.0 + 0.6 * j, 0.0]
                                         for j in range(ROBOTS_PER_GROUP)],
                       type="crazyflie", sensors={"battery": {"start_charge": q0}}) if drones else
              explicit(_group_name(q0), [[-1.5 + 1.0 * k, -1.5 + 0.5 * j, 0.0]
                                         for j in range(ROBOTS_PER_GROUP)])
              for k, q0 in enumerate(START_CHARGES)]
    return {"simulation": {"ticks_per_second": TICKS_PER_S},
            "arena": {"size": [4.0, 4.0] if drones else [5.0, 5.0]}, "robots": groups}


def _flights(sim):
    """Each tick's flight commands: every drone takes off to ``HOVER_Z_M``; then half of them
    hover and half fly circles."""
    from swarmstack.actuators import flight as f

    commands = [sim.commands(_group_name(q0)) for q0 in START_CHARGES]

    def command(tick: int) -> None:
        for c in commands:
            if tick == 0:
                c["mode"][:] = f.TAKEOFF
                c["target"][:, 2] = HOVER_Z_M
            elif tick < TAKEOFF_TICKS:
                c["mode"][:] = f.HOLD
            else:
                c["mode"][0::2] = f.HOLD
                c["mode"][1::2] = f.CMD_VELOCITY
                a = 2.0 * np.pi * (tick - TAKEOFF_TICKS) / (CIRCLE_PERIOD_S * TICKS_PER_S)
                c["velocity"][1::2] = (-CIRCLE_SPEED_M_S * np.sin(a),
                                       CIRCLE_SPEED_M_S * np.cos(a), 0.0, 0.0)
    return command


def _time_left(group, charge: np.ndarray):
    """The time left now: the battery device's state array or, if the type keeps none, the
    shipped model's time left for the charge."""
    state = group.states.get("battery")
    if isinstance(state, np.ndarray) and state.shape == charge.shape:
        return lambda: state
    from swarmstack.power.crazyflie import time_left

    model = group.devices["battery"].model
    return lambda: time_left(charge, model)


def discharge_run(horizon_s: float = HORIZON_S) -> dict:
    """Discharge batteries from every start charge; per start charge the charge and time left at
    every tick float[ticks + 1, robots], plus which world ran ("drones" or "minimal")."""
    from swarmstack.power.crazyflie import battery_device
    from swarmstack.robots.options import CrazyflieBatteryOptions

    drones = _crazyflie_registered()
    sim = started(_config(drones), seed=0)
    groups = {q0: sim.group(_group_name(q0)) for q0 in START_CHARGES}
    charge, left, drive = {}, {}, []
    for q0, g in groups.items():
        if drones:
            charge[q0] = sim.readings(_group_name(q0))["battery"]
            left[q0] = _time_left(g, charge[q0])
        else:   # the device driven directly, the simulation only its clock
            dev = battery_device(CrazyflieBatteryOptions(start_charge=q0))
            charge[q0], state = dev.allocate(g.slice.n), dev.make_state(g.slice.n)
            left[q0] = lambda state=state: state
            drive.append(dev.plan(sim.world, g.slice, None, charge[q0], state))
            drive[-1]()   # tick 0
            sim.commands(g.slice.name)["wheels"][1::2] = MOVING_WHEELS_M_S
    fly = _flights(sim) if drones else None
    x0, y0 = sim.world.bodies.x.copy(), sim.world.bodies.y.copy()
    top_z = np.zeros_like(x0)
    ticks = int(round(horizon_s * TICKS_PER_S))
    q_hist = {q0: [charge[q0].copy()] for q0 in START_CHARGES}
    l_hist = {q0: [np.asarray(left[q0](), dtype=np.float64).copy()] for q0 in START_CHARGES}
    for tick in range(ticks):
        if fly is not None:
            fly(tick)
        sim.step()
        if fly is not None:
            np.maximum(top_z, sim.world.bodies.z, out=top_z)
        for update in drive:
            update()
        for q0 in START_CHARGES:
            q_hist[q0].append(charge[q0].copy())
            l_hist[q0].append(np.asarray(left[q0](), dtype=np.float64).copy())
    b = sim.world.bodies
    robots = {q0: np.arange(g.slice.start, g.slice.stop) for q0, g in groups.items()}
    moving = np.concatenate([robots[q0][1::2] for q0 in START_CHARGES])
    moved = float(np.hypot(b.x[moving] - x0[moving], b.y[moving] - y0[moving]).min())
    # drones emptied well before the end (all but the fullest start): still in the air?
    early = np.concatenate([robots[q0] for q0 in START_CHARGES[:-1]])
    return {"t": np.arange(ticks + 1) / TICKS_PER_S, "world": "drones" if drones else "minimal",
            "moved_m": moved, "lowest_top_z_m": float(top_z.min()) if drones else float("nan"),
            "highest_empty_z_m": float(b.z[early].max()) if drones else float("nan"),
            "charge": {q: np.array(v) for q, v in q_hist.items()},
            "time_left": {q: np.array(v) for q, v in l_hist.items()}}


def _plot(path: Path, run: dict, empty: dict) -> None:
    fig, (ax, ax2) = subplots(1, 2, figsize=(12, 4.6))
    t = run["t"]
    tt = np.linspace(0.0, TMAX_S, 500)
    ax.plot(tt, _p(tt), "k--", lw=1.0, label="P(t), Fig. 9(a) (paper's coefficients)")
    for q0 in START_CHARGES:
        ax.plot(t, run["charge"][q0][:, 0], lw=1.4,
                label=f"simulated from {100 * q0:.0f} % (empty at {empty[q0]:.1f} s)")
    ax.set_ylim(-0.02, 1.05)
    style_axes(ax, "time (s)", "charge", "Crazyflie battery at 10 ticks/s (cf. Fig. 9b)")
    for q0 in START_CHARGES:
        ax2.plot(t, run["time_left"][q0][:, 0], lw=1.2, label=f"from {100 * q0:.0f} %")
    style_axes(ax2, "time (s)", "time left, Tmax − t (s)", "Exposed time left")
    save_plot(fig, path)


@validation("crazyflie-battery")
def reproduce(out_dir: Path, quick: bool = False) -> Reproduction:
    from swarmstack.power.crazyflie import battery_device
    from swarmstack.robots.options import CrazyflieBatteryOptions

    t0 = time.perf_counter()
    rows = []
    dev = battery_device(CrazyflieBatteryOptions())     # as the shipped device reads them
    for (name, power, paper), ours in zip(COEFFICIENTS, dev.coefficients):
        term = ("the constant", "t", "t²", "t³")[power]
        rows.append(Row.within(f"{name}, coefficient of {term} (Fig. 9a; the authors' plug-in "
                               "source)", paper, ours, _half_unit(paper),
                               ("", "1/s", "1/s²", "1/s³")[power], digits=7))
    rows.append(Row.within("maximum flight time Tmax (§4.3.1)", TMAX_S, dev.tmax_s, TMAX_TOL_S,
                           "s", digits=5))

    run = discharge_run()
    t = run["t"]
    gap, empty, last, worst_left, spread = {}, {}, {}, 0.0, 0.0
    for q0 in START_CHARGES:
        q = run["charge"][q0]
        ref = reference_curve(q0, t)
        zero = np.flatnonzero(q[:, 0] <= 0.0)
        end = int(zero[0]) if zero.size else len(t) - 1
        # on the curve: every tick before the drop (the drop is judged by the rows below)
        gap[q0] = float(np.abs(q[:end] - ref[:end, None]).max()) if end > 0 else float("nan")
        empty[q0] = float(t[end]) if zero.size else float("nan")
        last[q0] = float(q[end - 1, 0]) if end > 0 else float("nan")
        spread = max(spread, float(np.abs(q - q[:, :1]).max()))
        t_on_curve = reference_start(q0) + t[1:end]
        left_gap = np.abs(run["time_left"][q0][1:end] - (TMAX_S - t_on_curve)[:, None])
        worst_left = max(worst_left, float(left_gap.max()) if left_gap.size else 0.0)
    for q0 in START_CHARGES:
        rows.append(Row.within(f"from {100 * q0:.0f} %: max |simulated charge − P(t0 + t)| "
                               "before the drop (Fig. 9b, Alg. 1)", 0.0, gap[q0], CHARGE_TOL,
                               digits=2))
    want_empty = {q0: TMAX_S - reference_start(q0) for q0 in START_CHARGES}
    for q0 in START_CHARGES:
        rows.append(Row.within(f"from {100 * q0:.0f} %: time to empty, Tmax − t0 with "
                               "P(t0) = start charge (§4.3.1, Fig. 9b)", want_empty[q0],
                               empty[q0], EMPTY_TOL_S, "s", digits=5))
    far = max(START_CHARGES, key=lambda q0: abs(last[q0] - P_AT_TMAX)
              if np.isfinite(last[q0]) else np.inf)
    rows.append(Row.within("last charge before the drop, P(Tmax) (Fig. 9a); judged on the "
                           f"farthest of 25/50/75/100 % ({100 * far:.0f} %)", P_AT_TMAX,
                           last[far], DROP_TOL, digits=4))
    rows.append(Row.within("exposed time left − (Tmax − t), worst tick (Alg. 1)", 0.0,
                           worst_left, TIME_LEFT_TOL_S, "s", digits=2))
    rose = ("" if np.isnan(run["lowest_top_z_m"]) else
            f"; every drone rose to ≥ {run['lowest_top_z_m']:.2f} m")
    rows.append(Row.within("idle vs moving: max |charge difference| (§4.3.1: one curve for "
                           "hover and flight)", 0.0, spread, 0.0, digits=2,
                           note=f" (moving robots ended ≥ {run['moved_m']:.2f} m from their "
                                f"start{rose})"))

    if run["world"] == "drones":
        z = run["highest_empty_z_m"]
        rows.append(Row.within("height of the highest emptied drone (25/50/75 %) at the end: "
                               "on the floor (§4.3.1: the drop is when it can no longer fly)",
                               0.0, z, DOWN_Z_M, "m"))
    rows.append(Row(f"MSE of the cubic against the three drones' discharge data (§4.3.1)",
                    f"{PAPER_MSE}", "not reproducible: the drones' data are not published",
                    False, PAPER_MSE, None, None, "", informative=True))

    csv_path = out_dir / "times_to_empty.csv"
    with csv_path.open("w") as f:
        f.write("start_charge,time_to_empty_s,reference_s,max_gap_to_polynomial\n")
        for q0 in START_CHARGES:
            f.write(f"{q0},{empty[q0]:.1f},{want_empty[q0]:.3f},{gap[q0]:.3e}\n")
    png = out_dir / "crazyflie_battery.png"
    _plot(png, run, empty)
    elapsed = time.perf_counter() - t0
    how = ("drones of the registered crazyflie type carried the battery in a Simulation "
           "(all took off; half hovered, half flew circles at 0.3 m/s)"
           if run["world"] == "drones" else
           "the crazyflie robot type is not registered, so the battery device was driven "
           "directly on a minimal world of E-Puck2 robots (half idle, half driving) built "
           "with Simulation.from_dict, which provides only the clock (tick, dt)")
    notes = (
        "Reference side (literals here, §4.3.1 / Fig. 9a): A = −2.347383e−08, "
        "B = 1.582833e−05, C = −4.506692e−03, D = 1.009061, Tmax = 427.21 s, start charges "
        "25/50/75/100 % (Fig. 9b), 10 ticks/s (§4); the coefficients as the authors' "
        "public plug-in defines them (Fig. 9a's values; the text does not print them). "
        "Simulated charge vs P is the plug-in against its own polynomial, as Fig. 9(b) "
        f"shows it; the paper's MSE = {PAPER_MSE} is against the drones' measured discharge "
        "data, which are not published, so it is not reproduced. "
        "Alg. 1 as printed tests t* ≥ Tmax before stepping; the public plug-in (and this "
        "model) empties once t* + dt passes Tmax, at most one tick earlier.\n"
        f"World: {how}. Simulated {t[-1]:.1f} s; run time {elapsed:.1f} s.")
    return Reproduction("crazyflie-battery",
                        "Crazyflie battery: simulated discharge vs the paper's cubic (§4.3.1, "
                        "Fig. 9, Alg. 1)", rows, [csv_path, png], notes)
