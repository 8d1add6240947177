"""The Crazyflie's AI-deck camera and LED-ring deck (``robots/crazyflie_decks.py``): the paper's
§4.1 calibration, the cone, what it sees (lights, other drones' LEDs, E-Puck2 LEDs), greyscale,
and the LED ring as seen by E-Puck2 cameras and light sensors; the ``crazyflie-camera``
validation and its mutations."""

import math

import numpy as np
import pytest
from pydantic import ValidationError

from swarmstack import BatchedController
from swarmstack.actuators import flight
from swarmstack.validations import crazyflie_camera as repro
from swarmstack.validations.crazyflie_camera import camera_world, read_camera
from swarmstack.robots import crazyflie_decks as decks
from swarmstack.robots import epuck2
from swarmstack.robots.base import EmitterLayout
from swarmstack.sensors.camera import blobs

H = 1.0                                    # hover height of the observing drone
T25 = math.tan(math.radians(25.0))
CF_R, CF_H = 0.046, 0.029                  # Crazyflie body (robot-models §2.1)


def drone(x=0.0, y=0.0, z=H, yaw=0.0):
    return (x, y, z, yaw, CF_R, CF_H, decks.led_ring_layout())


def epuck(x, y, yaw=0.0):
    pos, owner = epuck2.led_emitters()
    lay = EmitterLayout(pos, owner, epuck2.led_channel_mask(), epuck2.LED_LIGHT_INTENSITY)
    return (x, y, 0.0, yaw, epuck2.RADIUS_M, epuck2.HEIGHT_M, lay)


def seen(lights=(), robots=(drone(),), device=None, robot=0, lit=()):
    """Blobs robot ``robot`` sees; ``lit`` = [(robot, emitter, rgb), …] switched on first."""
    world, keys = camera_world(lights, robots)
    for j, e, rgb in lit:
        world.emitters.rgb[j, e] = rgb
    return blobs(read_camera(device or decks.aideck_device(), world, keys, robot))


# ------------------------------------------------------------------------------- parameters
def test_geometry_and_options():
    cam = decks.aideck_device()
    assert (cam.width_px, cam.height_px) == (320, 320)
    assert cam.hfov_deg == 50.0 and cam.vfov_deg == pytest.approx(50.0)
    assert cam.focal_px == pytest.approx(159.5 / T25)
    assert cam.range_m == 3.0 and cam.name == "camera" and not cam.grey
    o = decks.AIDeckOptions(max_blobs=8, noise="gaussian", level=0.5, range=2.0, color="grey")
    cam = decks.aideck_device(o)
    assert (cam.max_blobs, cam.noise, cam.noise_level, cam.range_m, cam.grey) == \
        (8, "gaussian", 0.5, 2.0, True)
    for bad in ({"range": 0}, {"color": "red"}, {"fov": 60}, {"max_blobs": 0}):
        with pytest.raises(ValidationError):
            decks.AIDeckOptions(**bad)


def test_led_ring_layout():
    lay = decks.led_ring_layout()
    assert decks.N_LEDS == lay.n_leds == 1
    assert lay.positions_m.tolist() == [[0.0, 0.0, 0.0]] and lay.owner.tolist() == [0]
    assert lay.channels.tolist() == [[1, 1, 1]] and lay.light_intensity > 0


# ------------------------------------------------------------------------------- calibration
def test_paper_calibration_pixels():
    # §4.1: four lights 2 m ahead, max separation 1.8652 m
    h = 1.8652 / 2
    lights = [(2.0, h, H, (255, 0, 0)), (2.0, 0.0, H + h, (0, 255, 0)),
              (2.0, -h, H, (0, 0, 255)), (2.0, 0.0, H - h, (255, 255, 255))]
    got = {rgb: (c, r) for c, r, rgb in seen(lights)}
    paper = {(255, 0, 0): (0, 159), (0, 255, 0): (160, 0), (0, 0, 255): (319, 159),
             (255, 255, 255): (160, 318)}
    assert set(got) == set(paper)
    for rgb, (pc, pr) in paper.items():
        c, r = got[rgb]
        assert abs(c - pc) <= 1 and abs(r - pr) <= 1, (rgb, c, r)
        assert 0 <= c <= 319 and 0 <= r <= 319


@pytest.mark.parametrize("deg", [5.0, 15.0, 24.9])
def test_columns_and_rows_follow_the_projection(deg):
    t = math.tan(math.radians(deg))
    f = decks.aideck_device().focal_px
    found = seen([(1.5, 1.5 * t, H, (9, 9, 9)), (1.5, 0.0, H - 1.5 * t, (8, 8, 8))])
    assert [(c, r) for c, r, _ in found] == [pytest.approx((159.5 - f * t, 159.5)),
                                             pytest.approx((159.5, 159.5 + f * t))]


