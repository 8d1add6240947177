"""The ``epuck2-*`` validations in their quick form, and mutations: each one must fail when a
constant of the E-Puck2 model is wrong (patched where the device factories read it), so that
their reference side is the paper's numbers, not the model's own."""

import importlib
import math
from pathlib import Path

import pytest

from swarmstack import validations as reproduce
from swarmstack.power import battery as power_battery
from swarmstack.robots import epuck2
from tests.validations.quick import failing, run

NAMES = ["epuck2-proximity", "epuck2-light", "epuck2-tof", "epuck2-encoders", "epuck2-battery",
         "epuck2-camera"]


@pytest.mark.parametrize("name", NAMES)
def test_quick_validation_is_inside_tolerance(name, tmp_path):
    result = run(name, tmp_path)
    assert result.ok, [(r.quantity, r.paper, r.ours) for r in result.rows if not r.ok]
    pngs = [f for f in result.files if f.suffix == ".png"]
    assert pngs and all(f.exists() for f in result.files)


def test_reference_literals_are_not_the_model_constants():
    # the validation modules state the paper's numbers themselves; none reads the model's
    for name in NAMES:
        source = Path(importlib.import_module(reproduce._MODULES[name]).__file__).read_text()
        assert "robots import epuck2" not in source and "epuck2." not in source, name


ANGLES_ROW = "sensor angles 1–8 (° clockwise from the front), Table 3: the sensor farthest from it"


def _front_sensors_at(deg):
    a = list(epuck2.IR_ANGLES_RAD)
    a[0], a[7] = -math.radians(deg), math.radians(deg)
    return tuple(a)


# ---------------------------------------------------------------------------- proximity
def test_proximity_fails_with_the_plugin_front_angles(tmp_path, monkeypatch):
    # the ARGoS plug-in's ±17° for the front pair, not Table 3's 15°
    monkeypatch.setattr(epuck2, "IR_ANGLES_RAD", _front_sensors_at(17.0))
    assert failing(run("epuck2-proximity", tmp_path)) == [ANGLES_ROW]


def test_proximity_fails_with_counter_clockwise_angles(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "IR_ANGLES_RAD", tuple(-a for a in epuck2.IR_ANGLES_RAD))
    assert ANGLES_ROW in failing(run("epuck2-proximity", tmp_path))


def test_proximity_fails_with_the_epuck1_polynomial(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "PROXIMITY_EQ1", (298.701, -36.8961, 1.08212))
    bad = failing(run("epuck2-proximity", tmp_path))
    assert "PROX0 (sensor 1): max |reading − Eq. 1| over the sweep" in bad


def test_proximity_fails_with_a_short_range(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "PROXIMITY_RANGE_M", 0.04)
    assert "PROX0 (sensor 1): max |reading − Eq. 1| over the sweep" in \
        failing(run("epuck2-proximity", tmp_path))


# ---------------------------------------------------------------------------- light
def test_light_fails_with_a_wrong_gamma(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "LIGHT_GAMMA", 0.08)
    assert "PROX0: γ fitted to the readings (i = 0.5, 1, 2), Eq. 2 (§4.1.2)" in \
        failing(run("epuck2-light", tmp_path))


def test_light_fails_with_a_short_range(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "LIGHT_RANGE_M", 0.40)
    assert "PROX0, i = 1: sees the light up to, then 4095 (§3.2, Eq. 2)" in \
        failing(run("epuck2-light", tmp_path))


def test_light_fails_with_the_plugin_front_angles(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "IR_ANGLES_RAD", _front_sensors_at(17.0))
    assert ("light sensor angles 1–8 (° clockwise from the front), Table 3: the sensor "
            "farthest from it") in failing(run("epuck2-light", tmp_path))


# ---------------------------------------------------------------------------- ToF
def test_tof_fails_without_the_20_mm_floor(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "TOF_MIN_MM", 0)
    bad = failing(run("epuck2-tof", tmp_path))
    assert "reading once the body touches the obstacle (mm)" in bad
    assert "lowest reading ever (mm)" in bad


