"""Validations judged on the papers' literal numbers: two-sided rows, informative rows for a
paper's own gap, numbers in ``--json``, and mutations -- a wrong model constant or a heavier wire
format makes the command's verdict fail, while the command as shipped passes."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from swarmstack.buzz.swarm import messages
from swarmstack.buzz.swarm.outqueue import OutQueue
from swarmstack.cli import app
from swarmstack.validations import Reproduction, Row, sim_bandwidth
from swarmstack.power import battery as power_battery
from swarmstack.robots import epuck2
from tests.validations.quick import failing, run

finite = st.floats(-1e6, 1e6, allow_nan=False)


# ---------------------------------------------------------------------------- Row, Reproduction
# tolerances far above the rounding of paper ± tol (|paper| ≤ 1e6: a few 1e-10)
@given(paper=finite, tol=st.floats(1e-6, 1e3, allow_nan=False), over=st.floats(1e-3, 1e3))
def test_within_is_two_sided(paper, tol, over):
    for sign in (-1.0, 1.0):
        assert Row.within("q", paper, paper + sign * tol * 0.999, tol).ok
        assert not Row.within("q", paper, paper + sign * (tol + over), tol).ok


def test_a_nan_never_agrees():
    assert not Row.within("q", 1.0, float("nan"), 10.0).ok


def test_informative_rows_do_not_count():
    judged = Row.within("judged", 1.0, 1.0, 0.1)
    gap = Row.within("paper's gap", 0.5, 0.25, 0.01, informative=True)
    assert not gap.ok
    assert Reproduction("x", "x", [judged, gap]).ok
    assert not Reproduction("x", "x", [gap]).ok          # nothing judged: no verdict
    assert not Reproduction("x", "x", [Row.within("bad", 1.0, 2.0, 0.1), gap]).ok


# ---------------------------------------------------------------------------- epuck2-light
def _row(result, start):
    rows = [r for r in result.rows if r.quantity.startswith(start)]
    assert len(rows) == 1, start
    return rows[0]


def test_light_judges_eq2_and_shows_the_robots_gap(tmp_path):
    result = run("epuck2-light", tmp_path)
    assert result.ok, failing(result)
    model = _row(result, "light sensed at 20 cm / at 10 cm")
    assert (model.paper_value, model.informative) == (0.25, False)
    gap = _row(result, "paper's own gap, 20 cm / 10 cm")
    assert gap.informative and not gap.ok
    assert gap.paper_value == pytest.approx(0.50) and gap.ours_value == pytest.approx(0.25)


def test_light_verdict_fails_with_a_wrong_gamma(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "LIGHT_GAMMA", 0.0765)        # 2 % off Eq. 2's 0.075
    result = run("epuck2-light", tmp_path)
    assert not result.ok
    assert "PROX0: γ fitted to the readings (i = 0.5, 1, 2), Eq. 2 (§4.1.2)" in failing(result)


# ---------------------------------------------------------------------------- crazyflie-battery
def test_battery_verdict_fails_with_a_wrong_coefficient(tmp_path, monkeypatch):
    assert run("crazyflie-battery", tmp_path / "shipped").ok
    # B 0.1 % larger than the paper's 1.582833e-05
    path = tmp_path / "cubic.csv"
    path.write_text("speed_cm_s,p0,p1_per_s,p2_per_s2,p3_per_s3,tmax_s,charge_at_tmax\n"
                    "0,1.009061,-4.506692e-03,1.584416e-05,-2.347383e-08,427.21,0.1452\n")
    monkeypatch.setattr(power_battery, "CRAZYFLIE_FILE", str(path))
    result = run("crazyflie-battery", tmp_path / "mutated")
    assert not result.ok
    bad = failing(result)
    assert "B, coefficient of t² (Fig. 9a; the authors' plug-in source)" in bad
    assert "A, coefficient of t³ (Fig. 9a; the authors' plug-in source)" not in bad


def test_battery_mse_is_not_judged(tmp_path):
    result = run("crazyflie-battery", tmp_path)
    mse = [r for r in result.rows if r.quantity.startswith("MSE")]
    assert len(mse) == 1 and mse[0].informative and mse[0].paper_value == 0.002114
    assert mse[0].ours_value is None


# ---------------------------------------------------------------------------- sim-bandwidth
def test_bandwidth_measures_uncapped_and_passes(tmp_path):
    result = sim_bandwidth.validate(tmp_path, quick=True)
    assert result.ok, failing(result)
    for r in result.rows:
        assert 0 < r.ours_value < r.paper_value + r.tolerance
    largest = [r for r in result.rows if r.quantity.startswith("Fig. 8: largest frame")]
    assert [r.paper_value + r.tolerance for r in largest] == [250.0, 250.0]


def test_bandwidth_verdict_fails_with_a_heavier_wire_format(tmp_path, monkeypatch):
    # every frame 200 B heavier (an ignored broadcast appended): what a wire format without
    # varints or with a per-frame header would cost
    pad = messages.encode_broadcast("", "x" * 190)
    shipped = OutQueue.pack

    def heavier(self, cap):
        frame = shipped(self, cap)
        return frame + bytes([len(pad)]) + pad if frame else frame

    monkeypatch.setattr(OutQueue, "pack", heavier)
    result = sim_bandwidth.validate(tmp_path, quick=True)
    assert not result.ok
    bad = failing(result)
    assert [q for q in bad if "moving average" in q] == [
        f"Fig. 8 / §VI: highest 30-step moving average of one robot's bytes per step, barrier, "
        f"{p:.0%} loss" for p in sim_bandwidth.BARRIER_DROPS]


def test_bandwidth_fails_when_the_radio_caps_the_frames(tmp_path):
    # a 40 B radio cuts the barrier's frames: the sizes are no longer what the script needs
    result = sim_bandwidth.validate(tmp_path, quick=True, payload_bytes=40)
    assert not result.ok
    assert any("capped" in r.ours for r in result.rows if not r.ok)


# ---------------------------------------------------------------------------- numbers in rows
@pytest.mark.parametrize("name", ["epuck2-light", "epuck2-tof", "epuck2-proximity",
                                  "epuck2-encoders", "epuck2-battery", "crazyflie-battery",
                                  "sim-bandwidth"])
def test_every_judged_row_carries_its_numbers(name, tmp_path):
    result = run(name, tmp_path)
    assert result.ok, failing(result)
    for r in result.rows:
        assert isinstance(r.paper_value, float), r.quantity
        if not r.informative:
            assert isinstance(r.ours_value, float) and isinstance(r.tolerance, float), r.quantity
            assert abs(r.ours_value - r.paper_value) <= r.tolerance, r.quantity


# ---------------------------------------------------------------------------- --json
def test_json_rows_carry_the_numbers(tmp_path):
    out = CliRunner().invoke(app, ["reproduce", "crazyflie-battery", "--json",
                                   "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["ok"] is True
    for row in doc["rows"]:
        assert {"paper_value", "ours_value", "tolerance", "unit", "informative"} <= set(row)
        assert isinstance(row["paper_value"], float)
        if not row["informative"]:
            assert isinstance(row["ours_value"], float) and isinstance(row["tolerance"], float)
            assert row["ok"] is (abs(row["ours_value"] - row["paper_value"])
                                 <= row["tolerance"])
    assert [r["quantity"][:3] for r in doc["rows"] if r["informative"]] == ["MSE"]


def test_table_marks_informative_rows(tmp_path):
    out = CliRunner().invoke(app, ["reproduce", "crazyflie-battery", "--out", str(tmp_path)])
    assert out.exit_code == 0, out.output
    assert "info" in out.stdout and "NO" not in out.stdout
