"""Closed forms: the cubic root finder against Cardano, autonomies against the published table."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.power import (
    KINDS,
    autonomy_s,
    cardano_root,
    crazyflie_battery,
    curve,
    epuck2_battery,
    time_left_s,
)
from swarmstack.power.kernels import cubic_root

CUBIC = epuck2_battery("cubic")
CF = crazyflie_battery()

# implied autonomy per speed, spec §1.8 (linear table's 1/|m|, equal to the cubic Tmax)
PUBLISHED_AUTONOMY_S = [19743, 16022, 12857, 11143, 9166, 9355, 9203, 9729, 9898, 10357, 11057,
                        11638, 12766, 13055, 13228, 12957]


def _poly(c, t):
    return c[0] + t * (c[1] + t * (c[2] + t * c[3]))


@pytest.mark.parametrize("model", [CUBIC, CF], ids=["epuck2", "crazyflie"])
def test_every_published_cubic_has_a_single_real_root(model):
    c = model.table.coeffs
    delta0 = c[:, 2] ** 2 - 3 * c[:, 3] * c[:, 1]
    assert (delta0 < 0).all()  # P' never vanishes: monotone everywhere, Cardano applies


@settings(max_examples=300, deadline=None)
@given(speed=st.integers(0, 16), frac=st.floats(0.0, 1.0))
def test_newton_agrees_with_cardano(speed, frac):
    model, s = (CF, 0) if speed == 16 else (CUBIC, speed)
    c = model.table.coeffs[s]
    tmax = model.table.tmax_s[s]
    q_top, q_end = _poly(c, 0.0), _poly(c, tmax)
    q = q_end + frac * (q_top - q_end)
    t_newton = cubic_root(c[0], c[1], c[2], c[3], tmax, q)
    t_cardano = min(max(cardano_root(c, q), 0.0), tmax)
    assert t_newton == pytest.approx(t_cardano, abs=1e-6 * tmax)
    assert _poly(c, t_newton) == pytest.approx(q, abs=1e-10)  # residual of a converged root


@settings(max_examples=100, deadline=None)
@given(speed=st.integers(0, 15), q=st.floats(0.0, 1.2))
def test_root_is_clamped_to_the_curve(speed, q):
    c = CUBIC.table.coeffs[speed]
    tmax = CUBIC.table.tmax_s[speed]
    t = cubic_root(c[0], c[1], c[2], c[3], tmax, q)
    assert 0.0 <= t <= tmax
    if q >= c[0]:
        assert t == 0.0
    if q <= _poly(c, tmax):
        assert t == tmax


def test_autonomy_vs_speed_matches_published_shape():
    for kind in ("linear", "cubic", "approximated"):
        m = epuck2_battery(kind)
        got = [autonomy_s(m, s) for s in range(16)]
        np.testing.assert_allclose(got, PUBLISHED_AUTONOMY_S, atol=0.6)
        # falls to a minimum at 4 cm/s, rises to a maximum at 14 cm/s, falls again
        assert int(np.argmin(got)) == 4 and int(np.argmax(got[4:])) + 4 == 14
    simple = epuck2_battery("simple")
    assert autonomy_s(simple, 0) == pytest.approx(19743, abs=1)
    assert autonomy_s(simple, 7) == pytest.approx(11495, abs=1)


@pytest.mark.parametrize("kind", KINDS)
def test_curve_starts_full_and_ends_empty(kind):
    m = epuck2_battery(kind)
    for s in (0, 4, 14):
        a = autonomy_s(m, s)
        y = curve(m, s, np.array([0.0, a / 2, a + 1.0]))
        assert y[0] >= 0.98 and 0.0 < y[1] < y[0] and y[2] == 0.0
        t = np.linspace(0, a, 500)
        assert (np.diff(curve(m, s, t)) <= 1e-15).all()


@pytest.mark.parametrize("kind", KINDS)
def test_time_left_matches_autonomy_from_partial_charge(kind):
    m = epuck2_battery(kind)
    for s in (0, 5, 12):
        for q0 in (1.0, 0.8, 0.45, 0.2):
            got = time_left_s(np.array([q0]), m, s)[0]
            assert got == pytest.approx(autonomy_s(m, s, start_charge=q0), rel=1e-9, abs=1e-6)


def test_approximated_curve_tracks_cubic():
    a, c = epuck2_battery("approximated"), CUBIC
    for s in range(16):
        t = np.linspace(0, c.table.tmax_s[s] - 2, 400)
        assert np.abs(curve(a, s, t) - curve(c, s, t)).max() < 0.08  # fits start at P(0) != 1
