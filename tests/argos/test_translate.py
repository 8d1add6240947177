"""What each ARGoS element becomes in the experiment, and what is listed as not translated."""

from __future__ import annotations

import math
import tomllib

import pytest

from swarmstack.argos import ArgosError, import_argos
from swarmstack.experiments.config import parse_experiment

from .conftest import ROBOT


def _imp(path, out_dir=None):
    im = import_argos(path, out_dir)
    data = tomllib.loads(im.toml())
    assert data == _plain(im.data())   # the text says what the translation holds
    return im, data


def _plain(v):
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def test_framework_and_arena(argos):
    _, data = _imp(argos(length="90", seed="17", size="3, 1.5, 1"))
    assert data["simulation"] == {"ticks_per_second": 10, "duration": 90.0, "seed": 17}
    assert data["arena"] == {"size": [3.0, 1.5], "center": [0.0, 0.0]}


def test_length_zero_and_seed_zero_are_listed(argos):
    im, data = _imp(argos(length="0", seed="0"))
    assert "duration" not in data["simulation"]
    text = "\n".join(im.notes)
    assert "/argos-configuration/framework/experiment@length" in text
    assert "/argos-configuration/framework/experiment@random_seed" in text


def test_boxes_cylinders_lights_degrees_to_radians(argos):
    arena = ROBOT + """
    <box id="b" size="0.5,0.1,0.2" movable="false"><body position="0.5,0.4,0" orientation="30,0,0" /></box>
    <cylinder id="c" radius="0.07" height="0.3" movable="false"><body position="-0.5,0.2,0" orientation="0,0,0" /></cylinder>
    <light id="l" position="0.1,0.2,0.4" orientation="0,0,0" color="255,0,128" intensity="0.5" medium="leds" />
    <light id="l2" position="0,0,1" orientation="0,0,0" color="red" intensity="2" medium="leds" />"""
    _, data = _imp(argos(arena))
    assert data["boxes"] == [{"center": [0.5, 0.4], "size": [0.5, 0.1, 0.2],
                              "yaw": pytest.approx(math.radians(30))}]
    assert data["cylinders"] == [{"center": [-0.5, 0.2], "radius": 0.07, "height": 0.3}]
    assert data["lights"] == [
        {"position": [0.1, 0.2, 0.4], "intensity": 0.5, "color": [255, 0, 128]},
        {"position": [0.0, 0.0, 1.0], "intensity": 2.0, "color": "red"}]


def test_what_is_not_translated_is_listed_by_xml_path(argos):
    arena = ROBOT + """
    <box id="b" size="0.5,0.1,0.2" movable="true" mass="2" colour="x"><body position="0.5,0.4,0.3" orientation="0,10,0" /></box>
    <prototype id="p" />"""
    im, data = _imp(argos(arena, tail="<physics_engines><dynamics2d id='d' /></physics_engines>"))
    paths = [n.split(": ")[0] for n in im.notes]
    for expected in ["/argos-configuration/arena/box[@id='b']@movable",
                     "/argos-configuration/arena/box[@id='b']@colour",
                     "/argos-configuration/arena/box[@id='b']/body@position",
                     "/argos-configuration/arena/box[@id='b']/body@orientation",
                     "/argos-configuration/arena/prototype[@id='p']",
                     "/argos-configuration/physics_engines",
                     "/argos-configuration/controllers/native[@id='native']",
                     "/argos-configuration/controllers/lua_controller[@id='lua']"]:
        assert expected in paths, im.notes
    assert data["boxes"][0]["center"] == [0.5, 0.4]   # the rest of the box is kept
    header = im.toml().split("\n[")[0]
    assert "/argos-configuration/arena/box[@id='b']@colour" in header


def test_floor_image_relative_to_the_argos_file_and_written_relative_to_the_toml(argos, tmp_path):
    (tmp_path / "floor.png").write_bytes(b"")
    arena = ROBOT + '<floor id="f" source="image" path="floor.png" />'
    path = argos(arena)
    (tmp_path / "out").mkdir()
    _, data = _imp(path, tmp_path / "out")
    assert data["floor"] == {"image": "../floor.png"}
    _, here = _imp(path)
    assert here["floor"] == {"image": "floor.png"}


