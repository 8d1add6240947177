"""The RVR's sensors of the report's §4.2, each against the geometry or law it models."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.robots import rvr
from swarmstack.sensors import quaternion as quat
from swarmstack.sensors.colour_labeller import label
from tests.rvr.scenes import commands, readings, rvr_sim

WALL = 0.1   # wall thickness


def test_colour_ground_is_the_floor_colour_with_n05_noise():
    floor = {"background": [120, 60, 200], "resolution": 0.01}
    poses = [(-1.5 + 0.5 * (i % 7), -1.5 + 0.5 * (i // 7), 0.1 * i) for i in range(42)]
    sim = rvr_sim(poses, {"ground_color": True}, floor=floor)
    samples = []
    for _ in range(30):
        samples.append(readings(sim)["ground_color"].copy())
        sim.step()
    err = np.concatenate(samples).astype(float) - [120, 60, 200]
    assert np.abs(err.mean(axis=0)).max() < 0.5
    assert err.std(axis=0) == pytest.approx([5.0, 5.0, 5.0], abs=0.4)


def test_colour_ground_clamps_to_0_255():
    floor = {"background": [255, 0, 0], "resolution": 0.01}
    sim = rvr_sim([(0, 0, 0), (1, 1, 0)], {"ground_color": True}, floor=floor)
    s = []
    for _ in range(200):
        s.append(readings(sim)["ground_color"].copy())
        sim.step()
    s = np.concatenate(s)
    assert s.min() >= 0 and s.max() <= 255
    # E[min(0, N(0, 5))] = −5/√(2π): the clamp keeps half of the noise
    assert (s[:, 0] - 255).mean() == pytest.approx(-5 / math.sqrt(2 * math.pi), abs=0.4)


def test_colour_ground_noise_mean_and_sigma_are_configurable():
    floor = {"background": [100, 100, 100], "resolution": 0.01}
    poses = [(-1.5 + 0.5 * (i % 7), -1.5 + 0.5 * (i // 7), 0.0) for i in range(42)]
    sim = rvr_sim(poses, {"ground_color": {"noise_mean": 10.0, "noise_std": 2.0}}, floor=floor)
    s = []
    for _ in range(20):
        s.append(readings(sim)["ground_color"].copy())
        sim.step()
    s = np.concatenate(s).astype(float) - 100
    assert s.mean() == pytest.approx(10.0, abs=0.3)
    assert s.std() == pytest.approx(2.0, abs=0.3)


def test_noise_streams_are_per_robot_and_reproducible():
    floor = {"background": [100, 100, 100], "resolution": 0.01}
    a = rvr_sim([(0, 0, 0), (1, 1, 0)], {"ground_color": True, "lidar": {"noise_width": 0.05}},
                floor=floor, walls={"height": 0.3})
    b = rvr_sim([(0, 0, 0), (1, 1, 0)], {"ground_color": True, "lidar": {"noise_width": 0.05}},
                floor=floor, walls={"height": 0.3})
    for _ in range(3):
        a.step()
        b.step()
    for k in ("ground_color", "lidar"):
        assert np.array_equal(readings(a)[k], readings(b)[k])
    g = readings(a)["ground_color"]
    assert not np.array_equal(g[0], g[1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(*(st.integers(0, 255),) * 3), min_size=1, max_size=6),
       st.tuples(*(st.integers(0, 255),) * 3))
def test_labeller_picks_the_nearest_label(palette, rgb):
    d = [sum((a - b) ** 2 for a, b in zip(rgb, p)) for p in palette]
    assert label(rgb, palette) == int(np.argmin(d))   # Eqs. 1–2, first label on ties


def test_fixed_color_labels_the_ground_reading():
    floor = {"background": [200, 40, 30], "resolution": 0.01}
    sim = rvr_sim([(0, 0, 0)], {"ground_color": True,
                                "fixed_color": {"palette": ["red", "green", "blue"]}},
                  floor=floor)
    assert list(readings(sim)["fixed_color"][0]) == [255, 0, 0, 0]


def _scripted(sensors, wheels_by_tick, ticks, yaw0=0.3):
    sim = rvr_sim([(0.0, 0.0, yaw0)], sensors, size=(10, 10))
    out = []
    for t in range(ticks):
        commands(sim)["wheels"][:] = wheels_by_tick(t)
        sim.step()
        out.append({k: v[0].copy() for k, v in readings(sim).items()})
    return sim, out


def test_velocity_is_eq5_in_the_boot_frame():
    v_l, v_r = 0.10, 0.16
    sim, out = _scripted({"velocity": True}, lambda t: (v_l, v_r), 15)
    omega = (v_r - v_l) / rvr.TREAD_SPACING_M
    for t, r in enumerate(out, start=1):
        alpha = omega * t * 0.1           # relative to the boot heading
        v = 0.5 * (v_l + v_r)
        assert r["velocity"] == pytest.approx([v * math.cos(alpha), v * math.sin(alpha)],
                                              abs=1e-9)


def test_accelerometer_is_eq9_in_g():
    sim, out = _scripted({"accelerometer": True},
                         lambda t: (0.0, 0.0) if t < 3 else (0.2, 0.2), 6)
    # tick 4 (index 3): the speed jumped from 0 to 0.2 m/s in 0.1 s → 0.2 / (9.81 · 0.1) g
    assert out[3]["accelerometer"] == pytest.approx([0.2 / 0.981, 0.0, 0.0], abs=1e-9)
    assert out[4]["accelerometer"] == pytest.approx([0.0, 0.0, 0.0], abs=1e-12)


def test_gyroscope_is_eq11():
    sim, out = _scripted({"gyroscope": True}, lambda t: (-0.0735, 0.0735), 5)
    for r in out:
        assert r["gyroscope"] == pytest.approx([0.0, 0.0, 1.0], abs=1e-9)


def test_imu_locator_quaternion():
    sim, out = _scripted({"imu": True, "locator": True, "quaternion": True},
                         lambda t: (0.1, 0.1), 10, yaw0=0.5)
    r = out[-1]
    assert r["imu"] == pytest.approx([0.0, 0.0, 0.5])          # shared north: absolute yaw
    assert r["locator"] == pytest.approx([0.1 * math.cos(0.5), 0.1 * math.sin(0.5)])
    assert r["quaternion"] == pytest.approx([1.0, 0.0, 0.0, 0.0])   # no turn since boot


@settings(max_examples=40, deadline=None)
@given(st.floats(-3, 3), st.floats(-1, 1), st.floats(-1, 1), st.floats(-3, 3))
def test_quaternion_euler_round_trip(r, p, y, y2):
    q = quat.from_euler(r, p, y)
    assert quat.to_euler(q) == pytest.approx([r, p, y], abs=1e-9)
    rel = quat.multiply(quat.inverse(quat.from_euler(0, 0, y)), quat.from_euler(0, 0, y2))
    d = (y2 - y + math.pi) % (2 * math.pi) - math.pi
    assert quat.to_euler(rel)[2] == pytest.approx(d, abs=1e-9)


def _wall_ahead(gap):
    """A wall whose face is ``gap`` m in front of the proximity ring at x = 0.143."""
    face = rvr.PROX_RING_M + gap
    return [{"center": [face + WALL / 2, 0.0], "size": [WALL, 3.0, 0.3]}]


def _moved_to(sim, x, y, yaw):
    """The robot carried to a pose placement would refuse (closer to a wall than its bounding
    circle), then sensed again."""
    b = sim.world.bodies
    b.x[0], b.y[0], b.yaw[0] = x, y, yaw
    sim.world.refresh_grid()
    sim.sense()
    return sim


@pytest.mark.parametrize("gap, expected", [(0.5, 0.5), (1.2, 1.2), (0.03, -math.inf),
                                           (2.5, math.inf)])
def test_proximity_range_and_codes(gap, expected):
    sim = rvr_sim([(-1.0, 0.0, 0.0)], {"proximity": {"noise_std": 0.0}}, size=(8, 8),
                  boxes=_wall_ahead(gap))
    _moved_to(sim, 0.0, 0.0, 0.0)
    assert readings(sim)["proximity"][0, 1] == pytest.approx(expected, abs=1e-9)   # idx1: 0°
    assert readings(sim)["proximity"][0, 5] == math.inf                            # 180°


def test_proximity_sees_another_rvr_as_its_box():
    # another RVR 0.6 m ahead, turned 45°: its corner points back at us
    sim = rvr_sim([(0.0, 0.0, 0.0), (0.6, 0.0, math.pi / 4)], {"proximity": {"noise_std": 0}})
    d = 0.6 - 0.143 * math.sqrt(2) - rvr.PROX_RING_M
    assert readings(sim)["proximity"][0, 1] == pytest.approx(d, abs=1e-9)


def test_lidar_ranges_codes_and_noise():
    gap = 1.0
    sim = rvr_sim([(0.0, 0.0, 0.0)], {"lidar": True}, size=(30, 30), boxes=_wall_ahead(gap))
    lid = readings(sim)["lidar"][0]
    assert lid.shape == (719,)
    ang = rvr.LIDAR_FIRST_ANGLE_RAD + 2 * math.pi / 719 * np.arange(719)
    face = rvr.PROX_RING_M + gap
    front = np.abs((ang + math.pi) % (2 * math.pi) - math.pi) < 0.5
    expect = face / np.cos(ang[front]) - rvr.LIDAR_RING_M
    assert lid[front] == pytest.approx(expect, abs=1e-9)
    assert np.all(lid[~front & (np.cos(ang) < 0)] == 12.0)      # nothing behind: "no return"
    noisy = rvr_sim([(0.0, 0.0, 0.0)], {"lidar": {"noise_width": 0.02, "no_hit": "zero"}},
                    size=(30, 30), boxes=_wall_ahead(gap))
    ln = readings(noisy)["lidar"][0]
    assert np.max(np.abs(ln[front] - expect)) <= 0.02
    assert np.std(ln[front] - expect) > 0.005
    assert np.all(ln[~front & (np.cos(ang) < 0)] == 0.0)


def test_lidar_too_close_reads_zero():
    sim = rvr_sim([(-1.0, 0.0, 0.0)], {"lidar": True}, size=(8, 8),
                  cylinders=[{"center": [0.09, 0.0], "radius": 0.02, "height": 0.3}])
    _moved_to(sim, 0.0, 0.0, 0.0)
    lid = readings(sim)["lidar"][0]
    ang = rvr.LIDAR_FIRST_ANGLE_RAD + 2 * math.pi / 719 * np.arange(719)
    hit = np.abs((ang + math.pi) % (2 * math.pi) - math.pi) < 0.1
    assert np.all(lid[hit] == 0.0)


def test_lidar_sees_other_rvrs_housings_not_their_bodies():
    # the scan plane passes over the 0.114 m bodies: only the 0.035 m housing is hit
    sim = rvr_sim([(0.0, 0.0, 0.0), (1.0, 0.0, 0.7)], {"lidar": True}, size=(30, 30))
    lid = readings(sim)["lidar"][0]
    assert lid.min() == pytest.approx(1.0 - rvr.LIDAR_HOUSING_RADIUS_M - rvr.LIDAR_RING_M,
                                      abs=1e-3)


def test_lidar_scan_equals_the_generic_ray_caster_on_static_shapes():
    from swarmstack.sensors import ranging

    boxes = [{"center": [1.0, 0.5], "size": [0.3, 0.8, 0.3], "yaw": 0.4},
             {"center": [-0.8, -0.9], "size": [0.5, 0.2, 0.3], "yaw": -1.1}]
    cyl = [{"center": [-0.5, 1.1], "radius": 0.2, "height": 0.3}]
    sim = rvr_sim([(0.1, -0.2, 0.9)], {"lidar": True}, size=(4, 4), walls={"height": 0.3},
                  boxes=boxes, cylinders=cyl)
    ang = rvr.LIDAR_FIRST_ANGLE_RAD + 2 * math.pi / 719 * np.arange(719)
    layout = ranging.RayLayout.ring(ang, rvr.LIDAR_RING_M, rvr.LIDAR_PLANE_M, 12.0)
    out = np.zeros((1, 719))
    ranging.cast(sim.world, sim.world.groups[0], layout, out)
    assert readings(sim)["lidar"][0] == pytest.approx(out[0], abs=1e-9)


def test_light_is_inverse_square_lux_with_occlusion_and_clamp():
    lx, ly, lz = rvr.LIGHT_POSITION_M
    light = {"position": [lx + 1.0, 0.0, lz], "intensity": 2.0}
    sim = rvr_sim([(0.0, 0.0, 0.0)], {"light": True}, lights=[light])
    assert float(readings(sim)["light"][0]) == pytest.approx(rvr.LIGHT_GAIN_LUX_M2 * 2.0)
    hidden = rvr_sim([(0.0, 0.0, 0.0)], {"light": True}, lights=[light],
                     boxes=[{"center": [lx + 0.5, 0.0], "size": [0.05, 0.5, 0.3]}])
    assert float(readings(hidden)["light"][0]) == 0.0
    near = rvr_sim([(0.0, 0.0, 0.0)], {"light": True},
                   lights=[{"position": [lx + 0.05, 0.0, lz], "intensity": 10.0}])
    assert float(readings(near)["light"][0]) == rvr.LIGHT_MAX_LUX


def test_a_run_in_a_batch_reads_as_it_does_alone():
    from swarmstack.sim.simulation import Simulation

    cfg = {"simulation": {"ticks_per_second": 10, "seed": 21},
           "arena": {"size": [2.5, 2.5], "walls": {"height": 0.3}},
           "cylinders": [{"center": [0.3, 0.3], "radius": 0.1, "height": 0.3}],
           "robots": [{"name": "rvr", "type": "rvr", "count": 6,
                       "sensors": {"lidar": {"noise_width": 0.02}, "proximity": True,
                                   "ground_color": True, "reference": True},
                       "wheels": {"noise": "gaussian", "level": 0.05},
                       "controller": {"python": "tests.rvr.test_reference:DriveAll"}}]}
    batch = Simulation.from_dict(cfg, runs=3)
    alone = Simulation.from_dict(cfg, runs=1, seed=22)   # run 1 of the batch uses seed + 1
    batch.run(30)
    alone.run(30)
    rows = slice(6, 12)
    for k in ("lidar", "proximity", "ground_color", "reference"):
        assert np.array_equal(batch.readings("rvr")[k][rows], alone.readings("rvr")[k]), k


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.floats(-1.8, 1.8), st.floats(-1.8, 1.8), st.floats(0.05, 0.5),
                          st.floats(0.05, 0.5), st.floats(-3, 3)), max_size=4),
       st.lists(st.tuples(st.floats(-1.8, 1.8), st.floats(-1.8, 1.8), st.floats(0.03, 0.3)),
                max_size=3),
       st.floats(-3.1, 3.1))
def test_scan_equals_the_generic_ray_caster_on_random_static_scenes(boxes, cyls, yaw):
    from swarmstack.sensors import ranging
    from swarmstack.sensors.scan import scan

    # shapes that would overlap the robot are left out (placement refuses them)
    boxes = [b for b in boxes if math.hypot(b[0], b[1]) > 0.25 + math.hypot(b[2], b[3]) / 2]
    cyls = [c for c in cyls if math.hypot(c[0], c[1]) > 0.25 + c[2]]
    sim = rvr_sim([(0.0, 0.0, yaw)], {}, size=(4, 4), walls={"height": 0.3},
                  boxes=[{"center": [x, y], "size": [w, h, 0.3], "yaw": a}
                         for x, y, w, h, a in boxes],
                  cylinders=[{"center": [x, y], "radius": r, "height": 0.3}
                             for x, y, r in cyls])
    for count, step in ((719, 2 * math.pi / 719), (8, 0.0)):
        ang = 0.3 + 2 * math.pi / count * np.arange(count)
        mine = np.zeros((1, count))
        scan(sim.world, sim.world.groups[0], ang, step, 0.035, 0.134, 6.0,
             (np.zeros(1), np.zeros(1), np.zeros(1)), mine)
        ref = np.zeros((1, count))
        ranging.cast(sim.world, sim.world.groups[0],
                     ranging.RayLayout.ring(ang, 0.035, 0.134, 6.0), ref)
        hit = ref[0] < 6.0
        assert np.all(np.isinf(mine[0][~hit]))
        assert mine[0][hit] == pytest.approx(ref[0][hit], abs=1e-9)


def test_proximity_noise_is_gaussian_with_the_given_sigma():
    sim = rvr_sim([(0.0, 0.0, 0.0)], {"proximity": {"noise_std": 0.01, "noise_mean": 0.002}},
                  size=(8, 8), boxes=_wall_ahead(0.8))
    s = []
    for _ in range(400):
        s.append(float(readings(sim)["proximity"][0, 1]))
        sim.step()
    err = np.array(s) - 0.8
    assert err.mean() == pytest.approx(0.002, abs=0.0015)
    assert err.std() == pytest.approx(0.01, abs=0.0015)


def test_light_sees_other_robots_leds():
    sim = rvr_sim([(0.0, 0.0, 0.0), (0.6, 0.0, math.pi)], {"light": True})
    assert float(readings(sim)["light"][0]) == 0.0
    commands(sim)["leds"][1] = (255, 255, 255)
    sim.step()
    assert float(readings(sim)["light"][0]) > 0.0


@pytest.mark.parametrize("sensors, where", [
    ({"lidar": {"noise_width": -1}}, "sensors.lidar.noise_width"),
    ({"proximity": {"max_range": 3.0}}, "sensors.proximity.max_range"),
    ({"fixed_color": {"palette": ["mauve"]}}, "sensors.fixed_color.palette"),
    ({"reference": {"neighbours": "sonar"}}, "sensors.reference.neighbours"),
    ({"tof": True}, "sensors.tof"),
])
def test_bad_options_name_the_key(sensors, where):
    from swarmstack.experiments.config import ConfigError

    with pytest.raises(ConfigError) as exc:
        rvr_sim([(0, 0, 0)], sensors)
    assert f"robots[0].{where}" in str(exc.value)
