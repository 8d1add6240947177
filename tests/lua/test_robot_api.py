"""The robot table a Lua script sees, built from the robot type (ARGoS's names and units)."""

import math

import numpy as np
import pytest

from tests.lua.luasim import lua_globals, lua_sim
from swarmstack.robots import epuck2


def test_proximity_and_light_are_one_based_value_angle_tables(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step()
  prox, angles, light, n = {}, {}, {}, #robot.proximity
  for i = 1, n do
    prox[i] = robot.proximity[i].value
    angles[i] = robot.proximity[i].angle
    light[i] = robot.light[i].value
  end
end""", sensors={"proximity": True, "light": True}, count=None,
                  extra={"placement": {"kind": "explicit", "poses": [[0.44, 0.0, 0.3],
                                                                     [0.0, 0.44, 1.2],
                                                                     [-0.1, -0.1, 0.0]]}},
                  top={"lights": [{"position": [0.0, 0.0, 0.05], "intensity": 1.0}]})
    sim.run(2)
    g = sim.groups[0]
    # the tables hold what the sensors read when step() ran (before this tick's sensing)
    sim.groups[0].controllers[0].step(g.views[0])
    for k in range(3):
        got = lua_globals(sim, "prox")[k]
        assert [got[i] for i in range(1, 9)] == g.readings["proximity"][k].tolist()
        light = lua_globals(sim, "light")[k]
        assert [light[i] for i in range(1, 9)] == g.readings["light"][k].tolist()
        assert g.readings["proximity"][k].max() > 0 or k == 2
        assert g.readings["light"][k].min() < 4095
        angles = lua_globals(sim, "angles")[k]
        assert [angles[i] for i in range(1, 9)] == pytest.approx(list(epuck2.IR_ANGLES_RAD))
    assert lua_globals(sim, "n") == [8, 8, 8]


def test_wheels_take_cm_per_s_and_leds_take_argos_colours(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step()
  robot.wheels.set_velocity(5, -2.5)
  robot.leds.set_all_colors("orange")
  robot.leds.set_single_color(2, 10, 20, 30)
  robot.leds.set_single_color(4, "0,200,7")
end""", count=2)
    sim.step()
    c = sim.commands("g")
    assert c["wheels"].tolist() == [[0.05, -0.025]] * 2
    leds = c["leds"][0]
    assert leds[0].tolist() == [255, 140, 0]
    assert leds[1].tolist() == [10, 20, 30]
    assert leds[3].tolist() == [0, 200, 7]


def test_id_params_type_and_per_robot_globals(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
count = 0
function init() mine = robot.id .. ":" .. robot.type .. ":" .. robot.params.label end
function step() count = count + 1; if robot.id == "g1" then count = count + 10 end end
""", params={"label": "x", "speed": "10 cm/s"})
    sim.run(3)
    assert lua_globals(sim, "mine") == ["g0:epuck2:x", "g1:epuck2:x", "g2:epuck2:x"]
    assert lua_globals(sim, "count") == [3, 33, 3]   # each robot has its own globals


def test_params_with_units_arrive_in_centimetres(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="function init() v = robot.params.speed end function step() end",
                  params={"speed": "10 cm/s", "gap": "0.5 m"}, count=1)
    sim.step()
    assert lua_globals(sim, "v") == [pytest.approx(10.0)]


def test_positioning_encoder_and_tof_as_argos_names_them(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step()
  local p = robot.positioning
  x, y, z = p.position.x, p.position.y, p.position.z
  yaw = p.orientation:toeulerangles()
  angle, axis = p.orientation:toangleaxis()
  axis_z = axis.z
  w = p.orientation.w
  left, right = robot.encoder[1].left, robot.encoder[1].right
  tof = robot.tof   -- the E-Puck2 plug-in's form: a number
  robot.wheels.set_velocity(4, 6)
end""", sensors={"positioning": True, "encoders": True, "tof": True}, count=2)
    sim.run(5)
    g = sim.groups[0]
    pose = g.readings["pose"]
    ctrl = g.controllers[0]
    ctrl.step(g.views[0])   # the tables now hold the current readings
    b = sim.world.bodies
    for k in range(2):
        assert lua_globals(sim, "x")[k] == pytest.approx(pose[k][0])
        assert lua_globals(sim, "y")[k] == pytest.approx(pose[k][1])
        yaw = lua_globals(sim, "yaw")[k]
        assert yaw == pytest.approx(b.yaw[k])
        angle = lua_globals(sim, "angle")[k] * np.sign(lua_globals(sim, "axis_z")[k])
        assert math.remainder(angle - yaw, 2 * math.pi) == pytest.approx(0, abs=1e-9)
        assert lua_globals(sim, "w")[k] == pytest.approx(math.cos(yaw / 2), abs=1e-9) or \
            lua_globals(sim, "w")[k] == pytest.approx(-math.cos(yaw / 2), abs=1e-9)
        assert [lua_globals(sim, "left")[k], lua_globals(sim, "right")[k]] == \
            g.readings["encoders"][k].tolist()
        assert lua_globals(sim, "left")[k] > 0
        assert lua_globals(sim, "tof")[k] == int(g.readings["tof_mm"][k])


