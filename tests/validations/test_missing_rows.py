"""The validations of results the papers publish that had none: the E-Puck2 ground sensor
(``epuck2-ground``), the RVR's proximity sensors and lidar (``rvr-ranging``), and the rows that
list a published result as not reproducible, with why."""

import pytest

from swarmstack.cli.reproduce import verdict
from swarmstack.validations import buzz_barrier, buzz_vs_consensus, epuck2_ground, rvr_ranging


def failing(result):
    return [r.quantity for r in result.rows if not r.ok]


def test_ground_sensor_reads_the_papers_range(tmp_path):
    result = epuck2_ground.reproduce(tmp_path)
    assert failing(result) == []
    assert result.ok


def test_ground_sensor_with_another_full_scale_fails(tmp_path, monkeypatch):
    monkeypatch.setattr("swarmstack.robots.epuck2.GROUND_FULL_SCALE", 1000)
    bad = failing(epuck2_ground.reproduce(tmp_path))
    assert [q.split(" (")[0] for q in bad] == ["grey floor", "white floor"]


def test_rvr_ranging_reproduces_the_reports_ranges_and_noise_shapes(tmp_path):
    result = rvr_ranging.reproduce(tmp_path, quick=True)
    assert failing(result) == []


@pytest.mark.parametrize("constant, wrong, quantity", [
    ("PROX_MIN_M", 0.02, "front proximity, obstacle 0.03 m away"),
    ("LIDAR_RAYS", 720, "lidar readings per scan"),
    ("LIDAR_MAX_M", 15.0, "lidar, obstacle 13 m away"),
])
def test_rvr_ranging_fails_on_a_wrong_constant(tmp_path, monkeypatch, constant, wrong,
                                               quantity):
    monkeypatch.setattr(f"swarmstack.robots.rvr.{constant}", wrong)
    bad = failing(rvr_ranging.reproduce(tmp_path, quick=True))
    assert [q for q in bad if q.startswith(quantity)] != []


def test_rvr_lidar_noise_that_is_normal_fails_the_uniform_shape(tmp_path, monkeypatch):
    import numpy as np

    real = rvr_ranging._read

    def normal_lidar(face_x, ticks=1, prox=None, lidar=None):
        p, li = real(face_x, ticks, prox, {"noise_width": 0.0} if lidar else lidar)
        if lidar:   # the noisy read: replace the lidar's noise by a normal one
            li = li + np.random.default_rng(1).normal(0.0, 0.005, li.shape)
        return p, li

    monkeypatch.setattr(rvr_ranging, "_read", normal_lidar)
    bad = failing(rvr_ranging.reproduce(tmp_path, quick=True))
    assert [q for q in bad if q.startswith("lidar noise shape")] != []


def test_unreproducible_results_say_why():
    rows = buzz_barrier.field_rows() + buzz_vs_consensus.thesis_resource_rows()
    listed = [r for r in rows if verdict(r).startswith("not reproducible: ")]
    assert len(listed) == 6
    assert all(r.informative for r in rows)
    vs = rows[2]
    assert vs.quantity.startswith("Table 4.2: memory of the VS script")
    assert 0.1 < vs.ours_value < 10.0   # kB of bytecode, as the thesis's 0.732 kB