def test_floor_from_loop_functions_is_listed(argos):
    im, data = _imp(argos(ROBOT + '<floor id="f" source="loop_functions" pixels_per_meter="50" />'))
    assert "floor" not in data
    assert any(n.startswith("/argos-configuration/arena/floor[@id='f']@source") for n in im.notes)


def _group(argos, distribute, **kw):
    arena = f"""<distribute>{distribute}
      <entity quantity="{kw.get('quantity', 6)}" max_trials="50">
        <e-puck2 id="ep" rab_range="0.5"><controller config="lua" /></e-puck2>
      </entity></distribute>"""
    im, data = _imp(argos(arena, seed=kw.get("seed", "4")))
    return im, data["robots"][0]


def test_distribute_uniform_and_gaussian(argos):
    _, g = _group(argos, '<position method="uniform" min="-0.5,-0.4,0" max="0.5,0.4,0" />'
                         '<orientation method="uniform" min="0,0,0" max="360,0,0" />')
    assert g["count"] == 6 and g["name"] == "ep"
    assert g["placement"] == {"kind": "uniform", "min": [-0.5, -0.4], "max": [0.5, 0.4],
                              "yaw": "uniform"}
    _, g = _group(argos, '<position method="gaussian" mean="0.1,0.2,0" std_dev="0.3,0.3,0" />'
                         '<orientation method="gaussian" mean="90,0,0" std_dev="10,0,0" />')
    assert g["placement"] == {"kind": "gaussian", "mean": [0.1, 0.2], "std": 0.3,
                              "yaw": pytest.approx(math.pi / 2),
                              "yaw_std": pytest.approx(math.radians(10))}


def test_distribute_grid_fills_x_then_y_from_the_corner(argos):
    _, g = _group(argos, '<position method="grid" center="0,0,0" distances="0.2,0.1,0" '
                         'layout="3,2,1" /><orientation method="constant" values="45,0,0" />')
    poses = g["placement"]["poses"]
    assert [p[:2] for p in poses] == [[0.2, 0.05], [0.0, 0.05], [-0.2, 0.05],
                                      [0.2, -0.05], [0.0, -0.05], [-0.2, -0.05]]
    assert all(p[2] == pytest.approx(math.pi / 4) for p in poses)
    assert "count" not in g


def test_grid_with_random_yaw_is_drawn_from_the_file_seed(argos):
    grid = ('<position method="grid" center="0,0,0" distances="0.2,0.2,0" layout="3,3,1" />'
            '<orientation method="uniform" min="0,0,0" max="360,0,0" />')
    im, a = _group(argos, grid, seed="5")
    _, b = _group(argos, grid, seed="5")
    _, c = _group(argos, grid, seed="6")
    assert a == b and a != c
    assert any("distribute/orientation" in n for n in im.notes)


def test_partial_yaw_range_is_approximated_and_listed(argos):
    im, g = _group(argos, '<position method="uniform" min="-0.5,-0.5,0" max="0.5,0.5,0" />'
                          '<orientation method="uniform" min="0,0,0" max="90,0,0" />')
    assert g["placement"]["yaw"] == pytest.approx(math.pi / 4)
    assert g["placement"]["yaw_std"] == pytest.approx(math.radians(90) / math.sqrt(12))
    assert any("approximated" in n for n in im.notes)


def test_robots_placed_one_by_one_form_one_group_per_controller(argos):
    arena = """
    <e-puck2 id="a"><body position="0.1,0,0" orientation="90,0,0" /><controller config="native" /></e-puck2>
    <e-puck2 id="b"><body position="-0.1,0,0" orientation="-90,0,0" /><controller config="native" /></e-puck2>
    <e-puck2 id="c"><body position="0.5,0.5,0" orientation="0,0,0" /><controller config="lua" /></e-puck2>"""
    _, data = _imp(argos(arena))
    native, lua = data["robots"]
    assert native["placement"]["poses"] == [[0.1, 0.0, pytest.approx(math.pi / 2)],
                                            [-0.1, 0.0, pytest.approx(-math.pi / 2)]]
    assert native["sensors"] == {"encoders": True} and "controller" not in native
    assert lua["controller"] == {"lua": "ctrl.lua"}
    assert lua["sensors"] == {"proximity": True}