def test_host_functions_of_any_type_are_robot_methods(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step()
  if not up then robot.takeoff(50); up = true end
  robot.leds.set_all_colors("blue")
end""", robot_type="crazyflie", count=2, arena=3.0)
    sim.run(60)
    assert sim.robot_failures() == []
    assert np.all(sim.world.bodies.z > 0.3)   # 50 cm asked, in flight
    assert sim.commands("g")["leds"][0].tolist()[0] == [0, 0, 255]


def test_commands_given_in_init_take_effect_at_the_first_tick(tmp_path, runtime):
    # ARGoS applies what init() set on the actuators with the first step's commands
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function init() robot.takeoff(50); robot.leds.set_all_colors("red"); n = 0 end
function step()
  n = n + 1
  if n == 40 then robot.goto_(10, 0, 50) end
end""", robot_type="crazyflie", count=2, arena=3.0)
    sim.run(60)
    assert sim.robot_failures() == []
    assert np.all(sim.world.bodies.z > 0.3)
    assert sim.commands("g")["leds"][0].tolist()[0] == [255, 0, 0]
    wheels = lua_sim(tmp_path, runtime=runtime, source="""
function init() robot.wheels.set_velocity(5, 5) end
function step() end""", count=1)
    wheels.step()
    assert wheels.commands("g")["wheels"].tolist() == [[0.05, 0.05]]


