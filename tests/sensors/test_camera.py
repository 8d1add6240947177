import math

import numpy as np
import pytest
from scenes import build_world, read, set_leds

from swarmstack.robots import epuck2
from swarmstack.sensors.camera import blobs
from swarmstack.world.arena import Arena

BIG = (-3.0, -3.0, 3.0, 3.0)
CZ = epuck2.CAMERA_POSITION_M[2]
T15 = math.tan(math.radians(15.0))


def lights_world(points, rgb=(0, 0, 255), boxes=None, extra=(), yaw=0.0):
    lights = np.array([[x, y, z, 1.0] for x, y, z in points])
    arena = Arena(BIG, lights=lights, light_rgb=np.array([rgb] * len(points), dtype=np.uint8),
                  boxes=np.zeros((0, 6)) if boxes is None else np.asarray(boxes, dtype=float))
    return build_world(arena, [[(0.0, 0.0, yaw), *extra]])


def test_geometry():
    cam = epuck2.camera_device()
    assert cam.focal_px == pytest.approx(79.5 / T15)
    assert cam.vfov_deg == pytest.approx(22.7, abs=0.1)


@pytest.mark.parametrize("depth", [0.15, 0.5, 0.95])
def test_edges_and_centre(depth):
    world, keys = lights_world([(depth, depth * T15, CZ), (depth, 0.0, CZ),
                                (depth, -depth * T15, CZ)])
    found = blobs(read(epuck2.camera_device(), world, keys)[0])
    assert [round(c, 6) for c, _, _ in found] == [0.0, 79.5, 159.0]
    assert all(r == pytest.approx(59.5) for _, r, _ in found)
    assert found[0][2] == (0, 0, 255)


def test_columns_follow_projection_and_rows_go_down():
    pts = [(0.4, 0.05, CZ + 0.02), (0.4, -0.08, CZ - 0.03)]
    world, keys = lights_world(pts)
    f = epuck2.camera_device().focal_px
    found = blobs(read(epuck2.camera_device(), world, keys)[0])
    exp = sorted((79.5 - f * y / x, 59.5 - f * (z - CZ) / x) for x, y, z in pts)
    assert [(c, r) for c, r, _ in found] == [pytest.approx(e) for e in exp]
    assert found[0][1] < 59.5 < found[1][1]  # higher point: smaller row


def test_outside_field_range_and_behind_not_seen():
    d = 0.5
    world, keys = lights_world([(d, d * math.tan(math.radians(15.3)), CZ),   # outside FOV
                                (d, 0.0, CZ + d * 0.25),                      # above vertical FOV
                                (1.01, 0.0, CZ),                              # beyond 1 m
                                (-0.3, 0.0, CZ)])                             # behind
    assert blobs(read(epuck2.camera_device(), world, keys)[0]) == []


def test_rotated_robot():
    yaw = math.radians(130.0)
    p = (0.6 * math.cos(yaw - math.radians(10)), 0.6 * math.sin(yaw - math.radians(10)), CZ)
    world, keys = lights_world([p], yaw=yaw)
    (c, r, _), = blobs(read(epuck2.camera_device(), world, keys)[0])
    assert c == pytest.approx(79.5 + epuck2.camera_device().focal_px * math.tan(math.radians(10)))


def test_wall_and_robot_occlude():
    world, keys = lights_world([(0.6, 0.0, CZ)], boxes=[[0.3, 0.0, 0.01, 0.2, 0.0, 0.1]])
    assert blobs(read(epuck2.camera_device(), world, keys)[0]) == []
    world, keys = lights_world([(0.6, 0.0, CZ)], extra=[(0.3, 0.0, 0.0)])
    assert blobs(read(epuck2.camera_device(), world, keys)[0]) == []
    world, keys = lights_world([(0.6, 0.0, 0.1)], boxes=[[0.3, 0.0, 0.01, 0.2, 0.0, 0.02]])
    assert len(blobs(read(epuck2.camera_device(), world, keys)[0])) == 1  # light above a low wall


