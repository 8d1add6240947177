"""The vectorised discharge step: the spec's test vectors and its invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from swarmstack.power import (
    KINDS,
    autonomy_s,
    crazyflie_battery,
    curve,
    discharge,
    discharge_at_tick,
    epuck2_battery,
    initial_charge,
    time_left_s,
)

DT = 0.1
MODELS = {kind: epuck2_battery(kind) for kind in KINDS}
PLAIN = {kind: epuck2_battery(kind, interpolation="plain") for kind in KINDS}
CF = crazyflie_battery()


def _one(x):
    return np.array([x], dtype=np.float64)


def _step(model, q, distance=0.0, rotation=0.0, dt=DT):
    return discharge(_one(q), _one(distance), _one(rotation), dt, model)[0]


def _run_until_empty(model, speed_cm_s, dt=DT, start=None, max_ticks=400_000):
    """Ticks (first tick included, not discharged) until each robot is empty; spinning robots."""
    speeds = np.atleast_1d(np.asarray(speed_cm_s, dtype=np.float64))
    q = initial_charge(speeds.size, model) if start is None else np.full(speeds.size, start)
    rot = speeds / 100.0 / model.spin_radius_m * dt if model.spin_radius_m else np.zeros_like(speeds)
    zero = np.zeros_like(speeds)
    empty_at = np.full(speeds.size, -1)
    for tick in range(max_ticks):
        q = discharge_at_tick(tick, q, zero, rot, dt, model, out=q)
        newly = (q <= 0.0) & (empty_at < 0)
        empty_at[newly] = tick + 1
        if (empty_at >= 0).all():
            break
    return empty_at * dt


# ---- spec §1.8 (i)–(iv) -------------------------------------------------------------------


def test_i_simple_static_one_hour():
    m = MODELS["simple"]
    q = initial_charge(3, m)
    z = np.zeros(3)
    for _ in range(36_000):
        q = discharge(q, z, z, DT, m, out=q)
    np.testing.assert_allclose(q, 1 - 3600 * 5.064963049e-5, rtol=0, atol=1e-9)
    assert q[0] == pytest.approx(0.81766, abs=5e-6)


def test_i_simple_moving_uses_moving_slope():
    assert _step(MODELS["simple"], 1.0, distance=1e-4) == pytest.approx(1 - 8.699123633e-6, abs=1e-15)
    assert _step(MODELS["simple"], 1.0, rotation=0.01) == pytest.approx(1 - 8.699123633e-6, abs=1e-15)


def test_ii_linear_exact_speed_has_no_interpolation():
    m = MODELS["linear"]
    q = 0.8
    assert _step(m, q, distance=0.004) == q + m.table.slope_per_s[4] * DT


def test_ii_linear_13_3_lies_between_13_and_14_with_w_0_3():
    m = MODELS["linear"]
    q = 0.8
    y13 = _step(m, q, distance=0.013)
    y14 = _step(m, q, distance=0.014)
    y = _step(m, q, distance=0.0133)
    assert min(y13, y14) < y < max(y13, y14)
    lo, hi = min(y13, y14), max(y13, y14)
    assert (y - lo) / (hi - lo) == pytest.approx(0.3, abs=1e-9)


@pytest.mark.parametrize("kind", ["cubic", "approximated"])
def test_iii_static_full_battery_lasts_tmax0(kind):
    t_empty = _run_until_empty(MODELS[kind], 0.0)[0]
    assert t_empty == pytest.approx(19743.4807, abs=2.0)


@pytest.mark.parametrize("kind", ["linear", "cubic", "approximated"])
def test_iv_spinning_is_speed_0_0265_omega(kind):
    m = MODELS[kind]
    for omega in (0.5, 1.7, 3.3, 5.0):
        by_rotation = _step(m, 0.6, rotation=omega * DT)
        by_distance = _step(m, 0.6, distance=0.0265 * omega * DT)
        assert by_rotation == by_distance
    # travel wins over rotation when both are present
    assert _step(m, 0.6, distance=0.004, rotation=3.0) == _step(m, 0.6, distance=0.004)


# ---- common rules ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["linear", "cubic", "approximated"])
def test_speed_is_clamped_to_15_cm_s(kind):
    m = MODELS[kind]
    assert _step(m, 0.7, distance=0.05) == _step(m, 0.7, distance=0.015)


@pytest.mark.parametrize("kind", ["linear", "cubic", "approximated"])
def test_speed_rounded_to_0_01_cm_s(kind):
    m = MODELS[kind]
    assert _step(m, 0.7, distance=0.0073301) == _step(m, 0.7, distance=0.00733)


@pytest.mark.parametrize("kind", ["linear", "cubic", "approximated"])
@pytest.mark.parametrize("s_lo", [0, 3, 7, 13])
def test_interpolation_between_neighbouring_speeds(kind, s_lo):
    """At s_L + w the result is between the two neighbours' results, at fraction w (measured from
    the smaller charge with the published rule, from the lower speed with the plain rule)."""
    q = 0.62
    y_lo = _step(MODELS[kind], q, distance=s_lo / 1000)
    y_hi = _step(MODELS[kind], q, distance=(s_lo + 1) / 1000)
    for w in (0.25, 0.5, 0.8):
        d = (s_lo + w) / 1000
        pub = _step(MODELS[kind], q, distance=d)
        plain = _step(PLAIN[kind], q, distance=d)
        assert pub == pytest.approx(min(y_lo, y_hi) + w * abs(y_hi - y_lo), abs=1e-14)
        assert plain == pytest.approx(y_lo + w * (y_hi - y_lo), abs=1e-14)


def test_published_quirk_differs_from_plain_when_faster_drains_more():
    # 3 -> 4 cm/s: the 4 cm/s line drains faster, so the published rule weights the wrong end
    q, d = 0.9, 0.0033
    y3 = _step(MODELS["linear"], q, distance=0.003)
    y4 = _step(MODELS["linear"], q, distance=0.004)
    assert y4 < y3
    assert _step(MODELS["linear"], q, distance=d) == pytest.approx(y4 + 0.3 * (y3 - y4), abs=1e-15)
    assert _step(PLAIN["linear"], q, distance=d) == pytest.approx(y3 + 0.3 * (y4 - y3), abs=1e-15)


@pytest.mark.parametrize("kind", KINDS)
def test_empty_battery_never_changes(kind):
    m = MODELS[kind]
    q = np.array([0.0, -0.0, 0.0])
    out = discharge(q, np.array([0.0, 0.01, 0.0]), np.array([0.0, 0.0, 2.0]), DT, m)
    assert (out == 0.0).all()


def test_first_tick_is_not_discharged():
    m = MODELS["linear"]
    q = np.array([1.0, 0.5])
    d = np.array([0.004, 0.0])
    z = np.zeros(2)
    np.testing.assert_array_equal(discharge_at_tick(0, q, d, z, DT, m), q)
    np.testing.assert_array_equal(discharge_at_tick(1, q, d, z, DT, m), discharge(q, d, z, DT, m))


def test_inputs_are_not_modified_and_out_may_alias():
    m = MODELS["cubic"]
    q = np.array([1.0, 0.4, 0.2])
    d = np.array([0.0, 0.0133, 0.015])
    r = np.array([1.0, 0.0, 0.0])
    expected = discharge(q, d, r, DT, m)
    assert q[0] == 1.0
    discharge(q, d, r, DT, m, out=q)
    np.testing.assert_array_equal(q, expected)


def test_shape_mismatch_is_an_error():
    with pytest.raises(ValueError, match="1-D"):
        discharge(np.ones(3), np.zeros(2), np.zeros(3), DT, MODELS["simple"])


# ---- invariants (hypothesis) ----------------------------------------------------------------

charges = arrays(np.float64, st.integers(1, 40), elements=st.floats(0.0, 1.0))


@settings(max_examples=60, deadline=None)
@given(q=charges, data=st.data(), dt=st.floats(0.01, 1.0), kind=st.sampled_from(KINDS),
       plain=st.booleans())
def test_charge_never_increases_and_never_goes_negative(q, data, dt, kind, plain):
    n = q.shape[0]
    dist = data.draw(arrays(np.float64, n, elements=st.floats(0.0, 0.05)))
    rot = data.draw(arrays(np.float64, n, elements=st.floats(-1.0, 1.0)))
    m = (PLAIN if plain else MODELS)[kind]
    out = discharge(q, dist, rot, dt, m)
    assert (out >= 0.0).all()
    assert (out <= q).all()
    assert (out[q > 0] < q[q > 0]).all()


@settings(max_examples=30, deadline=None)
@given(q=charges, dt=st.floats(0.01, 1.0))
def test_crazyflie_never_increases(q, dt):
    out = discharge(q, np.full(q.shape, 0.3), np.zeros(q.shape), dt, CF)
    assert (out >= 0.0).all() and (out <= q).all()


# ---- tick-by-tick vs the closed forms ---------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_simulated_autonomy_matches_analytic_for_all_speeds(kind):
    m = MODELS[kind]
    dt = 1.0  # coarse tick keeps the test fast; tolerance scales with it
    sim = _run_until_empty(m, np.arange(16), dt=dt)
    ana = np.array([autonomy_s(m, s) for s in range(16)])
    np.testing.assert_allclose(sim, ana, atol=3 * dt)


@pytest.mark.parametrize("kind", KINDS)
def test_trajectory_follows_curve(kind):
    m = MODELS[kind]
    speed = 9
    q = initial_charge(1, m)
    rot = np.array([speed / 100 / 0.0265 * DT])
    z = np.zeros(1)
    traj = [1.0]
    for tick in range(1, 20_001):
        q = discharge(q, z, rot, DT, m, out=q)
        traj.append(q[0])
    t = np.arange(len(traj)) * DT
    np.testing.assert_allclose(traj, curve(m, speed, t), atol=2e-5)


# ---- Crazyflie (spec §2.5) ----------------------------------------------------------------------


def test_crazyflie_polynomial_vectors():
    p0 = CF.table.coeffs[0, 0]
    t = np.array([0.0, 60.0, 200.0, 400.0, 427.2099])
    np.testing.assert_allclose(curve(CF, 0, t, start_charge=p0),
                               [1.0091, 0.7906, 0.5531, 0.2366, 0.1423], atol=6e-5)


def test_crazyflie_full_battery_empties_after_about_425_s():
    from swarmstack.power import start_offset_s
    assert start_offset_s(CF, 0, 1.0) == pytest.approx(2.02, abs=0.01)
    assert _run_until_empty(CF, 0.0)[0] == pytest.approx(425.1, abs=0.3)
    assert time_left_s(np.array([1.0]), CF)[0] == pytest.approx(425.19, abs=0.01)


def test_crazyflie_speed_does_not_matter():
    q = np.full(3, 0.7)
    a = discharge(q, np.array([0.0, 0.05, 2.0]), np.array([0.0, 1.0, 0.0]), DT, CF)
    assert a[0] == a[1] == a[2] < 0.7


@pytest.mark.parametrize("start", [0.25, 0.5, 0.75, 1.0])
def test_crazyflie_start_charges(start):
    m = crazyflie_battery(start_charge=start)
    sim = _run_until_empty(m, 0.0)[0]
    assert sim == pytest.approx(autonomy_s(m, 0), abs=0.3)
    assert time_left_s(np.array([start]), m)[0] == pytest.approx(autonomy_s(m, 0), abs=1e-6)


def test_crazyflie_time_left_decreases_by_dt_per_tick():
    q = np.array([0.9, 0.5, 0.2])
    before = time_left_s(q, CF)
    after = time_left_s(discharge(q, np.zeros(3), np.zeros(3), DT, CF), CF)
    np.testing.assert_allclose(before - after, DT, atol=1e-6)
    assert time_left_s(np.array([0.0]), CF)[0] == 0.0
