"""ARGoS's Lua API beyond the readings: the differential-steering sensor, the vector2 /
vector3 / quaternion value types and the radio on every type that has one."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.lua.luasim import lua_globals, lua_sim


@pytest.mark.parametrize("robot_type, axis_cm", [("epuck2", 5.3), ("rvr", 14.7)])
def test_differential_steering_reads_what_the_wheels_did_in_cm(tmp_path, runtime, robot_type,
                                                                axis_cm):
    sim = lua_sim(tmp_path, runtime=runtime, robot_type=robot_type, count=2, arena=3.0,
                  sensors={"differential_steering": True}, source="""
function step()
  w = robot.wheels
  seen = {w.velocity_left, w.velocity_right, w.distance_left, w.distance_right, w.axis_length}
  w.set_velocity(4, 8)
end""")
    sim.run(3)
    dt = sim.world.dt
    for seen in lua_globals(sim, "seen"):
        left, right, d_left, d_right, axis = (seen[i] for i in range(1, 6))
        assert (left, right) == pytest.approx((4.0, 8.0))
        assert (d_left, d_right) == pytest.approx((4.0 * dt, 8.0 * dt))
        assert axis == pytest.approx(axis_cm)


def test_vector_and_quaternion_values_behave_as_argos_types(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, count=1, sensors={"positioning": True},
                  extra={"placement": {"kind": "explicit", "poses": [[0.2, 0.3, 1.0]]}},
                  source="""
function step()
  local p, q = robot.positioning.position, robot.positioning.orientation
  shifted = p + vector3(1, 2, 3)
  sum = {shifted.x, shifted.y, shifted.z}
  scaled = (2 * vector3(1, 2, 2)):length()
  turned = vector3(1, 0, 0):rotate(q)
  ahead = {turned.x, turned.y, turned.z}
  local yaw = q:toeulerangles()
  same = q == quaternion(yaw, vector3(0, 0, 1))
  local id = q * q:inverse()
  unit = {id.w, id.x, id.y, id.z}
  crossed = vector3(1, 0, 0):cross(vector3(0, 1, 0)).z
  local v2 = vector2(1, 0):rotate(math.pi / 2) + vector2(1, 1)
  plane = {v2.x, v2.y, vector2(3, 4):length(), vector2(1, 2):dot(vector2(3, 4))}
  text = tostring(vector3(1, 2, 3))
  negated = (-vector3(1, 2, 3)).y
  local ok, msg = pcall(vector3, 1, 2)
  refused = msg
end""")
    sim.run(1)
    g = {name: lua_globals(sim, name)[0] for name in
         ("sum", "scaled", "ahead", "same", "unit", "crossed", "plane", "text", "negated",
          "refused")}
    z = sim.world.bodies.z[0]
    assert [g["sum"][i] for i in (1, 2, 3)] == pytest.approx([1.2, 2.3, 3.0 + z])
    assert g["scaled"] == pytest.approx(6.0)
    assert [g["ahead"][i] for i in (1, 2, 3)] == pytest.approx([math.cos(1.0), math.sin(1.0), 0],
                                                               abs=1e-9)
    assert g["same"] is True
    assert [g["unit"][i] for i in (1, 2, 3, 4)] == pytest.approx([1, 0, 0, 0], abs=1e-12)
    assert g["crossed"] == 1
    assert [g["plane"][i] for i in (1, 2, 3, 4)] == pytest.approx([1, 2, 5, 11], abs=1e-12)
    assert g["text"].replace(".0", "") == "1,2,3"
    assert g["negated"] == -2
    assert "invalid arguments to vector3" in g["refused"]


@pytest.mark.parametrize("robot_type", ["crazyflie", "rvr"])
def test_range_and_bearing_works_on_every_type_with_a_radio(tmp_path, robot_type):
    sim = lua_sim(tmp_path, robot_type=robot_type, count=3, arena=4.0, radio={"range": 5.0},
                  source="""
function init() robot.range_and_bearing.set_data(1, 9) end
function step()
  heard = #robot.range_and_bearing
  first = heard > 0 and robot.range_and_bearing[1].data[1] or -1
