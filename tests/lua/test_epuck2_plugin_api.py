"""The E-Puck2 plug-in's own Lua API on E-Puck2 groups: its reading forms (robot.tof a number,
robot.encoder.left, robot.battery.time_left, whole-pixel camera blobs) against the simulator's
readings, and its LED functions against the LED commands."""

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.lua.luasim import lua_globals, lua_sim

ALL = {"proximity": True, "light": True, "ground": True, "tof": True, "encoders": True,
       "camera": True, "battery": {"model": "cubic", "start_charge": 0.8}}
FACING = {"placement": {"kind": "explicit", "poses": [[-0.2, 0, 0], [0.2, 0.01, 3.14159]]}}

READ = """
function init() robot.colored_blob_perspective_camera.enable() end
function step()
  robot.leds.set_all_rgb_colors("red")
  robot.wheels.set_velocity(4, -3)
  tof, tof_type = robot.tof, type(robot.tof)
  left, right = robot.encoder.left, robot.encoder.right
  left1 = robot.encoder[1].left
  charge, time_left = robot.battery.available_charge, robot.battery.time_left
  prox, light, ground = {}, {}, {}
  for i = 1, 8 do prox[i] = robot.proximity[i].value; light[i] = robot.light[i].value end
  for i = 1, 3 do ground[i] = robot.ground[i] end
  blobs = {}
  for i = 1, #robot.colored_blob_perspective_camera do
    local b = robot.colored_blob_perspective_camera[i]
    blobs[i] = string.format("%d %d %d %d %d", b.x, b.y, b.color.red, b.color.green,
                             b.color.blue)
  end
end
"""


def _list(table, n):
    return [table[i] for i in range(1, n + 1)]


def test_readings_in_the_plugins_forms_and_units(tmp_path, runtime):
    sim = lua_sim(tmp_path, READ, runtime=runtime, count=0, sensors=ALL, extra=FACING)
    g = sim.groups[0]
    dt = sim.world.dt
    sim.step()
    # the first update compares the charge with ARGoS's reading before it, a full battery
    first = lua_globals(sim, "charge")
    assert first == [0.8, 0.8]
    assert lua_globals(sim, "time_left") == [pytest.approx(1.0 * dt / 0.2)] * 2
    before = first
    seen_blobs = 0
    for _ in range(12):
        r = {name: arr.copy() for name, arr in g.readings.items()}   # what step() will see
        sim.step()
        assert sim.robot_failures() == []
        for k in range(2):
            got = {name: lua_globals(sim, name)[k] for name in
                   ("tof", "tof_type", "left", "right", "left1", "charge", "time_left",
                    "prox", "light", "ground", "blobs")}
            assert got["tof_type"] == "number" and got["tof"] == int(r["tof_mm"][k])
            assert [got["left"], got["right"]] == r["encoders"][k].tolist()
            assert got["left1"] == got["left"]
            assert _list(got["prox"], 8) == r["proximity"][k].tolist()
            assert _list(got["light"], 8) == r["light"][k].tolist()
            assert _list(got["ground"], 3) == r["ground"][k].tolist()
            now = float(r["battery"][k])
            assert got["charge"] == now
            lost = before[k] - now
            want = before[k] * dt / lost if abs(lost) > 1e-6 else math.inf
            assert got["time_left"] == pytest.approx(want, rel=1e-12)
            before[k] = now
            # ARGoS's blobs are whole pixels
            cam = r["camera"][k]
            want_blobs = [f"{math.floor(c + 0.5)} {math.floor(w + 0.5)} {int(red)} {int(gr)} "
                          f"{int(bl)}" for c, w, red, gr, bl in cam if c >= 0]
            assert _list(got["blobs"], len(want_blobs)) == want_blobs
            seen_blobs += len(want_blobs)
    assert seen_blobs > 0
    assert lua_globals(sim, "left")[0] > 0 and lua_globals(sim, "right")[0] < 0
    assert before[0] < 0.8   # the charge went down: time_left was finite


def test_battery_time_left_is_zero_when_empty(tmp_path):
    sim = lua_sim(tmp_path, "function step() t = robot.battery.time_left end", count=1,
                  sensors={"battery": {"model": "cubic", "start_charge": 0.0}})
    sim.run(3)
    assert lua_globals(sim, "t") == [0.0]


# (script, LED colours after it: 0-based LEDs 0–7 ring, 8 front, 9 body)
OFF = [[0, 0, 0]] * 10
RED, GREEN = [255, 0, 0], [0, 255, 0]


def _leds(changes: dict) -> list:
    out = [list(c) for c in OFF]
    for i, c in changes.items():
        out[i] = c
    return out


