"""Numba kernels of the four discharge models: one compiled loop over all robots per model.

The per-robot work is a handful of flops, so the cost of a battery step is dominated by how often
Python is entered; each kernel is therefore one call for the whole swarm, ``*_rows(lo, hi, …)``
over robots ``lo … hi − 1``, each writing only its own outputs (the battery sensor derives their
parallel forms). The maths restates Algs. 1–4 of the E-Puck2 plug-in paper (and Alg. 1 of the
Crazyflie paper for the cubic with one speed); see ``battery.py`` for the rules in words.
"""

from __future__ import annotations

import math

from numba import njit

# Newton on the cubic stops when the step is below this (s); times are at most ~2e4 s, where one
# ulp is ~4e-12 s, so this is converged to a few ulps without chasing rounding noise.
_ROOT_STEP_TOL_S = 1e-9
_ROOT_MAX_ITER = 80

# robots per work item of the parallel forms, and the swarm sizes from which they pay: the
# cubic model solves a root per robot; the others are a few flops
CHUNK = 4096
PARALLEL_MIN_CUBIC = 4096
PARALLEL_MIN = 65536


@njit(cache=True, inline="always")
def _speed_cm_s(distance_m, rotation_rad, dt_s, spin_radius_m, max_speed_cm_s):
    """Speed the models use: travel per tick (or wheel travel when turning on the spot), in cm/s,
    clamped to the table's range and rounded to 0.01 cm/s (as the plug-in does)."""
    dx = abs(distance_m)
    if dx == 0.0:
        dx = abs(rotation_rad) * spin_radius_m
    v = dx / dt_s * 100.0
    if v > max_speed_cm_s:
        v = max_speed_cm_s
    if not v > 0.0:  # also catches NaN
        v = 0.0
    return math.floor(v * 100.0 + 0.5) / 100.0


@njit(cache=True, inline="always")
def _mix(y_low_speed, y_high_speed, w, published):
    """Interpolate between the two neighbouring speeds' next charges.

    ``published`` reproduces Algs. 2–4 exactly: ``w`` is measured from the *smaller* of the two
    charges, not from the lower speed. The plain rule is the textbook one.
    """
    if published:
        lo = min(y_low_speed, y_high_speed)
        hi = max(y_low_speed, y_high_speed)
        return lo + w * (hi - lo)
    return y_low_speed + w * (y_high_speed - y_low_speed)


@njit(cache=True)
def simple_rows(start, stop, charge, distance_m, rotation_rad, dt_s, slope_static,
                slope_moving, spin_radius_m, out):
    for i in range(start, stop):
        q = charge[i]
        if not q > 0.0:
            out[i] = q
            continue
        dx = abs(distance_m[i])
        if dx == 0.0:
            dx = abs(rotation_rad[i]) * spin_radius_m
        m = slope_static if dx == 0.0 else slope_moving
        out[i] = max(0.0, q + m * dt_s)


@njit(cache=True, inline="always")
def _poly(p0, p1, p2, p3, t):
    return p0 + t * (p1 + t * (p2 + t * p3))


@njit(cache=True)
def cubic_root(p0, p1, p2, p3, tmax_s, q):
    """Time ``t`` in ``[0, tmax_s]`` with ``P(t) = q`` for a cubic decreasing on that interval.

    Returns 0 when ``q >= P(0)`` (a full battery sits a little above the fit's offset) and
    ``tmax_s`` when ``q <= P(tmax_s)``. Newton steps, kept inside a shrinking bracket and replaced
    by bisection when they leave it, so it always converges (the loader guarantees ``P' < 0``).
    """
    f_lo = p0 - q
    if f_lo <= 0.0:
        return 0.0
    f_hi = _poly(p0, p1, p2, p3, tmax_s) - q
    if f_hi >= 0.0:
        return tmax_s
    lo = 0.0
    hi = tmax_s
    t = f_lo / (f_lo - f_hi) * tmax_s  # secant start
    for _ in range(_ROOT_MAX_ITER):
        f = _poly(p0, p1, p2, p3, t) - q
        if f > 0.0:
            lo = t
        elif f < 0.0:
            hi = t
        else:
            return t
        d = p1 + t * (2.0 * p2 + 3.0 * p3 * t)
        t_new = t - f / d if d < 0.0 else 0.5 * (lo + hi)
        if not (lo < t_new < hi):
            t_new = 0.5 * (lo + hi)
        if abs(t_new - t) <= _ROOT_STEP_TOL_S or hi - lo <= _ROOT_STEP_TOL_S:
            return t_new
        t = t_new
    return t