def test_leds_of_others_not_own_and_owner_option():
    world, keys = build_world(Arena(BIG), [[(0.0, 0.0, 0.0), (0.4, 0.0, 0.0)]])
    set_leds(world, 0, {k: (255, 0, 0) for k in range(8)})
    assert blobs(read(epuck2.camera_device(), world, keys)[0]) == []        # own LEDs never seen
    set_leds(world, 1, {0: (255, 0, 0), 4: (255, 0, 0)})       # front (far side) and back
    found = blobs(read(epuck2.camera_device(), world, keys)[0])
    assert len(found) == 2 and all(rgb == (255, 0, 0) for _, _, rgb in found)
    # the LED on the far side of the target is hidden by its body when the owner occludes
    # (the ring LEDs sit above the 4.5 cm body: make the target taller so that it can hide one)
    world.bodies.height[1] = 0.1
    found = blobs(read(epuck2.camera_device(owner_occludes=True), world, keys)[0])
    assert len(found) == 1
    back = world.emitters.world[1, 4]
    f = epuck2.camera_device().focal_px
    assert found[0][0] == pytest.approx(79.5 - f * back[1] / back[0])


def test_runs_never_interfere():
    world, keys = build_world(Arena(BIG, lights=np.array([[0.6, 0.0, CZ, 1.0]]),
                                    light_rgb=np.array([[0, 0, 255]], dtype=np.uint8)),
                              [[(0.0, 0.0, 0.0)], [(0.3, 0.0, 0.0), (0.5, 0.1, math.pi)]])
    set_leds(world, 2, {k: (0, 255, 0) for k in range(8)})
    out = read(epuck2.camera_device(), world, keys)
    assert [rgb for _, _, rgb in blobs(out[0])] == [(0, 0, 255)]  # run 1 neither hides nor shows
    # run 1's robot at 0.3 m sees the (shared, static) light; its run-mate is outside its view
    assert [rgb for _, _, rgb in blobs(out[1])] == [(0, 0, 255)]


def test_max_blobs_keeps_nearest_sorted_by_column():
    pts = [(0.2 + 0.1 * k, (-1) ** k * 0.01 * k, CZ) for k in range(6)]
    world, keys = lights_world(pts)
    out = read(epuck2.camera_device(max_blobs=3), world, keys)[0]
    found = blobs(out)
    f = epuck2.camera_device().focal_px
    exp = sorted(79.5 - f * y / x for x, y, _ in pts[:3])
    assert [c for c, _, _ in found] == [pytest.approx(e) for e in exp]
    assert out.shape == (3, 5)
    full = blobs(read(epuck2.camera_device(), world, keys)[0])
    assert len(full) == 6 and [c for c, _, _ in full] == sorted(c for c, _, _ in full)


def test_table4_geometry_maps_to_border_columns():
    # the paper's simulated scene: border objects at (263, ±70.5) and (143, ±38.5) mm
    pts = [(0.263, 0.0705, CZ), (0.263, -0.0705, CZ), (0.143, 0.0385, CZ),
           (0.143, -0.0385, CZ)]
    for p in pts:
        world, keys = lights_world([p])
        (c, _, _), = blobs(read(epuck2.camera_device(), world, keys)[0])
        assert c == pytest.approx(0.0 if p[1] > 0 else 159.0, abs=1.0)


def test_pixel_noise_is_bounded_reproducible_and_off_by_default():
    world, keys = build_world(Arena(bounds=(-2, -2, 2, 2)), [[(0.0, 0.0, 0.0), (0.5, 0.05, math.pi)]])
    set_leds(world, 1, {1: (0, 0, 255), 3: (0, 0, 255)})
    exact = read(epuck2.camera_device(), world, keys)[0].copy()
    noisy = read(epuck2.camera_device(noise="uniform", noise_level=2.0), world, keys)[0]
    again = read(epuck2.camera_device(noise="uniform", noise_level=2.0), world, keys)[0]
    valid = exact[:, 0] >= 0
    assert valid.any()
    assert np.array_equal(noisy, again)
    assert not np.array_equal(noisy[valid, :2], exact[valid, :2])
    assert np.all(np.abs(noisy[valid, :2] - exact[valid, :2]) <= 2.0 + 1e-9)
    assert np.array_equal(noisy[valid, 2:], exact[valid, 2:])  # colours untouched
