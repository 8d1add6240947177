"""The ``rvr-*`` validations pass, and each fails when a constant of the RVR model is wrong
(patched where the device factories read it): their reference side is the report's numbers."""

import importlib
from pathlib import Path

import pytest

from swarmstack import validations as reproduce
from swarmstack.robots import rvr, rvr_reference
from swarmstack.sensors import quaternion, velocity
from tests.validations.quick import failing, run

NAMES = ["rvr-ground-noise", "rvr-imu", "rvr-neighbours"]


@pytest.mark.parametrize("name", NAMES)
def test_validation_passes_and_plots(name, tmp_path):
    result = run(name, tmp_path)
    assert result.ok, [(r.quantity, r.paper, r.ours) for r in result.rows if not r.ok]
    assert result.files and all(f.suffix == ".png" and f.exists() for f in result.files)


def test_registered_for_the_cli():
    assert set(NAMES) <= set(reproduce.names())


def test_reference_side_does_not_read_the_model():
    for name in NAMES:
        source = Path(importlib.import_module(reproduce._MODULES[name]).__file__).read_text()
        assert "import rvr" not in source and "rvr." not in source, name


@pytest.mark.parametrize("std", [4.0, 6.0])
def test_ground_noise_fails_with_a_wrong_sigma(tmp_path, monkeypatch, std):
    monkeypatch.setattr(rvr, "GROUND_NOISE_STD", std)
    assert any("standard deviation" in q for q in failing(run("rvr-ground-noise", tmp_path)))


def test_ground_noise_fails_with_a_biased_mean(tmp_path, monkeypatch):
    monkeypatch.setattr(rvr, "GROUND_NOISE_MEAN", 1.0)
    assert any("mean error" in q for q in failing(run("rvr-ground-noise", tmp_path)))


def test_imu_fails_with_standard_gravity(tmp_path, monkeypatch):
    monkeypatch.setattr(rvr, "ACCELEROMETER_G_M_S2", 9.80665)
    assert any(q.startswith("accelerometer") for q in failing(run("rvr-imu", tmp_path)))


def test_imu_fails_when_velocity_ignores_the_boot_frame(tmp_path, monkeypatch):
    monkeypatch.setattr(velocity.quaternion, "boot_relative",
                        lambda bodies, sl, state: quaternion.of_bodies(bodies, sl))
    assert any(q.startswith("velocity") for q in failing(run("rvr-imu", tmp_path)))


def test_neighbours_fail_when_the_lidar_keeps_farther_readings(tmp_path, monkeypatch):
    monkeypatch.setattr(rvr_reference, "CLUSTER_MAX_M", 1.0)
    assert failing(run("rvr-neighbours", tmp_path))


def test_neighbours_fail_with_a_coarse_distance_threshold(tmp_path, monkeypatch):
    # thresholds far coarser than the report's 2 cm and 10° merge neighbours side by side
    monkeypatch.setattr(rvr_reference, "CLUSTER_DISTANCE_M", 0.30)
    monkeypatch.setattr(rvr_reference, "CLUSTER_ANGLE_RAD", 1.0)
    assert failing(run("rvr-neighbours", tmp_path))