@pytest.mark.parametrize("dy, dz", [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1)])
def test_lights_outside_the_cone_vanish(dy, dz):
    t = math.tan(math.radians(25.3))
    assert seen([(2.0, dy * 2.0 * t, H + dz * 2.0 * t, (255, 255, 255))]) == []
    t = math.tan(math.radians(24.7))
    assert len(seen([(2.0, dy * 2.0 * t, H + dz * 2.0 * t, (255, 255, 255))])) == 1


def test_behind_beyond_range_and_dark_not_seen():
    assert seen([(-1.0, 0.0, H, (255, 0, 0))]) == []
    assert seen([(3.05, 0.0, H, (255, 0, 0))]) == []
    assert len(seen([(2.95, 0.0, H, (255, 0, 0))])) == 1
    assert seen([(1.0, 0.0, H, (0, 0, 0))]) == []


def test_yawed_drone_looks_along_its_heading():
    yaw = math.radians(120.0)
    p = (math.cos(yaw), math.sin(yaw), H)
    (c, r, _), = seen([(*p, (255, 0, 0))], robots=(drone(yaw=yaw),))
    assert (c, r) == (pytest.approx(159.5), pytest.approx(159.5))
    assert seen([(*p, (255, 0, 0))]) == []   # facing +x it is out of view


# ------------------------------------------------------------------------- robots' LEDs
def test_sees_another_drones_led_ring_but_never_its_own():
    robots = (drone(), drone(x=1.0, y=0.2, z=H - 0.1))
    assert seen(robots=robots) == []                                   # LEDs off
    found = seen(robots=robots, lit=[(0, 0, (255, 255, 255)), (1, 0, (0, 255, 0))])
    (c, r, rgb), = found                                               # not its own white LED
    assert rgb == (0, 255, 0)
    f = decks.aideck_device().focal_px
    assert (c, r) == (pytest.approx(159.5 - f * 0.2), pytest.approx(159.5 + f * 0.1))


def test_sees_an_epuck2s_leds():
    # an E-Puck2 1 m ahead on the floor, its red front LED towards the drone (flying at 0.3 m)
    robots = (drone(z=0.3), epuck(1.0, 0.0, yaw=math.pi))
    found = seen(robots=robots, lit=[(1, 0, (255, 0, 0))])
    (c, r, rgb), = found
    assert rgb == (255, 0, 0) and c == pytest.approx(159.5, abs=0.5) and r > 159.5  # below


def test_another_robot_occludes():
    # a drone between the observer and a lit drone hides its LED
    robots = (drone(), drone(x=1.0, z=H - 0.01), drone(x=2.0))
    assert seen(robots=robots, lit=[(2, 0, (0, 0, 255))]) == []
    robots = (drone(), drone(x=1.0, y=0.3, z=H - 0.01), drone(x=2.0))
    assert len(seen(robots=robots, lit=[(2, 0, (0, 0, 255))])) == 1


# ------------------------------------------------------------------------------ greyscale
def test_grey_reports_luma_and_the_script_table_has_both():
    lights = [(2.0, 0.3, H, (255, 0, 0)), (2.0, -0.3, H, (0, 0, 255)), (2.0, 0.0, H, (0, 255, 0))]
    rgb = seen(lights)
    grey = seen(lights, device=decks.aideck_device(decks.AIDeckOptions(color="grey")))
    assert [(c, r) for c, r, _ in grey] == [(c, r) for c, r, _ in rgb]
    assert [g for _, _, g in grey] == [(76, 76, 76), (150, 150, 150), (29, 29, 29)]
    world, keys = camera_world(lights, [drone()])
    table = decks.camera_script.convert(read_camera(decks.aideck_device(), world, keys))
    assert decks.camera_script.name == "camera"
    assert table[0] == {"column": pytest.approx(159.5 - 0.3 / 2 * decks.aideck_device().focal_px),
                        "row": 159.5, "color": {"red": 255, "green": 0, "blue": 0}, "grey": 76}
    assert [table[k]["grey"] for k in range(3)] == [76, 150, 29]


