"""The reference model (Table 1) as Python, batched and Buzz controllers see it."""

import math

import numpy as np
import pytest

from swarmstack import BatchedController, Controller
from swarmstack.sim.simulation import Simulation
from swarmstack.robots import rvr
from swarmstack.robots.rvr_reference import clusters, prox_from_ranges
from tests.rvr.scenes import readings, rvr_sim


def test_prox_mapping_end_points():
    v = prox_from_ranges([-math.inf, 0.05, 0.3, 0.41, 1.5, math.inf])
    assert v[0] == 1.0 and v[-1] == 0.0 and v[3] == 0.0 and v[4] == 0.0
    assert v[1] == pytest.approx(math.exp(-0.05)) and v[2] == pytest.approx(math.exp(-0.3))


def test_prox_angles_are_in_0_2pi_from_the_head():
    sim = rvr_sim([(0, 0, 0)], {"reference": True})
    ang = readings(sim)["reference"]["prox_angle"][0]
    assert np.all((ang >= 0) & (ang < 2 * math.pi))
    assert ang == pytest.approx(np.mod(np.radians(rvr.PROX_ANGLES_DEG), 2 * math.pi))


def test_ground_is_the_labelled_colour_and_light_is_lux():
    floor = {"background": [230, 20, 10], "resolution": 0.01}
    lx, _, lz = rvr.LIGHT_POSITION_M
    sim = rvr_sim([(0, 0, 0)], {"reference": {"palette": ["red", "green"]}}, floor=floor,
                  lights=[{"position": [lx + 1.0, 0.0, lz], "intensity": 1.0}])
    rec = readings(sim)["reference"][0]
    assert list(rec["ground"]) == [255, 0, 0]
    assert float(rec["light"]) == pytest.approx(rvr.LIGHT_GAIN_LUX_M2)
    raw = rvr_sim([(0, 0, 0)], {"reference": {"ground": "raw", "ground_noise_std": 0.0}},
                  floor=floor)
    assert list(readings(raw)["reference"][0]["ground"]) == [230, 20, 10]


def test_neighbours_by_camera_and_by_lidar_agree():
    poses = [(0, 0, 0), (0.5, 0.2, 1.0), (-0.3, 0.45, 2.0), (2.0, -1.5, 0.0)]
    sim = rvr_sim(poses, {"reference": True}, size=(6, 6))
    rec = readings(sim)["reference"][0]
    assert rec["camera_count"] == 3                      # within 10 m, beacons above bodies
    order = np.argsort(rec["camera_distance"][:3])
    d_cam = rec["camera_distance"][:3][order]
    assert d_cam == pytest.approx(sorted([math.hypot(0.5, 0.2), math.hypot(0.3, 0.45),
                                          math.hypot(2.0, 1.5)]))
    assert rec["lidar_count"] == 2                       # the far one is beyond 0.75 m
    lid = sorted(zip(rec["lidar_distance"][:2], rec["lidar_angle"][:2]))
    for (d, a), (x, y) in zip(lid, sorted([(0.5, 0.2), (-0.3, 0.45)],
                                          key=lambda p: math.hypot(*p))):
        assert a == pytest.approx(math.atan2(y, x) % (2 * math.pi), abs=math.radians(1))
        assert 0.0 < math.hypot(x, y) - d < 0.1
    assert rec["neighbours"] == 3                        # default: the camera's
    assert np.isinf(rec["lidar_distance"][2])


def test_beacons_are_hidden_by_tall_obstacles():
    sim = rvr_sim([(0, 0, 0), (1.0, 0, 0)], {"reference": True}, size=(6, 6),
                  boxes=[{"center": [0.5, 0.0], "size": [0.05, 1.0, 0.5]}])
    assert readings(sim)["reference"]["camera_count"][0] == 0