def test_robots_numbered_from_0_keep_their_argos_ids_in_lua(argos, tmp_path):
    # Lua scripts often read their number out of robot.id: the group is named so that
    # swarmstack's ids (group name + index) are the .argos file's
    (tmp_path / "ctrl.lua").write_text("function step() me = robot.id end\n")
    arena = """
    <e-puck2 id="fb0"><body position="0.1,0,0" /><controller config="lua" /></e-puck2>
    <e-puck2 id="fb1"><body position="-0.1,0,0" /><controller config="lua" /></e-puck2>
    <e-puck2 id="x"><body position="0.5,0.5,0" /><controller config="native" /></e-puck2>"""
    _, data = _imp(argos(arena))
    assert [g["name"] for g in data["robots"]] == ["fb", "native"]
    from swarmstack.sim.simulation import Simulation

    sim = Simulation.from_dict(data, base_dir=tmp_path)
    sim.step()
    ctrl = sim.groups[0].controllers[0]
    assert [ctrl.get_global(k, "me") for k in range(2)] == ["fb0", "fb1"]

def test_lua_script_path_is_relative_to_the_toml(argos, tmp_path):
    (tmp_path / "sub").mkdir()
    arena = '<e-puck2 id="c"><body position="0,0,0" /><controller config="lua" /></e-puck2>'
    im, data = _imp(argos(arena), tmp_path / "sub")
    assert data["robots"][0]["controller"] == {"lua": "../ctrl.lua"}
    assert 'controller = { lua = "../ctrl.lua" }' in im.toml()


def test_buzz_bytecode_runs_the_script_it_was_compiled_from(argos, tmp_path):
    (tmp_path / "flock.bzz").write_text("function init() {}\nfunction step() {}\n")
    tail = ""
    path = argos('<e-puck2 id="c"><body position="0,0,0" /><controller config="bz" /></e-puck2>',
                 tail)
    text = path.read_text().replace(
        "<controllers>", """<controllers>
    <buzz_controller_epuck2 id="bz">
      <actuators><range_and_bearing implementation="default" /></actuators>
      <sensors><range_and_bearing implementation="medium" medium="rab" packet_drop_prob="0.25" /></sensors>
      <params bytecode_file="flock.bo" debug_file="flock.bdb" />
    </buzz_controller_epuck2>""")
    path.write_text(text)
    _, data = _imp(path)
    g = data["robots"][0]
    assert g["controller"] == {"buzz": "flock.bzz"}
    assert g["radio"] == {"enabled": True, "drop": 0.25}
    parse_experiment(data, "x")   # the schema takes it


def test_sensor_noise_battery_and_radio_options(argos):
    path = argos('<e-puck2 id="c" rab_range="1.5" rab_data_size="8"><body position="0,0,0" />'
                 '<controller config="lua" /><epuck2_battery start_charge="0.4" '
                 'discharge_model="approx" /></e-puck2>')
    path.write_text(path.read_text().replace(
        '<epuck2_proximity implementation="default" />',
        '<epuck2_proximity implementation="default" noise_level="0.1" />'
        '<epuck2_tof implementation="default" /><differential_steering implementation="default" />'))
    im, data = _imp(path)
    g = data["robots"][0]
    assert g["sensors"] == {"proximity": {"noise": "uniform", "level": 0.1}, "tof": True,
                            "differential_steering": True,
                            "battery": {"start_charge": 0.4, "model": "approximated"}}
    assert g["radio"] == {"range": 1.5, "payload_bytes": 8}
    assert not any("differential_steering" in n for n in im.notes)
    # the schema takes the options (the Lua controller is checked where Lua runs)
    parse_experiment({**data, "robots": [{k: v for k, v in g.items() if k != "controller"}]},
                     "x")


def test_media_occlusions(argos):
    _, data = _imp(argos(tail='<media><range_and_bearing id="rab" check_occlusions="false" />'
                              '<led id="leds" /></media>'))
    assert data["radio"] == {"occlusion": False, "robots_occlude": False}


