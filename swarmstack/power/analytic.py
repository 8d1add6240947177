"""Closed-form discharge curves at a constant speed, autonomy per speed, and Cardano's root.

These are the models "on paper" (continuous time, no ticks), used to validate the tick-by-tick
kernels: the E-Puck2 paper's Table 5 compares exactly these two (analytic vs in-simulator).
"""

from __future__ import annotations

import numpy as np

from swarmstack.power.battery import BatteryModel
from swarmstack.power.kernels import cubic_root


def _row(model: BatteryModel, speed_cm_s: int) -> int:
    s = int(speed_cm_s)
    if s != speed_cm_s or not 0 <= s <= model.max_speed_cm_s:
        raise ValueError(f"speed_cm_s {speed_cm_s!r}; expected an integer in [0, {model.max_speed_cm_s:g}]")
    return s


def _start(model: BatteryModel, start_charge: float | None) -> float:
    return model.start_charge if start_charge is None else float(start_charge)


def start_offset_s(model: BatteryModel, speed_cm_s: int, start_charge: float | None = None) -> float:
    """Where on the curve a battery of ``start_charge`` starts (s since full on that curve).

    Zero for the straight-line models. For the cubic it is ``t*`` with ``P_s(t*) = q0``, clamped at
    0 — a full battery (1.0) sits above ``P_s(0)`` (fit offset) and so starts at ``t = 0``.
    """
    s = _row(model, speed_cm_s)
    q0 = _start(model, start_charge)
    if model.kind == "cubic":
        c = model.table.coeffs[s]
        return float(cubic_root(c[0], c[1], c[2], c[3], model.table.tmax_s[s], q0))
    if model.kind == "approximated":
        t = model.table
        return float(_segment_time_to_empty(t, s, 1.0) - _segment_time_to_empty(t, s, q0))
    return 0.0


def curve(model: BatteryModel, speed_cm_s: int, t_s, start_charge: float | None = None) -> np.ndarray:
    """Charge at times ``t_s`` (s, ≥ 0) for a robot kept at ``speed_cm_s`` from ``start_charge``.

    simple: ``q0 + m·t`` (m static at 0 cm/s, moving otherwise); linear: ``q0 + L[s]·t``; cubic:
    ``P_s(t0 + t)`` until ``t0 + t`` reaches ``Tmax_s``, then 0; approximated: the segments from
    ``q0`` on. All clamped at 0. At ``t = 0`` every curve gives ``q0`` (for the cubic this differs
    from ``P_s(t0)`` only when ``q0`` lies above ``P_s(0)``, e.g. a full battery).
    """
    s = _row(model, speed_cm_s)
    q0 = _start(model, start_charge)
    t = np.asarray(t_s, dtype=np.float64)
    tab = model.table
    if model.kind == "simple":
        m = tab.slope_static_per_s if s == 0 else tab.slope_moving_per_s
        return np.maximum(0.0, q0 + m * t)
    if model.kind == "linear":
        return np.maximum(0.0, q0 + tab.slope_per_s[s] * t)
    if model.kind == "cubic":
        p0, p1, p2, p3 = tab.coeffs[s]
        tt = start_offset_s(model, s, q0) + t
        y = p0 + tt * (p1 + tt * (p2 + tt * p3))
        y = np.where(tt < tab.tmax_s[s], np.maximum(0.0, y), 0.0)
        return np.where(t <= 0.0, q0, y)  # the battery holds q0 until the first step
    # approximated: charge as a function of the time left on this speed's segments
    left = _segment_time_to_empty(tab, s, q0) - t
    return _segment_charge_from_time_left(tab, s, left)


def autonomy_s(model: BatteryModel, speed_cm_s: int, start_charge: float | None = None) -> float:
    """Time for a battery of ``start_charge`` to reach 0 at a constant ``speed_cm_s`` (s).

    simple/linear: ``q0/|m|`` (``1/|m|`` from full); cubic: ``Tmax_s − t0``; approximated: the sum
    of the segment durations below ``q0``. From full, cubic and approximated give ``Tmax_s``.
    """
    s = _row(model, speed_cm_s)
    q0 = _start(model, start_charge)
    tab = model.table
    if model.kind == "simple":
        m = tab.slope_static_per_s if s == 0 else tab.slope_moving_per_s
        return float(q0 / -m)
    if model.kind == "linear":
        return float(q0 / -tab.slope_per_s[s])
    if model.kind == "cubic":
        return float(tab.tmax_s[s] - start_offset_s(model, s, q0))
    return float(_segment_time_to_empty(tab, s, q0))


def _segment_time_to_empty(tab, s: int, q: float) -> float:
    hi, lo, m = tab.charge_from[s], tab.charge_to[s], tab.slope_per_s[s]
    n = hi.shape[0]
    k = n - 1
    for j in range(n - 1):
        if lo[j] <= q <= hi[j]:
            k = j
            break
    return float((q - lo[k]) / -m[k] + sum((hi[j] - lo[j]) / -m[j] for j in range(k + 1, n)))


def _segment_charge_from_time_left(tab, s: int, left) -> np.ndarray:
    hi, lo, m = tab.charge_from[s], tab.charge_to[s], tab.slope_per_s[s]
    durations = (hi - lo) / -m
    # time left when a segment ends, counted from the last segment back
    ends = np.concatenate([np.cumsum(durations[::-1])[::-1][1:], [0.0]])
    left = np.asarray(left, dtype=np.float64)
    k = np.searchsorted(-ends, -left, side="left")  # first segment whose end-time-left <= left
    k = np.clip(k, 0, len(m) - 1)
    y = lo[k] + (-m[k]) * (left - ends[k])
    return np.where(left > 0.0, np.maximum(y, 0.0), 0.0)


def cardano_root(coeffs, q: float) -> float:
    """Real root of ``P(t) = q`` by Cardano's formula, as the E-Puck2 plug-in solves it.

    ``coeffs`` = (p0, p1, p2, p3), ascending powers. With ``d = p0 − q``, ``Δ0 = p2² − 3·p3·p1``,
    ``Δ1 = 2p2³ − 9·p3·p2·p1 + 27·p3²·d`` and ``C = cbrt((Δ1 ± sqrt(Δ1² − 4Δ0³))/2)`` (sign of
    ``Δ1``, to avoid cancellation — either sign gives the same root), ``t = −(p2 + C + Δ0/C)/(3p3)``.
    Valid when the cubic has one real root (``Δ0 < 0``, true of every published fit). Kept as the
    reference the guarded Newton solver is tested against; not used in the step.
    """
    p0, p1, p2, p3 = (float(c) for c in coeffs)
    d = p0 - q
    delta0 = p2 * p2 - 3.0 * p3 * p1
    delta1 = 2.0 * p2 ** 3 - 9.0 * p3 * p2 * p1 + 27.0 * p3 * p3 * d
    disc = delta1 * delta1 - 4.0 * delta0 ** 3
    if disc < 0.0:
        raise ValueError("the cubic has three real roots; Cardano's single-root form does not apply")
    root = np.sqrt(disc)
    c = np.cbrt((delta1 + root) / 2.0 if delta1 >= 0.0 else (delta1 - root) / 2.0)
    if c == 0.0:
        return -p2 / (3.0 * p3)
    return float(-(p2 + c + delta0 / c) / (3.0 * p3))