# ---------------------------------------------------- the LED ring seen by other robots
def test_epuck2_camera_sees_a_hovering_drones_led():
    # E-Puck2 at the origin facing +x, camera 3 cm up; vertical half-angle ≈ 11.35°
    for z, expect in ((0.10, True), (0.40, False)):
        robots = (epuck(0.0, 0.0), drone(x=0.8, y=0.05, z=z))
        found = seen(robots=robots, device=epuck2.camera_device(), lit=[(1, 0, (0, 255, 255))])
        assert bool(found) == expect, z
        if expect:
            (c, r, rgb), = found
            f = epuck2.camera_device().focal_px
            assert rgb == (0, 255, 255)
            assert (c, r) == (pytest.approx(79.5 - f * 0.05 / 0.8),
                              pytest.approx(59.5 - f * (z - epuck2.CAMERA_POSITION_M[2]) / 0.8))
    # behind the E-Puck2: not seen
    robots = (epuck(0.0, 0.0), drone(x=-0.8, z=0.1))
    assert seen(robots=robots, device=epuck2.camera_device(), lit=[(1, 0, (255, 0, 0))]) == []


def test_epuck2_light_sensors_see_a_drones_led():
    robots = (epuck(0.0, 0.0), drone(x=0.12, z=0.06))
    world, keys = camera_world((), robots)
    light = epuck2.light_device()
    dark = read_camera(light, world, keys).copy()
    world.emitters.rgb[1, 0] = (255, 255, 255)
    lit = read_camera(light, world, keys)
    assert (dark == 4095).all()
    front = int(np.argmin(lit))
    assert lit[front] < 4095 and front in (0, 7)     # a front sensor sees it most
    assert (lit <= dark).all()


# --------------------------------------------------------------- validation and mutations
def test_validation_quick_is_inside_tolerance(tmp_path):
    result = repro.reproduce(tmp_path, quick=True)
    assert result.ok, [(r.quantity, r.paper, r.ours) for r in result.rows if not r.ok]
    assert all(f.exists() for f in result.files) and result.files[0].suffix == ".png"
    assert "(0, 159)" in result.rows[0].paper and "(160, 318)" in result.rows[3].paper


def test_validation_is_registered():
    from swarmstack import validations as reproduce

    assert "crazyflie-camera" in reproduce.names()
    assert reproduce._MODULES["crazyflie-camera"] == repro.__name__


def test_validation_reference_is_not_the_model():
    source = open(repro.__file__).read()
    assert "CAMERA_APERTURE_DEG" not in source and "CAMERA_WIDTH_PX" not in source


@pytest.mark.parametrize("aperture", [52.0, 50.6, 48.0])
def test_validation_fails_with_another_aperture(tmp_path, monkeypatch, aperture):
    # 50.6°: the plug-in's half-diagonal 33.75° across one side of the square image
    monkeypatch.setattr(decks, "CAMERA_APERTURE_DEG", aperture)
    result = repro.reproduce(tmp_path, quick=True)
    assert not result.ok
    assert not result.rows[0].ok and not result.rows[5].ok


def test_validation_fails_with_another_image_size(tmp_path, monkeypatch):
    monkeypatch.setattr(decks, "CAMERA_WIDTH_PX", 324)
    monkeypatch.setattr(decks, "CAMERA_HEIGHT_PX", 244)
    assert not repro.reproduce(tmp_path, quick=True).ok


# ------------------------------------------------- with the crazyflie type, in a simulation
class HoverLitBatched(BatchedController):
    """Every drone takes off to ``params["height"]`` and lights its ring in
    ``params["color"]``."""

    def init(self, group, params):
        self.height = float(params.get("height", 0.1))
        self.color = tuple(params.get("color", (0, 255, 0)))

    def step(self, group):
        if group.tick == 0:
            group.mode[:] = flight.TAKEOFF
            group.target[:] = (math.nan, math.nan, self.height, math.nan)
        else:
            group.mode[:] = flight.HOLD
        group.leds[:] = self.color


class LightAll(BatchedController):
    """Every robot lights all its LEDs in ``params["rgb"]``."""

    def init(self, group, params):
        self.rgb = tuple(params["rgb"])

    def step(self, group):
        group.leds[:] = self.rgb


def _mixed(height, drone_xy=(0.8, 0.05)):
    from swarmstack.sim.simulation import Simulation

    cfg = {"arena": {"size": [4.0, 4.0]},
           "robots": [
               {"name": "epuck", "type": "epuck2",
                "placement": {"kind": "explicit", "poses": [[0.0, 0.0, 0.0]]},
                "sensors": {"camera": True}},
               {"name": "drone", "type": "crazyflie",
                "placement": {"kind": "explicit", "poses": [[*drone_xy, 0.0]]},
                "controller": {"python": "tests.crazyflie.test_camera:HoverLitBatched",
                               "params": {"height": height, "color": [0, 255, 0]}}}]}
    return Simulation.from_dict(cfg, seed=0)