LED_CASES = [
    ('robot.leds.set_all_rgb_colors("white")', _leds({i: [255] * 3 for i in (1, 3, 5, 7)})),
    ("robot.leds.set_all_rgb_colors(10, 20, 30)",
     _leds({i: [10, 20, 30] for i in (1, 3, 5, 7)})),
    ("robot.leds.set_all_rgb_colors('1,2,3')", _leds({i: [1, 2, 3] for i in (1, 3, 5, 7)})),
    ("robot.leds.set_all_reds(true)", _leds({i: RED for i in (0, 2, 4, 6)})),
    ("robot.leds.set_all_reds(true); robot.leds.set_all_reds(false)", OFF),
    ("robot.leds.set_single_rgb_color(4, 'magenta')", _leds({3: [255, 0, 255]})),
    ("robot.leds.set_single_rgb_color(8, 200.7, 1, 2)", _leds({7: [200, 1, 2]})),
    ("robot.leds.set_single_red(5, true)", _leds({4: RED})),
    ("robot.leds.set_front(true)", _leds({8: RED})),
    ("robot.leds.set_body(true)", _leds({9: GREEN})),
    ("robot.leds.set_all_colors('yellow'); robot.leds.set_body(false); "
     "robot.leds.set_front(false)",
     # ARGoS's generic function still sets every LED (each shows the channels it has)
     [[255, 255, 0]] * 8 + [OFF[0], OFF[0]]),
]


@pytest.mark.parametrize("call, want", LED_CASES, ids=[c for c, _ in LED_CASES])
def test_plugin_led_functions(tmp_path, runtime, call, want):
    sim = lua_sim(tmp_path, f"function step() {call} end", runtime=runtime, count=1)
    sim.run(2)
    assert sim.robot_failures() == []
    assert sim.commands("g")["leds"][0].tolist() == want


def test_plugin_leds_set_in_init_hold_from_the_first_tick(tmp_path):
    sim = lua_sim(tmp_path, """
function init() robot.leds.set_all_rgb_colors("blue"); robot.leds.set_body(true) end
function step() end""", count=1)
    sim.step()
    leds = sim.commands("g")["leds"][0].tolist()
    assert leds[1] == [0, 0, 255] and leds[9] == GREEN and leds[0] == [0, 0, 0]


@pytest.mark.parametrize("call, message", [
    ("robot.leds.set_single_rgb_color(3, 'red')", "passed index 3 is not an RGB LED [2,4,6,8]"),
    ("robot.leds.set_single_red(2, true)", "passed index 2 is not a Red LED [1,3,5,7]"),
    ("robot.leds.set_single_red(1, 1)",
     "bad argument #2 to 'set_single_red' (boolean expected, got number)"),
    ("robot.leds.set_front()", "robot.leds.set_front() expects 1 argument"),
    ("robot.leds.set_body('on')", "bad argument #1 to 'set_body' (boolean expected, got string)"),
    ("robot.leds.set_all_reds(true, false)", "robot.leds.set_all_reds() expects 1 argument"),
    ("robot.leds.set_all_rgb_colors(1, 2)",
     "robot.leds.set_all_rgb_colors() expects 1 or 3 arguments"),
    ("robot.leds.set_single_rgb_color('2', 'red')",
     "bad argument #1 to 'set_single_rgb_color' (number expected, got string)"),
    ("robot.leds.set_single_rgb_color(2, 'mauve')", 'unknown colour "mauve"'),
    ("robot.leds.set_all_rgb_colors(0, 0, 300)", "colour component 300 is outside 0-255"),
    ("robot.leds.set_all_colors('0,0,300')", "colour component 300 is outside 0-255"),
])
def test_plugin_led_errors_name_the_script_line(tmp_path, runtime, call, message):
    sim = lua_sim(tmp_path, f"function step()\n  {call}\nend", runtime=runtime, count=1)
    sim.run(2)
    failures = sim.robot_failures()
    assert len(failures) == 1
    assert message in failures[0]["error"]
    assert failures[0]["error"].startswith(f"{tmp_path / 'ctrl.lua'}:2:")
    assert "epuck2.lua" not in failures[0]["report"]


def test_other_types_keep_argos_generic_forms(tmp_path):
    sim = lua_sim(tmp_path, """
function step()
  front = type(robot.leds.set_front)
  generic = type(robot.leds.set_all_colors)
end""", robot_type="rvr", count=1, arena=3.0)
    sim.run(1)
    assert lua_globals(sim, "front") == ["nil"] and lua_globals(sim, "generic") == ["function"]


LED_FUNCTIONS = ["set_all_rgb_colors", "set_single_rgb_color", "set_all_reds", "set_single_red",
                 "set_front", "set_body"]
LUA_ARG = st.one_of(
    st.integers(-3, 300).map(str),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(repr),
    st.sampled_from(["0/0", "1/0", "true", "false", "nil", "{}", "'red'", "'gray50'",
                     "'1,2,3'", "'300,0,0'", "print"]),
    st.text(alphabet="abc ,0123456789", max_size=8).map(lambda t: "'" + t + "'"),
)


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fn=st.sampled_from(LED_FUNCTIONS), args=st.lists(LUA_ARG, max_size=5))
def test_any_arguments_to_the_plugin_led_functions_work_or_fail_located(tmp_path, fn, args):
    sim = lua_sim(tmp_path, f"function step()\n  robot.leds.{fn}({', '.join(args)})\nend",
                  count=1)
    sim.run(1)
    failures = sim.robot_failures()
    if failures:
        assert len(failures) == 1
        assert failures[0]["error"].startswith(f"{tmp_path / 'ctrl.lua'}:2: ")
    leds = sim.commands("g")["leds"][0]
    assert leds.shape == (10, 3)