end""")
    sim.run(3)
    assert sim.robot_failures() == []
    assert lua_globals(sim, "heard") == [2, 2, 2]
    assert lua_globals(sim, "first") == [9, 9, 9]


def test_battery_charge_also_answers_to_argos_name(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, count=1, sensors={"battery": True}, source="""
function step() both = {robot.battery.charge, robot.battery.available_charge} end""")
    sim.run(2)
    both = lua_globals(sim, "both")[0]
    assert both[1] == both[2] and 0 < both[1] <= 1


ARG = st.one_of(st.floats(allow_nan=False, width=64), st.integers(-10 ** 6, 10 ** 6),
                st.text(max_size=5), st.none(), st.booleans())


@pytest.fixture(scope="module")
def lua_env(tmp_path_factory):
    """A robot's globals, to call the value types' constructors from Python."""
    sim = lua_sim(tmp_path_factory.mktemp("env"), "function step() end", count=1)
    sim.start()
    ctrl = sim.groups[0].controllers[0]
    env = ctrl.M.robots()[1][b"env"]
    call = ctrl.lua.eval(b"function(f, ...) local ok, v = pcall(f, ...) "
                         b"return ok, ok and tostring(v) or v end")
    return env, call


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(["vector2", "vector3", "quaternion"]),
       args=st.lists(ARG, max_size=5))
def test_value_type_constructors_take_numbers_and_refuse_anything_else(lua_env, name, args):
    env, call = lua_env
    args = [a.encode() if isinstance(a, str) else a for a in args]
    ok, text = call(env[name.encode()], *args)
    numbers = all(isinstance(a, (int, float)) and not isinstance(a, bool) for a in args)
    arity = {"vector2": (0, 2), "vector3": (0, 3), "quaternion": (0, 4)}[name]
    if numbers and len(args) in arity:
        assert ok, text
        parts = text.decode().split(",")
        assert len(parts) == max(arity)
        if args:
            # tostring writes 14 significant digits, as Lua's %.14g
            assert [float(p) for p in parts] == pytest.approx([float(a) for a in args],
                                                              rel=1e-13, abs=1e-300)
    else:
        assert not ok
        assert f"invalid arguments to {name}".encode() in text


def test_lua_5_3_compatibility_math_functions_argos_scripts_call(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, count=1, source="""
function step()
  local m, e = math.frexp(-48.0)
  local tiny_m, tiny_e = math.frexp(5e-324)
  got = {math.atan2(1, -1), math.pow(2, 10), math.log10(1000), math.cosh(0.5),
         math.sinh(-0.5), math.tanh(0.3), math.tanh(400), m, e, math.ldexp(0.75, 1024),
         tiny_m, tiny_e}
end""")
    sim.run(1)
    got = lua_globals(sim, "got")[0]
    want = [math.atan2(1, -1), 1024.0, 3.0, math.cosh(0.5), math.sinh(-0.5), math.tanh(0.3), 1.0,
            *math.frexp(-48.0), math.ldexp(0.75, 1024), *math.frexp(5e-324)]
    assert [got[i] for i in range(1, len(want) + 1)] == pytest.approx(want, rel=1e-14)


def test_perspective_camera_is_off_until_enabled_as_in_argos(tmp_path, runtime):
    facing = {"placement": {"kind": "explicit", "poses": [[-0.3, 0, 0], [0.3, 0, 3.14159]]}}
    sim = lua_sim(tmp_path, runtime=runtime, count=0, sensors={"camera": True}, extra=facing,
                  source="""
function init() robot.leds.set_all_colors("red") end
function step()
  local cam = robot.colored_blob_perspective_camera
  if ticks == nil then ticks = 0; before = #cam; cam.enable() end
  ticks = ticks + 1
  seen, same = #cam, true
  for i = 1, #cam do
    local b, c = cam[i], robot.camera[i]
    -- ARGoS's blobs are whole pixels
    same = same and b.x == math.floor(c.column + 0.5) and b.y == math.floor(c.row + 0.5)
      and b.x % 1 == 0 and b.color.red == c.color.red
  end
end""")
    sim.run(5)
    assert lua_globals(sim, "before") == [0, 0]
    assert all(lua_globals(sim, "same"))
    camera = sim.groups[0].readings["camera"]
    seen = [int((camera[k, :, 0] >= 0).sum()) for k in range(2)]
    assert min(seen) > 0 and lua_globals(sim, "seen") == seen


def test_what_init_and_reset_set_holds_from_the_first_tick(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, count=2, source="""
function init() robot.leds.set_all_colors("green"); robot.wheels.set_velocity(3, 3) end
function step() end
function reset() robot.leds.set_all_colors("blue") end""")
    sim.run(1)
    commands = sim.commands("g")
    assert np.all(commands["leds"][:, 0] == [0, 255, 0])
    assert commands["wheels"].tolist() == [[0.03, 0.03]] * 2
    sim.reset()
    assert np.all(sim.commands("g")["leds"][:, 0] == [0, 0, 255])