@pytest.mark.parametrize("height, expect", [(0.1, True), (0.5, False)])
def test_epuck2_camera_sees_a_hovering_crazyflie(height, expect):
    sim = _mixed(height)
    sim.start()
    sim.run(60)
    d = sim.world.bodies
    j = sim.group("drone").slice.start
    assert d.z[j] == pytest.approx(height, abs=0.01)
    found = blobs(sim.readings("epuck")["camera"][0])
    assert bool(found) == expect
    if expect:
        (c, r, rgb), = found
        f = epuck2.camera_device().focal_px
        dx = d.x[j] - epuck2.CAMERA_POSITION_M[0]
        assert rgb == (0, 255, 0)
        assert c == pytest.approx(79.5 - f * d.y[j] / dx, abs=1e-6)
        assert r == pytest.approx(59.5 - f * (d.z[j] - epuck2.CAMERA_POSITION_M[2]) / dx,
                                  abs=1e-6)


def test_crazyflie_camera_sees_a_lit_epuck2_and_another_drone():
    from swarmstack.sim.simulation import Simulation

    cfg = {"arena": {"size": [4.0, 4.0]},
           "robots": [
               {"name": "observer", "type": "crazyflie",
                "placement": {"kind": "explicit", "poses": [[-1.0, 0.0, 0.0]]},
                "sensors": {"camera": {"max_blobs": 32}},
                "controller": {"python": "tests.crazyflie.test_camera:HoverLitBatched",
                               "params": {"height": 0.2, "color": [255, 255, 255]}}},
               {"name": "other", "type": "crazyflie",
                "placement": {"kind": "explicit", "poses": [[0.0, 0.4, 0.0]]},
                "controller": {"python": "tests.crazyflie.test_camera:HoverLitBatched",
                               "params": {"height": 0.3, "color": [0, 0, 255]}}},
               {"name": "epuck", "type": "epuck2",
                "placement": {"kind": "explicit", "poses": [[0.0, -0.3, 0.0]]},
                "controller": {"python": "tests.crazyflie.test_camera:LightAll",
                               "params": {"rgb": [255, 0, 0]}}}]}
    sim = Simulation.from_dict(cfg, seed=0)
    sim.start()
    sim.run(60)
    found = blobs(sim.readings("observer")["camera"][0])
    colours = {rgb for _, _, rgb in found}
    assert (0, 0, 255) in colours                 # the other drone's ring
    assert (255, 0, 0) in colours                 # the E-Puck2's LEDs
    assert (255, 255, 255) not in colours         # never its own
    assert all(0 <= c <= 319 and 0 <= r <= 319 for c, r, _ in found)
    blue = [(c, r) for c, r, rgb in found if rgb == (0, 0, 255)]
    assert blue[0][0] < 159.5 and blue[0][1] < 159.5   # left of and above the axis
    # the script table Buzz sees
    table = decks.camera_script.convert(sim.readings("observer")["camera"][0])
    assert len(table) == len(found) and {"column", "row", "color", "grey"} <= set(table[0])


def test_buzz_sees_the_camera_table(tmp_path):
    from swarmstack.sim.simulation import Simulation

    script = tmp_path / "cam.bzz"
    script.write_text("function init() {\n  takeoff(20)\n}\n"
                      "function step() {\n  if (size(camera) > 0) {\n"
                      "    log(size(camera), \" \", camera[0].column, \" \", camera[0].row, \" \","
                      " camera[0].color.red, \" \", camera[0].grey)\n  }\n}\n")
    logs = []
    cfg = {"arena": {"size": [4.0, 4.0]},
           "lights": [{"position": [1.0, 0.2, 0.2], "intensity": 1.0, "color": "red"}],
           "robots": [{"name": "d", "type": "crazyflie",
                       "placement": {"kind": "explicit", "poses": [[0.0, 0.0, 0.0]]},
                       "sensors": {"camera": True}, "controller": {"buzz": str(script)}}]}
    sim = Simulation.from_dict(cfg, seed=0, on_log=lambda *a: logs.append(a[-1]))
    sim.start()
    sim.run(40)
    n, col, row, red, grey = logs[-1].split()
    f = decks.aideck_device().focal_px
    assert (int(n), int(red), int(grey)) == (1, 255, 76)
    assert float(col) == pytest.approx(159.5 - f * 0.2, abs=1e-3)   # at 20 cm, level
    assert float(row) == pytest.approx(159.5, abs=0.5)