def test_clustering_merges_a_robot_across_the_start_of_the_scan():
    k = 719
    ang = math.pi / 16 + 2 * math.pi / k * np.arange(k)
    scan = np.full(k, 12.0)
    scan[:4] = 0.5
    scan[-4:] = 0.5
    count, dist, angle = clusters(scan, ang)
    assert count[0] == 1 and dist[0, 0] == pytest.approx(0.5)
    assert angle[0, 0] == pytest.approx((math.pi / 16 - 0.5 * 2 * math.pi / k) % (2 * math.pi))


def test_clustering_splits_by_2cm_and_drops_small_clusters():
    k = 719
    ang = math.pi / 16 + 2 * math.pi / k * np.arange(k)
    scan = np.full(k, 12.0)
    scan[100:110] = 0.40
    scan[110:120] = 0.43       # 3 cm further: a second neighbour
    scan[300:303] = 0.6        # 3 readings: noise
    scan[400:410] = 0.9        # beyond 0.75 m
    count, dist, _ = clusters(scan, ang)
    assert count[0] == 2 and list(dist[0, :2]) == pytest.approx([0.40, 0.43])


class Drive(Controller):
    def step(self, robot):
        rm = robot.reference
        robot.set_treads(10, 10 if rm["camera_count"] >= 0 else 0)


class DriveAll(BatchedController):
    def step(self, group):
        assert group.reference["prox"].shape == (group.n, 8)
        group.wheels[:] = 0.1


@pytest.mark.parametrize("ctrl", ["tests.rvr.test_reference:Drive",
                                  "tests.rvr.test_reference:DriveAll"])
def test_python_controllers_read_the_record(ctrl):
    sim = rvr_sim([(0, 0, 0), (1, 1, 0)], {"reference": True}, controller={"python": ctrl})
    sim.run(10)
    assert sim.world.bodies.x[0] == pytest.approx(0.1, abs=1e-9)


def test_buzz_sees_the_reference_model(tmp_path):
    script = tmp_path / "rm.bzz"
    script.write_text(
        "function init() {}\n"
        "function step() {\n"
        "  log(reference.neighbours.count, \" \", reference.lidar.count, \" \",\n"
        "      reference.ground.red, \" \", reference.proximity[1].value)\n"
        "  set_treads(10, 10)\n"
        "}\n")
    logs = []
    cfg = {"arena": {"size": [4.0, 4.0]},
           "floor": {"background": [255, 0, 0]},
           "robots": [{"name": "rvr", "type": "rvr",
                       "placement": {"kind": "explicit", "poses": [[0, 0, 0], [0.5, 0, 0]]},
                       "sensors": {"reference": True}, "controller": {"buzz": str(script)}}]}
    sim = Simulation.from_dict(cfg, seed=0, on_log=lambda *a: logs.append(a[-1]))
    sim.start()
    sim.run(1)
    n, nl, red, prox = logs[0].split()
    assert (int(n), int(nl), int(red)) == (1, 1, 255)
    assert float(prox) > 0.5                      # the other RVR right ahead
    assert sim.world.bodies.x[0] == pytest.approx(0.01, abs=1e-9)   # 10 cm/s for 0.1 s


def test_the_reference_record_is_logged_one_column_per_field_element(tmp_path):
    import duckdb

    from swarmstack.experiments.config import parse_experiment
    from swarmstack.experiments.runner import run_experiment

    cfg = parse_experiment({
        "simulation": {"ticks": 3}, "arena": {"size": [4.0, 4.0], "walls": True},
        "robots": [{"name": "r", "type": "rvr", "count": 2, "sensors": {"reference": True}}],
        "output": {"sensors": ["reference"]}})
    run_experiment(cfg, tmp_path)
    rows = duckdb.sql(f"SELECT * FROM '{tmp_path}/sensors/r/*.parquet' ORDER BY tick, robot")
    cols = rows.columns
    assert {"reference_prox_0", "reference_prox_7", "reference_light", "reference_ground_2",
            "reference_lidar_count", "reference_camera_distance_15"} <= set(cols)
    assert rows.shape[0] == 2 * 4      # ticks 0…3
