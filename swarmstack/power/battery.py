"""Battery discharge models of the E-Puck2 (four models) and the Crazyflie (one cubic).

Charge is a fraction of full (``q ∈ [0, 1]``). One step, for every robot at once::

    charge = discharge(charge, distance_m, rotation_rad, dt_s, model)

Rules shared by the models (E-Puck2 plug-in paper §4.1.7, Appendix Algs. 1–4):

* **Speed.** ``distance_m`` is how far the body origin moved during the tick. If it is exactly 0
  but the robot turned by ``rotation_rad`` (angle of the relative rotation), the robot is taken to
  have moved ``|rotation_rad| · spin_radius_m`` (0.0265 m: wheel travel when spinning on the spot,
  which is how the calibration data were recorded). Speed = travel / dt, clamped to
  ``[0, max_speed]`` (0.15 m/s, or the table's top row if that is lower), expressed in cm/s and
  rounded to 0.01 cm/s. ``s_L = floor``, ``s_H = ceil``, ``w = speed − s_L``.
* **Interpolation** (linear, cubic, approximated): the next charge is computed from the ``s_L`` and
  the ``s_H`` curve, both starting at the current charge, then mixed with ``w``.
  ``interpolation="published"`` measures ``w`` from the smaller of the two charges, as Algs. 2–4
  and the plug-in do; ``"plain"`` is ``y_L + w·(y_H − y_L)``.
* The result is clamped at ≥ 0, and once ``q ≤ 0`` the charge never changes again.
* **First tick.** The plug-in does not discharge on the first tick of a run (the simulation
  clock is still 0). :func:`discharge` itself always steps; call it from the second tick on, or
  call :func:`discharge_at_tick` with the 0-based tick index, which returns the charge unchanged
  for tick 0.

Per model:

* ``simple`` (Alg. 1): ``q + m·dt`` with the static slope if the robot neither moved nor turned
  (raw travel exactly 0), else the moving slope. No speed rounding or interpolation.
* ``linear`` (Alg. 2): ``q + L[s]·dt`` for each neighbouring integer speed, then interpolate.
* ``cubic`` (Alg. 3): per speed ``P_s(t)``; find ``t*`` with ``P_s(t*) = q`` on ``[0, Tmax_s]``
  (guarded Newton, see :func:`swarmstack.power.kernels.cubic_root`), next charge
  ``P_s(t* + dt)``; 0 once ``t* ≥ Tmax_s`` (E-Puck2) or ``t* + dt > Tmax_s`` (Crazyflie,
  ``cubic_cutoff="after_step"``) — the end-of-life drop.
* ``approximated`` (Alg. 4): the segment whose charge interval holds ``q`` (segments 1..3 in
  order, else 4) gives the slope; next charge ``q + m·dt``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Union

import numpy as np

import swarmstack.power.kernels as kernels
from swarmstack.power.tables import (
    CubicTable,
    LinearTable,
    SegmentTable,
    SimpleTable,
    data_path,
    load_cubic,
    load_linear,
    load_segments,
    load_simple,
)

KINDS = ("simple", "linear", "cubic", "approximated")
INTERPOLATIONS = ("published", "plain")
CUBIC_CUTOFFS = ("at_root", "after_step")

EPUCK2_SPIN_RADIUS_M = 0.0265
"""Wheel travel per radian when an E-Puck2 spins on the spot (half its wheel separation)."""

EPUCK2_MAX_SPEED_M_S = 0.15
"""Top speed of the calibration (15 cm/s): faster motion is charged as 15 cm/s."""

EPUCK2_FILES = {
    "simple": "epuck2_simple.csv",
    "linear": "epuck2_linear.csv",
    "cubic": "epuck2_cubic.csv",
    "approximated": "epuck2_approximated.csv",
}
CRAZYFLIE_FILE = "crazyflie_cubic.csv"

Table = Union[SimpleTable, LinearTable, CubicTable, SegmentTable]
_LOADERS = {"simple": load_simple, "linear": load_linear, "cubic": load_cubic,
            "approximated": load_segments}
_TABLE_TYPES = {"simple": SimpleTable, "linear": LinearTable, "cubic": CubicTable,
                "approximated": SegmentTable}


@dataclass(frozen=True, eq=False)
class BatteryModel:
    """Which discharge model, its coefficient table and its options (static; the charge array is
    the state and lives with the robots)."""

    kind: str
    table: Table
    start_charge: float = 1.0
    interpolation: str = "published"
    cubic_cutoff: str = "at_root"
    spin_radius_m: float = EPUCK2_SPIN_RADIUS_M
    max_speed_m_s: float = EPUCK2_MAX_SPEED_M_S
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"battery model kind {self.kind!r}; expected one of {', '.join(KINDS)}")
        if not isinstance(self.table, _TABLE_TYPES[self.kind]):
            raise TypeError(f"battery model {self.kind!r} needs a {_TABLE_TYPES[self.kind].__name__}, "
                            f"got {type(self.table).__name__}")
        if not 0.0 <= self.start_charge <= 1.0:
            raise ValueError(f"start_charge {self.start_charge!r}; expected a value in [0, 1]")
        if self.interpolation not in INTERPOLATIONS:
            raise ValueError(f"interpolation {self.interpolation!r}; expected 'published' or 'plain'")
        if self.cubic_cutoff not in CUBIC_CUTOFFS:
            raise ValueError(f"cubic_cutoff {self.cubic_cutoff!r}; expected 'at_root' or 'after_step'")
        if not self.spin_radius_m >= 0.0 or not self.max_speed_m_s >= 0.0:
            raise ValueError("spin_radius_m and max_speed_m_s must be >= 0")

    @property
    def n_speeds(self) -> int:
        """Rows of the speed table (integer speeds 0..n-1 cm/s); 2 conditions for ``simple``."""
        return 2 if self.kind == "simple" else self.table.n_speeds

    @property
    def max_speed_cm_s(self) -> float:
        """Speeds above this are charged as this (cm/s): the top speed, within the table."""
        top = float(self.n_speeds - 1) if self.kind != "simple" else float("inf")
        return min(self.max_speed_m_s * 100.0, top)

    @property
    def published(self) -> bool:
        return self.interpolation == "published"


def load_model(kind: str, path: Path | str, **options) -> BatteryModel:
    """A model of ``kind`` whose coefficients come from the CSV at ``path`` (see ``docs/power.md``
    for the columns); ``options`` are the other :class:`BatteryModel` fields."""
    if kind not in KINDS:
        raise ValueError(f"battery model kind {kind!r}; expected one of {', '.join(KINDS)}")
    return BatteryModel(kind=kind, table=_LOADERS[kind](path), **options)


def epuck2_battery(kind: str = "simple", *, path: Path | str | None = None,
                   start_charge: float = 1.0, interpolation: str = "published") -> BatteryModel:
    """E-Puck2 model ``kind`` (the plug-in's default is ``simple``), from the shipped data file
    unless ``path`` names a replacement."""
    return load_model(kind, path if path is not None else data_path(EPUCK2_FILES.get(kind, "")),
                      start_charge=start_charge, interpolation=interpolation,
                      cubic_cutoff="at_root", spin_radius_m=EPUCK2_SPIN_RADIUS_M,
                      max_speed_m_s=EPUCK2_MAX_SPEED_M_S, name=f"epuck2-{kind}")


def crazyflie_battery(*, path: Path | str | None = None, start_charge: float = 1.0) -> BatteryModel:
    """Crazyflie cubic (one curve, independent of speed): the cubic machinery with a one-row
    table, so every speed maps to row 0; empty once ``t* + dt`` passes ``Tmax``."""
    return load_model("cubic", path if path is not None else data_path(CRAZYFLIE_FILE),
                      start_charge=start_charge, interpolation="published",
                      cubic_cutoff="after_step", spin_radius_m=0.0, max_speed_m_s=0.0,
                      name="crazyflie-cubic")


def initial_charge(n_robots: int, model: BatteryModel) -> np.ndarray:
    """Charge array for ``n_robots`` fresh batteries (``start_charge`` each)."""
    return np.full(n_robots, model.start_charge, dtype=np.float64)


def _as_f64(x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def discharge(charge: np.ndarray, distance_m: np.ndarray, rotation_rad: np.ndarray, dt_s: float,
              model: BatteryModel, out: np.ndarray | None = None) -> np.ndarray:
    """Charge of every robot after one tick of ``dt_s`` seconds.

    ``charge``, ``distance_m`` (travel of the body origin this tick, ≥ 0) and ``rotation_rad``
    (angle turned this tick) are 1-D arrays of the same length; the inputs are not modified.
    ``out`` may be given (even ``out is charge``) to avoid allocating.
    """
    q = _as_f64(charge)
    dx = _as_f64(distance_m)
    dth = _as_f64(rotation_rad)
    if q.ndim != 1 or dx.shape != q.shape or dth.shape != q.shape:
        raise ValueError(f"charge, distance_m, rotation_rad must be 1-D of one length; got shapes "
                         f"{q.shape}, {dx.shape}, {dth.shape}")
    if not dt_s > 0.0:
        raise ValueError(f"dt_s {dt_s!r}; expected > 0")
    if out is None:
        out = np.empty_like(q)
    rows, _, args = step_of(model, q, dx, dth, float(dt_s), out)
    rows(0, q.shape[0], *args)
    return out


def step_of(model: BatteryModel, charge: np.ndarray, distance_m: np.ndarray,
            rotation_rad: np.ndarray, dt_s: float, out: np.ndarray) -> tuple:
    """The kernel of one :func:`discharge` step of ``model`` and its arguments (float64 1-D
    arrays of one length, checked by the caller): ``(rows, parallel_min, args)``:
    ``rows(lo, hi, *args)`` writes the next charge of robots ``lo … hi − 1`` into ``out``; a
    parallel form is worth it from ``parallel_min`` robots."""
    t = model.table
    K = kernels
    common = (charge, distance_m, rotation_rad, dt_s)
    if model.kind == "simple":
        return K.simple_rows, K.PARALLEL_MIN, (
            *common, t.slope_static_per_s, t.slope_moving_per_s, model.spin_radius_m, out)
    speed = (model.spin_radius_m, model.max_speed_cm_s, model.published)
    if model.kind == "cubic":
        return K.cubic_rows, K.PARALLEL_MIN_CUBIC, (
            *common, t.coeffs, t.tmax_s, *speed, model.cubic_cutoff == "after_step", out)
    if model.kind == "linear":  # one segment per speed, whatever the charge
        no_bounds = np.empty((t.n_speeds, 0))
        return K.segment_rows, K.PARALLEL_MIN, (
            *common, np.ascontiguousarray(t.slope_per_s[:, None]), no_bounds, no_bounds,
            *speed, out)
    return K.segment_rows, K.PARALLEL_MIN, (*common, t.slope_per_s, t.charge_from, t.charge_to,
                                            *speed, out)


def discharge_at_tick(tick: int, charge: np.ndarray, distance_m: np.ndarray,
                      rotation_rad: np.ndarray, dt_s: float, model: BatteryModel,
                      out: np.ndarray | None = None) -> np.ndarray:
    """:func:`discharge` with the plug-in's first-tick rule: ``tick`` is the 0-based index of the
    tick being simulated, and tick 0 leaves the charge as it is (copied into ``out`` if given)."""
    if tick <= 0:
        q = _as_f64(charge)
        if out is None:
            return q.copy()
        out[...] = q
        return out
    return discharge(charge, distance_m, rotation_rad, dt_s, model, out)


def speed_row(speed_cm_s, model: BatteryModel) -> np.ndarray:
    """Integer table row for a speed in cm/s (clamped to the table; rounded to nearest)."""
    s = np.clip(np.rint(np.asarray(speed_cm_s, dtype=np.float64)), 0.0, model.max_speed_cm_s)
    return s.astype(np.int64)


def time_left_s(charge: np.ndarray, model: BatteryModel, speed_cm_s=0) -> np.ndarray:
    """Seconds until empty if the robot keeps its speed (nearest integer row, default 0 cm/s).

    Meant for the Crazyflie (one curve, ``Tmax − t*(q)``), where the plug-in exposes it; given for
    the other models from their curves too (continuous time, no tick rounding). 0 when empty.
    """
    q = np.atleast_1d(_as_f64(charge))
    rows = np.broadcast_to(speed_row(speed_cm_s, model), q.shape)
    kind, t = model.kind, model.table
    pos = np.maximum(q, 0.0)
    if kind == "simple":
        slope = np.where(rows == 0, t.slope_static_per_s, t.slope_moving_per_s)
        return pos / -slope
    if kind == "linear":
        return pos / -t.slope_per_s[rows]
    if kind == "cubic":
        return kernels.cubic_time_left(q, t.coeffs, t.tmax_s, np.ascontiguousarray(rows, np.int64),
                                       np.empty_like(q))
    # approximated: rest of the current segment, plus every later segment in full
    n_seg = t.slope_per_s.shape[1]
    hi, lo, m = t.charge_from[rows], t.charge_to[rows], t.slope_per_s[rows]
    seg = np.full(q.shape, n_seg - 1)
    for k in range(n_seg - 2, -1, -1):  # first matching segment wins, as in the step
        seg = np.where((lo[:, k] <= q) & (q <= hi[:, k]), k, seg)
    idx = np.arange(q.shape[0])
    rest = (q - lo[idx, seg]) / -m[idx, seg]
    durations = (hi - lo) / -m
    later = np.where(np.arange(n_seg)[None, :] > seg[:, None], durations, 0.0).sum(axis=1)
    return np.where(q > 0.0, np.maximum(rest, 0.0) + later, 0.0)