@njit(cache=True, inline="always")
def _cubic_next(coeffs, tmax_s, s, q, dt_s, cutoff_after_step):
    p0 = coeffs[s, 0]
    p1 = coeffs[s, 1]
    p2 = coeffs[s, 2]
    p3 = coeffs[s, 3]
    t = cubic_root(p0, p1, p2, p3, tmax_s[s], q)
    if cutoff_after_step:  # Crazyflie Alg. 1: empty once t* + dt passes tmax
        t += dt_s
        if t > tmax_s[s]:
            return 0.0
        return _poly(p0, p1, p2, p3, t)
    if t >= tmax_s[s]:  # E-Puck2 Alg. 3: empty once t* reaches tmax
        return 0.0
    return _poly(p0, p1, p2, p3, t + dt_s)


@njit(cache=True)
def cubic_rows(start, stop, charge, distance_m, rotation_rad, dt_s, coeffs, tmax_s,
               spin_radius_m, max_speed_cm_s, published, cutoff_after_step, out):
    for i in range(start, stop):
        q = charge[i]
        if not q > 0.0:
            out[i] = q
            continue
        v = _speed_cm_s(distance_m[i], rotation_rad[i], dt_s, spin_radius_m, max_speed_cm_s)
        s_lo = int(math.floor(v))
        s_hi = int(math.ceil(v))
        y = _cubic_next(coeffs, tmax_s, s_lo, q, dt_s, cutoff_after_step)
        if s_hi != s_lo:
            y_hi = _cubic_next(coeffs, tmax_s, s_hi, q, dt_s, cutoff_after_step)
            y = _mix(y, y_hi, v - s_lo, published)
        out[i] = max(0.0, y)


@njit(cache=True, inline="always")
def _segment_slope(slope, charge_from, charge_to, s, q):
    """Slope of the segment whose charge interval holds ``q``: segments 1..3 in order, inclusive
    bounds, otherwise the end-of-life segment 4 (as Alg. 4 does); the linear model (Alg. 2) is
    the case of one segment."""
    n_seg = slope.shape[1]
    for k in range(n_seg - 1):
        if charge_to[s, k] <= q <= charge_from[s, k]:
            return slope[s, k]
    return slope[s, n_seg - 1]


@njit(cache=True)
def segment_rows(start, stop, charge, distance_m, rotation_rad, dt_s, slope, charge_from,
                 charge_to, spin_radius_m, max_speed_cm_s, published, out):
    for i in range(start, stop):
        q = charge[i]
        if not q > 0.0:
            out[i] = q
            continue
        v = _speed_cm_s(distance_m[i], rotation_rad[i], dt_s, spin_radius_m, max_speed_cm_s)
        s_lo = int(math.floor(v))
        s_hi = int(math.ceil(v))
        # h + m*((q - h)/m + dt) == q + m*dt; the latter avoids the rounding of the large
        # intercepts of segment 4 (thousands).
        y = q + _segment_slope(slope, charge_from, charge_to, s_lo, q) * dt_s
        if s_hi != s_lo:
            y_hi = q + _segment_slope(slope, charge_from, charge_to, s_hi, q) * dt_s
            y = _mix(y, y_hi, v - s_lo, published)
        out[i] = max(0.0, y)


@njit(cache=True)
def cubic_time_left(charge, coeffs, tmax_s, speed_index, out):
    """``tmax − t*(q)`` per robot at its (integer) speed row; 0 for an empty battery."""
    for i in range(charge.shape[0]):
        q = charge[i]
        s = speed_index[i]
        if not q > 0.0:
            out[i] = 0.0
            continue
        t = cubic_root(coeffs[s, 0], coeffs[s, 1], coeffs[s, 2], coeffs[s, 3], tmax_s[s], q)
        out[i] = max(0.0, tmax_s[s] - t)
    return out