def test_range_and_bearing_in_centimetres_with_the_senders_bytes(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function init() robot.range_and_bearing.set_data({7, 40 + #robot.id}) end
function step()
  heard = {}
  for i = 1, #robot.range_and_bearing do
    local m = robot.range_and_bearing[i]
    heard[i] = {m.range, m.horizontal_bearing, m.data[1], m.data[2], #m.data}
  end
end""", count=3, radio={"range": 3.0})
    sim.run(3)
    g = sim.groups[0]
    box = sim.ports[0].robot_inbox(0)
    sim.groups[0].controllers[0].step(g.views[0])
    heard = lua_globals(sim, "heard")[0]
    assert len(heard) == len(box) == 2
    for i in range(2):
        rng, bearing, b1, b2, size = (heard[i + 1][j] for j in range(1, 6))
        assert rng == pytest.approx(box.distance_m[i] * 100)
        assert bearing == pytest.approx(box.azimuth_rad[i])
        assert (b1, b2, size) == (7, 42, 2)


def test_set_data_checks_its_array_as_argos_does(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="function step() robot.range_and_bearing.set_data({1, 2, 3}) end",
                  count=1, radio={"range": 1.0})
    sim.step()
    (f,) = sim.robot_failures()
    assert "ctrl.lua:1:" in f["error"]
    assert "expects an array of 2 numbers" in f["error"]


def test_random_is_seeded_per_robot_and_reproducible(tmp_path, runtime):
    script = """
function init()
  u = {}; for i = 1, 400 do u[i] = robot.random.uniform() end
  a = robot.random.uniform(5)
  b = robot.random.uniform(-2, 2)
  i1 = robot.random.uniform_int(10)
  i2 = robot.random.uniform_int(3, 6)
  g = robot.random.gaussian(0.5, 10)
  e = robot.random.exponential(2)
  bern = robot.random.bernoulli(1)
  po = robot.random.poisson(3)
  m = math.random(1, 6)
end
function step() end"""
    first = lua_sim(tmp_path, runtime=runtime, source=script, count=3, seed=7)
    first.step()
    again = lua_sim(tmp_path, runtime=runtime, source=script, count=3, seed=7)
    again.step()
    other = lua_sim(tmp_path, runtime=runtime, source=script, count=3, seed=8)
    other.step()
    u = [list(t.values()) for t in lua_globals(first, "u")]
    assert u == [list(t.values()) for t in lua_globals(again, "u")]
    assert u[0] != u[1]                                   # each robot has its own stream
    assert u[0] != list(lua_globals(other, "u")[0].values())
    draws = np.array(u).ravel()
    assert 0.0 <= draws.min() and draws.max() < 1.0 and abs(draws.mean() - 0.5) < 0.05
    for k in range(3):
        assert 0 <= lua_globals(first, "a")[k] < 5
        assert -2 <= lua_globals(first, "b")[k] < 2
        assert lua_globals(first, "i1")[k] in range(10)
        assert lua_globals(first, "i2")[k] in range(3, 6)
        assert lua_globals(first, "e")[k] >= 0
        assert lua_globals(first, "bern")[k] is True
        assert lua_globals(first, "po")[k] >= 0
        assert lua_globals(first, "m")[k] in range(1, 7)


def test_log_logerr_and_print_reach_the_run_log(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step()
  if robot.id == "g1" then log("speed ", 3, " ", true) logerr("bad") print("a", 1) end
end""", count=2)
    sim.run(2)
    lines = [(rid, tick, text) for _, _, rid, tick, text in sim.logs]
    assert (1, 0, "speed 3 true") in lines
    assert (1, 0, "error: bad") in lines
    assert (1, 1, "a\t1") in lines
    assert all(rid == 1 for rid, _, _ in lines)


def test_require_loads_modules_next_to_the_script_into_the_robots_globals(tmp_path, runtime):
    (tmp_path / "helper.lua").write_text(
        "local M = {}\nfunction M.name() return 'robot ' .. robot.id end\nreturn M\n")
    sim = lua_sim(tmp_path, runtime=runtime, source="""
local helper = require("helper")
function step() name = helper.name() end""", count=2)
    sim.step()
    assert lua_globals(sim, "name") == ["robot g0", "robot g1"]


def test_reset_calls_reset_and_replays_the_random_streams(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function init() resets = 0 end
function step() last = robot.random.uniform() end
function reset() resets = resets + 1 end""", count=2)
    sim.run(4)
    before = lua_globals(sim, "last")
    sim.reset()
    sim.run(4)
    assert lua_globals(sim, "resets") == [1, 1]
    assert lua_globals(sim, "last") == before


def test_destroy_runs_at_the_end_of_a_run(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step() end
function destroy() log("bye ", robot.id) end""", count=2)
    sim.run(2)
    sim.finish()
    assert [t for *_, t in sim.logs] == ["bye g0", "bye g1"]


def test_batched_runs_reproduce_runs_simulated_alone(tmp_path, runtime):
    script = """
function step()
  local t = robot.random.uniform(-10, 10)
  robot.wheels.set_velocity(8 + t, 8 - t)
end"""
    batch = lua_sim(tmp_path, runtime=runtime, source=script, count=4, seed=3, runs=2, sensors={"proximity": True})
    batch.run(40)
    alone = lua_sim(tmp_path, runtime=runtime, source=script, count=4, seed=4, sensors={"proximity": True})
    alone.run(40)
    b = batch.world.bodies
    rows = np.flatnonzero(b.run == 1)
    assert np.array_equal(b.x[rows], alone.world.bodies.x)
    assert np.array_equal(b.yaw[rows], alone.world.bodies.yaw)


def test_reset_reloads_only_the_robots_whose_script_failed(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function init() inits = (inits or 0) + 1; resets = 0; n = 0 end
function step()
  n = n + 1
  if robot.id == "g1" and n == 2 and not broke_once then error("boom") end
end
function reset() resets = resets + 1 end""", count=3)
    sim.run(3)
    assert [f["robot"] for f in sim.robot_failures()] == [1]
    sim.reset()
    assert sim.robot_failures() == []
    assert lua_globals(sim, "resets") == [1, 0, 1]     # g1 was loaded afresh instead
    assert lua_globals(sim, "inits") == [1, 1, 1]
    sim.run(3)
    assert [f["robot"] for f in sim.robot_failures()] == [1]   # and it runs (and fails) again


def test_both_runtimes_draw_the_same_random_numbers(tmp_path):
    script = """
function init() u = {} for i = 1, 50 do u[i] = robot.random.uniform() end
  g = robot.random.gaussian(1) end
function step() end"""
    draws = []
    for runtime in ("lua5.3", "luajit"):
        sim = lua_sim(tmp_path, script, count=2, seed=11, runtime=runtime)
        sim.step()
        draws.append([(list(t.values()), g) for t, g in zip(lua_globals(sim, "u"),
                                                             lua_globals(sim, "g"))])
    assert draws[0] == draws[1]


def test_readings_of_varying_shape_arrive_too(tmp_path, runtime):
    # the camera's blob list changes length with what the robot sees: converted per robot
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step()
  blobs = {}
  for i = 1, #robot.camera do
    local b = robot.camera[i]
    blobs[i] = {b.column, b.row, b.color.red, b.color.green, b.color.blue}
  end
  robot.leds.set_all_colors("red")
end""", count=6, sensors={"camera": True},
                  top={"lights": [{"position": [0.2, 0.0, 0.05], "intensity": 1.0}]})
    sim.run(4)
    g = sim.groups[0]
    g.controllers[0].step(g.views[0])
    seen = 0
    for k, blobs in enumerate(lua_globals(sim, "blobs")):
        rows = [r for r in g.readings["camera"][k].tolist() if r[0] >= 0]
        got = [[b[j] for j in range(1, 6)] for b in blobs.values()]
        assert got == rows
        seen += len(rows)
    assert seen > 0