def test_tof_fails_with_a_short_maximum(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "TOF_MAX_MM", 1500)
    assert "obstacle 190 cm from the centre (mm)" in failing(run("epuck2-tof", tmp_path))


def test_tof_fails_with_the_sensor_outside_the_body(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "TOF_POSITION_M", (0.05, 0.0, 0.036))
    assert "first reading, obstacle 30 cm from the centre (mm)" in \
        failing(run("epuck2-tof", tmp_path))


# ---------------------------------------------------------------------------- encoders
def test_encoders_fail_with_a_wrong_wheel(tmp_path, monkeypatch):
    # a 40 mm wheel instead of 41 mm: 2.5 % more steps per metre
    monkeypatch.setattr(epuck2, "ENCODER_STEPS_PER_M", 1000 / (math.pi * 0.040))
    bad = failing(run("epuck2-encoders", tmp_path))
    assert "backward 10 cm/s: max |counter − reference| over 5 s" in bad
    assert "turning: angle from the counters vs the simulated heading" in bad


def test_encoders_fail_when_counting_the_wrong_way(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "ENCODER_STEPS_PER_M", -epuck2.ENCODER_STEPS_PER_M)
    bad = failing(run("epuck2-encoders", tmp_path))
    assert "spinning: left and right counters (final)" in bad
    assert "0.18° per tick forwards: counter after ticks 1–4" in bad


# ---------------------------------------------------------------------------- battery
def test_battery_fails_when_spinning_counts_as_static(tmp_path, monkeypatch):
    # no wheel travel credited to turning on the spot (read when the device is built)
    monkeypatch.setattr(power_battery, "EPUCK2_SPIN_RADIUS_M", 0.0)
    bad = failing(run("epuck2-battery", tmp_path))
    assert any(q.startswith("Simple, moving robots") for q in bad)
    assert "Linear: mean autonomy spinning at 1–15 cm/s, 1/|fitted slope| (s)" in bad


def test_battery_fails_with_a_wrong_simple_slope(tmp_path, monkeypatch):
    data = tmp_path / "simple.csv"
    data.write_text("condition,slope_per_s\nstatic,-5.064963049e-05\nmoving,-8.8e-05\n")
    monkeypatch.setattr(power_battery, "EPUCK2_FILES",
                        {**power_battery.EPUCK2_FILES, "simple": str(data)})
    bad = failing(run("epuck2-battery", tmp_path / "out"))
    assert len(bad) == 1 and bad[0].startswith("Simple, moving robots")


def test_battery_fails_with_wrong_linear_slopes(tmp_path, monkeypatch):
    lines = power_battery.data_path("epuck2_linear.csv").read_text().splitlines()
    out = []
    for line in lines:
        parts = line.split(",")
        if line.startswith("#") or not parts[0].strip().isdigit():
            out.append(line)
        else:  # every slope 5 % steeper
            out.append(",".join([parts[0], repr(1.05 * float(parts[1]))] + parts[2:]))
    data = tmp_path / "linear.csv"
    data.write_text("\n".join(out) + "\n")
    monkeypatch.setattr(power_battery, "EPUCK2_FILES",
                        {**power_battery.EPUCK2_FILES, "linear": str(data)})
    bad = failing(run("epuck2-battery", tmp_path / "out"))
    assert "Linear: autonomy at rest, 1/|fitted slope| (s)" in bad
    assert "Linear: mean autonomy spinning at 1–15 cm/s, 1/|fitted slope| (s)" in bad


# ---------------------------------------------------------------------------- camera
def test_camera_fails_with_a_wider_view(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "CAMERA_HFOV_DEG", 31.0)
    assert "measured border at x = 263 mm: α (§4.1.6)" in \
        failing(run("epuck2-camera", tmp_path))


def test_camera_fails_with_a_short_range(tmp_path, monkeypatch):
    monkeypatch.setattr(epuck2, "CAMERA_RANGE_M", 0.8)
    assert failing(run("epuck2-camera", tmp_path)) == ["LED straight ahead at 95 / 105 cm"]