def test_distributed_obstacles_do_not_overlap_and_are_listed(argos):
    arena = ROBOT + """<distribute>
      <position method="uniform" min="0.2,-0.8,0" max="0.8,0.8,0" />
      <orientation method="uniform" min="0,0,0" max="360,0,0" />
      <entity quantity="5" max_trials="100"><box id="bx" size="0.1,0.1,0.1" movable="false" /></entity>
    </distribute>"""
    im, data = _imp(argos(arena))
    boxes = data["boxes"]
    assert len(boxes) == 5
    for i, a in enumerate(boxes):
        assert 0.2 <= a["center"][0] <= 0.8
        for b in boxes[:i]:
            assert math.dist(a["center"], b["center"]) >= 0.1 * math.sqrt(2)
    assert any(n.startswith("/argos-configuration/arena/distribute:") for n in im.notes)


def test_import_is_deterministic(argos):
    path = argos()
    assert import_argos(path).toml() == import_argos(path).toml()


def test_lua_params_reach_the_script_as_argos_passes_them(argos):
    path = argos('<e-puck2 id="c"><body position="0,0,0" /><controller config="lua" /></e-puck2>')
    path.write_text(path.read_text().replace('<params script="ctrl.lua" />',
                                             '<params script="ctrl.lua" speed="7.5" mode="walk" />'))
    im, data = _imp(path)
    assert data["robots"][0]["controller"] == {"lua": "ctrl.lua",
                                               "params": {"speed": "7.5", "mode": "walk"}}
    assert not any("params" in n for n in im.notes)


def test_crazyflie_and_rvr_entities_and_their_sensors(argos):
    path = argos("""
    <crazyflie id="cf0" rab_range="2"><body position="0,0,0" orientation="0,0,0" />
      <controller config="cf" /><crazyflie_battery start_charge="0.5" /></crazyflie>
    <rvr id="rv0"><body position="0.5,0.5,0" orientation="180,0,0" /><controller config="rv" /></rvr>""")
    path.write_text(path.read_text().replace("<controllers>", """<controllers>
    <cf_ctrl id="cf" library="libcf"><sensors>
      <positioning implementation="default" /><crazyflie_battery implementation="default" />
      <crazyflie_colored_blob_perspective_camera implementation="default" medium="leds" />
      <crazyflie_apriltag implementation="default" tag_medium="tags" /></sensors></cf_ctrl>
    <rv_ctrl id="rv" library="librv"><sensors>
      <rvr_ground implementation="rot_z_only" /><rvr_lidar implementation="default" />
      <rvr_imu implementation="default" /></sensors>
      <actuators><rvr_wheels implementation="default" /></actuators></rv_ctrl>"""))
    im, data = _imp(path)
    cf, rv = data["robots"]
    assert cf["type"] == "crazyflie" and rv["type"] == "rvr"
    assert cf["sensors"] == {"positioning": True, "battery": {"start_charge": 0.5},
                             "camera": True}
    assert cf["radio"] == {"range": 2.0}
    assert rv["sensors"] == {"ground_color": True, "lidar": True, "imu": True}
    assert rv["placement"]["poses"] == [[0.5, 0.5, pytest.approx(math.pi)]]
    assert any("sensors/crazyflie_apriltag" in n for n in im.notes)
    parse_experiment(data, "x")


def test_uniform_distribute_with_min_equal_max_on_an_axis_puts_robots_on_that_line(argos):
    _, g = _group(argos, '<position method="uniform" min="-0.4,0.1,0" max="0.4,0.1,0" />'
                         '<orientation method="constant" values="90,0,0" />', quantity=5)
    poses = g["placement"]["poses"]
    assert g["placement"]["kind"] == "explicit" and len(poses) == 5
    assert all(p[1] == 0.1 and -0.4 <= p[0] <= 0.4 for p in poses)
    assert all(p[2] == pytest.approx(math.pi / 2) for p in poses)
    xs = sorted(p[0] for p in poses)   # the E-Puck2's body is 7 cm across: no overlap
    assert all(b - a >= 0.07 for a, b in zip(xs, xs[1:]))


def test_a_line_too_short_for_its_robots_is_refused_naming_max_trials(argos):
    with pytest.raises(ArgosError) as err:
        _group(argos, '<position method="uniform" min="0,0,0" max="0.1,0,0" />'
                      '<orientation method="constant" values="0,0,0" />', quantity=5)
    assert "max_trials" in str(err.value)
