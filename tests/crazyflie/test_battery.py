"""Crazyflie battery device: the paper's polynomial, Alg. 1 tick by tick, the exposed time left,
the options, replaceable and broken data files, and the ``crazyflie-battery`` validation."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from pydantic import ValidationError

from swarmstack import validations as reproduce
from swarmstack.power import battery as power_battery
from swarmstack.power.analytic import cardano_root
from swarmstack.robots.options import CrazyflieBatteryOptions
from swarmstack.power.crazyflie import (
    CrazyflieBattery,
    battery_device,
    default_data_file,
    load_crazyflie_model,
    time_left,
)
from swarmstack.power.kernels import cubic_root
from swarmstack.power.tables import MAX_FILE_BYTES, BatteryTableError

TMAX = 427.21
VECTORS = ((0.0, 1.0091), (60.0, 0.7906), (200.0, 0.5531), (400.0, 0.2366), (427.21, 0.1423))
HEADER = "speed_cm_s,p0,p1_per_s,p2_per_s2,p3_per_s3,tmax_s,charge_at_tmax"
SHIPPED_ROW = "0,1.009061,-4.506692e-03,1.582833e-05,-2.347383e-08,427.21,0.1423"
DT = 0.1


def device(start_charge=1.0, **kw) -> CrazyflieBattery:
    return battery_device(CrazyflieBatteryOptions(start_charge=start_charge, **kw))


def poly(dev, t):
    p0, p1, p2, p3 = dev.coefficients
    return p0 + t * (p1 + t * (p2 + t * p3))


def world(tick, dt=DT):
    return SimpleNamespace(tick=tick, dt=dt)


def run_to_empty(dev, charge, dt=DT, max_ticks=10_000):
    """Ticks until every battery is empty; returns the charge history and the empty tick each."""
    left = time_left(charge, dev.model)
    history = [charge.copy()]
    empty = np.full(charge.shape, -1)
    for k in range(1, max_ticks + 1):
        dev.step(charge, dt, left)
        history.append(charge.copy())
        empty[(charge <= 0.0) & (empty < 0)] = k
        if (charge <= 0.0).all():
            break
    return np.array(history), empty


# ------------------------------------------------------------------ the polynomial
def test_polynomial_matches_the_test_vectors():
    dev = device()
    for t, want in VECTORS:
        assert poly(dev, t) == pytest.approx(want, abs=5e-5), t
    assert dev.tmax_s == TMAX


def test_shipped_file_is_the_default_and_cites_its_source():
    text = default_data_file().read_text()
    assert "2401.16948" in text and "Alg. 1" in text
    assert load_crazyflie_model().table.source == str(default_data_file())


def test_polynomial_decreases_on_0_tmax():
    dev = device()
    t = np.linspace(0.0, TMAX, 20001)
    assert np.all(np.diff(poly(dev, t)) < 0.0)


# ------------------------------------------------------------------ root finder
@pytest.mark.parametrize("t", [0.0, 1e-6, 2.02, 60.0, 199.9, 333.3, 400.0, 427.2, TMAX])
def test_root_inverts_the_polynomial(t):
    dev = device()
    p0, p1, p2, p3 = dev.coefficients
    q = poly(dev, t)
    root = cubic_root(p0, p1, p2, p3, TMAX, q)
    assert root == pytest.approx(t, abs=1e-7)
    assert root == pytest.approx(cardano_root(dev.coefficients, q), abs=1e-7)


def test_root_clamps_outside_the_curve():
    p0, p1, p2, p3 = device().coefficients
    assert cubic_root(p0, p1, p2, p3, TMAX, 1.0) == pytest.approx(2.0249, abs=1e-3)
    assert cubic_root(p0, p1, p2, p3, TMAX, 1.05) == 0.0          # above P(0)
    assert cubic_root(p0, p1, p2, p3, TMAX, 0.10) == TMAX         # below P(Tmax)


# ------------------------------------------------------------------ Alg. 1 tick by tick
def test_one_tick_follows_the_curve():
    dev = device()
    p0, p1, p2, p3 = dev.coefficients
    q = np.array([1.0, 0.8, 0.5, 0.2])
    roots = np.array([cubic_root(p0, p1, p2, p3, TMAX, x) for x in q])
    left = np.empty(4)
    dev.step(q, DT, left)
    np.testing.assert_allclose(q, poly(dev, roots + DT), rtol=0, atol=1e-13)
    np.testing.assert_allclose(left, TMAX - (roots + DT), rtol=0, atol=1e-9)


def test_monotone_and_time_left_consistent():
    dev = device()
    rng = np.random.default_rng(0)
    q = np.concatenate([rng.uniform(0.0, 1.0, 200), [1.0, 0.1423, 0.15]])
    history, empty = run_to_empty(dev, q)
    assert (empty > 0).all()
    assert np.all(np.diff(history, axis=0) <= 0.0)
    live = history[1:] > 0.0
    assert np.all(np.diff(history, axis=0)[live] < 0.0)   # strictly while not empty


def test_drop_at_tmax_and_empty_stays_empty():
    dev = device()
    p0, p1, p2, p3 = dev.coefficients
    just_before = poly(dev, TMAX - 0.05)    # t* + dt = Tmax + 0.05 > Tmax
    just_inside = poly(dev, TMAX - 0.15)    # t* + dt = Tmax − 0.05
    q = np.array([just_before, just_inside, 0.0, -0.0])
    left = np.full(4, 9.0)
    dev.step(q, DT, left)
    assert q[0] == 0.0 and left[0] == 0.0
    assert q[1] == pytest.approx(poly(dev, TMAX - 0.05), abs=1e-12) and q[1] > 0.14
    assert left[1] == pytest.approx(0.05, abs=1e-8)
    assert q[2] == 0.0 and left[2] == 0.0
    dev.step(q, DT, left)
    assert q[0] == 0.0 and q[1] == 0.0


def test_full_battery_and_fig9b_start_charges():
    dev = device()
    q = np.array([0.25, 0.5, 0.75, 1.0])
    want = np.array([TMAX - cubic_root(*dev.coefficients, TMAX, x) for x in q])
    _, empty = run_to_empty(dev, q.copy())
    np.testing.assert_allclose(empty * DT, want, atol=DT + 1e-9)
    assert empty[-1] * DT == pytest.approx(425.2, abs=0.11)   # spec: ≈ 425.1 s from full
    assert np.all(np.diff(empty) > 0)


# ------------------------------------------------------------------ the device
def test_device_protocol_and_first_tick():
    dev = device(start_charge=0.75)
    assert dev.name == "battery" and dev.scalar
    out = dev.allocate(5)
    assert out.dtype == np.float64 and out.shape == (5,) and np.all(out == 0.75)
    state = dev.make_state(5)
    assert state.shape == (5,)
    np.testing.assert_allclose(state, TMAX - cubic_root(*dev.coefficients, TMAX, 0.75))
    group = SimpleNamespace(slice=slice(0, 5), n=5)
    dev.plan(world(0), group, None, out, state)()        # tick 0: no discharge
    assert np.all(out == 0.75)
    before = state.copy()
    dev.plan(world(1), group, None, out, state)()
    assert np.all(out < 0.75) and np.all(out == out[0])
    np.testing.assert_allclose(state, before - DT, atol=1e-9)


def test_device_refuses_a_non_positive_dt():
    dev = device()
    with pytest.raises(ValueError, match="dt_s"):
        dev.step(np.ones(2), 0.0, np.empty(2))


def test_options_schema():
    o = CrazyflieBatteryOptions()
    assert o.enabled and o.start_charge == 1.0 and o.data_file is None
    for bad in ({"start_charge": 1.5}, {"start_charge": -0.1}, {"model": "cubic"}):
        with pytest.raises(ValidationError):
            CrazyflieBatteryOptions(**bad)
    with pytest.raises(ValidationError):
        o.start_charge = 0.5   # frozen


# ------------------------------------------------------------------ data files
def write(tmp_path, rows, name="cf.csv", header=HEADER):
    path = tmp_path / name
    path.write_text("# test table\n" + header + "\n" + "\n".join(rows) + "\n")
    return path


def test_replacement_file_takes_effect_relative_to_base_dir(tmp_path):
    # a gentler battery: linear 1.0 → 0.2 over 600 s
    write(tmp_path, ["0,1.0,-1.3333333333e-03,0,0,600.05,0.2"], name="slow.csv")
    dev = battery_device(CrazyflieBatteryOptions(data_file="slow.csv"), base_dir=tmp_path)
    assert dev.tmax_s == 600.05
    assert dev.model.table.source == str(tmp_path / "slow.csv")
    _, empty = run_to_empty(dev, np.array([1.0]))
    assert empty[0] == 6001   # t* = 0; empty once k·dt > 600.05


def test_more_than_one_row_is_refused(tmp_path):
    path = write(tmp_path, [SHIPPED_ROW, "1" + SHIPPED_ROW[1:]])
    with pytest.raises(BatteryTableError, match=r"cf\.csv: 2 data rows; expected exactly one"):
        load_crazyflie_model(path)


@pytest.mark.parametrize("rows, header, message", [
    ([SHIPPED_ROW], "speed,p0,p1,p2,p3,tmax,q", r"cf\.csv:2: header is"),
    (["0,1.009061,-4.5e-03,1.58e-05"], HEADER, r"cf\.csv:3: 4 values; expected 7"),
    (["0,1.009061,abc,1.582833e-05,-2.347383e-08,427.21,0.1423"], HEADER,
     r"cf\.csv:3: column 'p1_per_s' is 'abc'; expected a number"),
    (["0,1.009061,4.506692e-03,1.582833e-05,-2.347383e-08,427.21,0.1423"], HEADER,
     r"cf\.csv:3: the cubic is not decreasing"),
    (["0,1.009061,-4.506692e-03,1.582833e-05,-2.347383e-08,427.21,0.5"], HEADER,
     r"cf\.csv:3: charge_at_tmax is 0.5 but the cubic gives"),
    (["0,1.009061,-4.506692e-03,1.582833e-05,-2.347383e-08,-1,0.1423"], HEADER,
     r"cf\.csv:3: tmax_s is -1.0; expected a positive time"),
    ([], HEADER, r"cf\.csv: no data rows"),
])
def test_bad_files_name_the_file_and_line(tmp_path, rows, header, message):
    path = write(tmp_path, rows, header=header)
    with pytest.raises(BatteryTableError, match=message):
        battery_device(CrazyflieBatteryOptions(data_file=str(path)))


def test_missing_huge_binary_and_non_regular_files(tmp_path):
    with pytest.raises(BatteryTableError, match=r"nope\.csv: cannot read"):
        battery_device(CrazyflieBatteryOptions(data_file="nope.csv"), base_dir=tmp_path)
    with pytest.raises(BatteryTableError, match=r"not a regular file"):
        load_crazyflie_model(tmp_path)   # a directory
    big = tmp_path / "big.csv"
    big.write_bytes(b"#" * (MAX_FILE_BYTES + 10))
    with pytest.raises(BatteryTableError, match=r"big\.csv: battery data file larger than"):
        load_crazyflie_model(big)
    binary = tmp_path / "bin.csv"
    binary.write_bytes(b"# x\n\xff\xfe\n")
    with pytest.raises(BatteryTableError, match=r"bin\.csv:2: battery data file is not UTF-8"):
        load_crazyflie_model(binary)
    if hasattr(os, "mkfifo"):
        fifo = tmp_path / "pipe.csv"
        os.mkfifo(fifo)
        with pytest.raises(BatteryTableError, match=r"pipe\.csv: .*not a regular file"):
            load_crazyflie_model(fifo)


# ------------------------------------------------------------------ the validation
def run_validation(tmp_path):
    import importlib

    module = importlib.import_module(reproduce._MODULES["crazyflie-battery"])
    tmp_path.mkdir(parents=True, exist_ok=True)
    return module.reproduce(tmp_path, quick=True)


def test_validation_is_inside_tolerance(tmp_path):
    result = run_validation(tmp_path)
    assert result.ok, [(r.quantity, r.paper, r.ours) for r in result.rows if not r.ok]
    assert any(f.suffix == ".png" for f in result.files)
    assert all(f.exists() for f in result.files)
    assert "not published" in result.notes
    assert "crazyflie-battery" in reproduce.names()


def test_validation_reference_side_is_literal():
    import importlib

    source = Path(importlib.import_module(
        reproduce._MODULES["crazyflie-battery"]).__file__).read_text()
    for literal in ("-2.347383e-08", "1.582833e-05", "-4.506692e-03", "1.009061", "427.21"):
        assert literal in source
    assert "crazyflie_cubic.csv" not in source


@pytest.mark.parametrize("row, failing", [
    # A 2 % steeper: the curve, the times to empty and the drop move
    ("0,1.009061,-4.506692e-03,1.582833e-05,-2.394331e-08,427.21,0.1057",
     "A, coefficient of t³ (Fig. 9a; the authors' plug-in source)"),
    # Tmax 10 s short
    ("0,1.009061,-4.506692e-03,1.582833e-05,-2.347383e-08,417.21,0.1793",
     "maximum flight time Tmax (§4.3.1)"),
])
def test_validation_fails_with_a_patched_coefficient(tmp_path, monkeypatch, row, failing):
    path = write(tmp_path, [row], name="mutated.csv")
    monkeypatch.setattr(power_battery, "CRAZYFLIE_FILE", str(path))
    result = run_validation(tmp_path / "out")
    assert not result.ok
    bad = [r.quantity for r in result.rows if not r.ok]
    assert failing in bad
    assert any("time to empty" in q for q in bad)


def test_validation_flies_registered_drones(tmp_path):
    from swarmstack.robots import ROBOT_TYPES

    if "crazyflie" not in ROBOT_TYPES or "battery" not in ROBOT_TYPES["crazyflie"].devices:
        pytest.skip("no crazyflie robot type with a battery registered")
    result = run_validation(tmp_path)
    assert "drones of the registered crazyflie type" in result.notes
    assert result.ok, [(r.quantity, r.paper, r.ours) for r in result.rows if not r.ok]


def test_validation_without_the_drone_type_drives_the_device_directly(tmp_path, monkeypatch):
    from swarmstack.robots import base

    monkeypatch.delitem(base.ROBOT_TYPES, "crazyflie", raising=False)
    result = run_validation(tmp_path)
    assert "minimal world of E-Puck2 robots" in result.notes
    assert result.ok, [(r.quantity, r.paper, r.ours) for r in result.rows if not r.ok]
