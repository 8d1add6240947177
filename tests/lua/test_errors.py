"""A broken Lua script is reported with FILE:LINE and the robot id, never with a traceback."""

import string

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tests.lua.luasim import lua_sim
from swarmstack.cli import app
from swarmstack.controllers.api import ControllerError
from swarmstack.experiments.config import ConfigError


def test_a_syntax_error_fails_before_tick_0_with_file_and_line(tmp_path):
    with pytest.raises(ConfigError) as err:
        lua_sim(tmp_path, "function step()\n  local x = = 1\nend\n")
    text = str(err.value)
    assert "robots[0].controller.lua" in text
    assert f"{tmp_path / 'ctrl.lua'}:2:" in text


def test_a_missing_script_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError) as err:
        lua_sim(tmp_path, "function step() end").__class__.from_dict(
            {"arena": {"size": [1, 1]}, "robots": [
                {"name": "g", "count": 1, "controller": {"lua": "nope.lua"}}]},
            base_dir=tmp_path)
    assert "nope.lua" in str(err.value)


def test_a_runtime_error_stops_that_robot_only(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, source="""
n = 0
function step()
  n = n + 1
  robot.wheels.set_velocity(5, 5)
  if robot.id == "g1" and n == 3 then
    local t = nil
    t.x = 1
  end
end""")
    sim.run(6)
    (f,) = sim.robot_failures()
    assert (f["robot"], f["tick"], f["where"]) == (1, 2, "step")
    # Lua 5.3: "attempt to index a nil value (local 't')"; LuaJIT: "attempt to index local 't'"
    assert f["error"].startswith(f"{tmp_path / 'ctrl.lua'}:8: attempt to index ")
    assert "'t'" in f["error"]
    assert "stack traceback" in f["report"] and "runtime.lua" not in f["report"]
    wheels = sim.commands("g")["wheels"]
    assert wheels[1].tolist() == [0.0, 0.0]             # the type's safe command
    assert wheels[0].tolist() == wheels[2].tolist() == [0.05, 0.05]
    assert any(rid == 1 and "Lua error (step)" in text and "ctrl.lua:8" in text
               for _, _, rid, _, text in sim.logs)


def test_strict_stops_the_run_with_the_robot_and_line(tmp_path):
    sim = lua_sim(tmp_path, "function step()\n  error('no way')\nend", strict=True)
    with pytest.raises(ControllerError) as err:
        sim.run(2)
    assert err.value.robot_id == 0
    assert "ctrl.lua:2: no way" in str(err.value)


@pytest.mark.parametrize("script, where, message", [
    ("x = 1", "load", "defines no function step()"),
    ("function init() error({}) end\nfunction step() end", "init",
     "ctrl.lua:1: (error object is a table value)"),
    ("local a = nil + 1\nfunction step() end", "top level",
     "ctrl.lua:1: attempt to perform arithmetic on a nil value"),
    ("function step() robot.wheels.set_velocity(1) end", "step",
     "ctrl.lua:1: robot.wheels.set_velocity() expects 2 arguments"),
    ("function step() robot.leds.set_all_colors('mauve') end", "step",
     "ctrl.lua:1: set_all_colors: unknown colour \"mauve\""),
    ("function step() robot.leds.set_single_color(11, 1, 2, 3) end", "step",
     "ctrl.lua:1: passed index 11 out of bounds [1,10]"),
    ("function step()\n robot.random.gaussian()\nend", "step",
     "ctrl.lua:2: robot.random.gaussian() expects 1 or 2 arguments"),
    ("function step() robot.set_wheels('fast', 1) end", "step",
     "ctrl.lua:1: robot.set_wheels(): argument 1 must be a number, found string"),
    ("function step() robot.range_and_bearing.set_data(1, 2) end", "step",
     "ctrl.lua:1: robot.range_and_bearing: this robot's group has no radio"),
    ("function step() os.exit(1) end", "step",
     "ctrl.lua:1: os is not available to robot controllers"),
    ("step = 3", "load", "defines no function step()"),
])
def test_script_errors_name_the_line_and_the_robot(tmp_path, runtime, script, where, message):
    sim = lua_sim(tmp_path, script, count=2, runtime=runtime)
    sim.run(2)
    failures = sim.robot_failures()
    assert [f["robot"] for f in failures] == [0, 1]
    assert all(f["where"] == where and message in f["error"] for f in failures), failures
    assert np.all(sim.commands("g")["wheels"] == 0)


def test_a_host_function_refusing_its_arguments_stops_the_robot(tmp_path):
    sim = lua_sim(tmp_path, "function step() robot.goto_(10, 0, 50) end", robot_type="crazyflie",
                  count=1, arena=3.0)
    sim.run(2)
    (f,) = sim.robot_failures()
    assert f["error"].startswith("robot.goto(): ") and "before takeoff()" in f["error"]


def _run_cli(tmp_path, script: str, count: int):
    """`swarmstack run` for 3 ticks of ``count`` robots running the Lua ``script``."""
    (tmp_path / "ctrl.lua").write_text(script)
    (tmp_path / "exp.toml").write_text(
        f'[arena]\nsize = [1.0, 1.0]\n[[robots]]\nname = "g"\ncount = {count}\n'
        'controller = { lua = "ctrl.lua" }\n')
    return CliRunner().invoke(app, ["run", str(tmp_path / "exp.toml"), "--out",
                                    str(tmp_path / "out"), "--ticks", "3", "--quiet"])


def test_the_cli_reports_a_failed_robot_with_file_and_line(tmp_path):
    result = _run_cli(tmp_path, "function step()\n  robot.nothing.here = 1\nend\n", 2)
    assert "Traceback" not in result.output
    assert "ctrl.lua:2: attempt to index a nil value (field 'nothing')" in result.output



def test_speeds_clamped_from_a_script_are_not_blamed_on_metres_per_second(tmp_path):
    # a Lua script writes cm/s already: the hint for Python controllers would mislead
    result = _run_cli(tmp_path, "function step() robot.wheels.set_velocity(90, 90) end\n", 1)
    assert result.exit_code == 0, result.output
    assert "wheel speeds above the robot's maximum were clamped in 3 robot-ticks" in result.output
    assert "m/s" not in result.output

LUA_WORDS = ["function", "end", "step", "init", "robot", ".", "(", ")", "=", "local", "if",
             "then", "else", "return", "nil", "1", "x", "{", "}", "[", "]", "..", "#", "\n",
             "'", "\"", "--", "wheels", "set_velocity", "proximity", "while", "do", ",", "error",
             "log", "math.huge", "true", "goto", "::", "~", "<<", "//"]


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(
    st.lists(st.sampled_from(LUA_WORDS), max_size=40).map(" ".join),
    st.text(alphabet=string.printable, max_size=200),
    st.binary(max_size=100).map(lambda b: b.decode("latin-1")),
).map(lambda body: "function step()\n" + body + "\nend\n" if len(body) % 2 else body))
@example("\x1b\x00")                # what Lua would take for a precompiled chunk
@example("function step() while true do end end")
def test_any_script_loads_or_fails_with_a_located_message(tmp_path, source):
    path = tmp_path / "ctrl.lua"
    try:
        sim = lua_sim(tmp_path, source, count=2, sensors={"proximity": True})
    except ConfigError as exc:
        assert f"robots[0].controller.lua: {path}:" in str(exc)
        return
    sim.run(3)
    for f in sim.robot_failures():
        assert f["robot"] in (0, 1)
        assert f["error"]


def test_an_endless_loop_stops_that_robot_instead_of_the_simulation(tmp_path, runtime):
    # under LuaJIT the guard is on by default too (the scripts then run without the compiler)
    sim = lua_sim(tmp_path, runtime=runtime, source="""
function step()
  if robot.id == "g0" then
    while true do end
  end
  robot.wheels.set_velocity(1, 1)
end""", count=2)
    sim.run(2)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0
    assert f["error"].startswith(f"{tmp_path / 'ctrl.lua'}:4: ran for more than 100 million")
    assert sim.commands("g")["wheels"][1].tolist() == [0.01, 0.01]


@pytest.mark.parametrize("controller, message", [
    ({"lua": 5}, "robots[0].controller.lua: expected a valid string"),
    ({"lua": "ctrl.lua", "distance_unit": "m"}, "distance_unit and profile apply to Buzz"),
    ({"buzz": "ctrl.lua", "loop_guard": False}, "loop_guard applies to Lua controllers only"),
    ({"lua": "ctrl.lua", "loop_guard": "maybe"}, "robots[0].controller.loop_guard"),
    ({"lua": "ctrl.lua", "python": "x.py:X"}, "found python and lua"),
    ({"lua": "sub"}, "robots[0].controller.lua: cannot read"),
    ({"lua": "missing.lua"}, "robots[0].controller.lua: cannot read Lua script"),
    ({"lua": "a\0b.lua"}, "a file name cannot contain a NUL character"),
])
def test_a_bad_lua_key_is_a_config_error_naming_it(tmp_path, controller, message):
    from swarmstack.sim.simulation import Simulation

    (tmp_path / "ctrl.lua").write_text("function step() end\n")
    (tmp_path / "sub").mkdir()
    cfg = {"arena": {"size": [1.0, 1.0]},
           "robots": [{"name": "g", "count": 1, "controller": controller}]}
    with pytest.raises(ConfigError) as err:
        Simulation.from_dict(cfg, base_dir=tmp_path, source="exp.toml")
    assert str(err.value).startswith("exp.toml: robots[0].controller")
    assert message in str(err.value)


PARAM = st.recursive(
    st.one_of(st.integers(-2 ** 63, 2 ** 63 - 1), st.floats(allow_nan=False, allow_infinity=False),
              st.booleans(), st.text(max_size=20)),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4)),
    max_leaves=12)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.text(min_size=1, max_size=10), PARAM, max_size=5))
def test_any_params_reach_robot_params(tmp_path, params):
    sim = lua_sim(tmp_path, """
local function walk(v, depth)
  if type(v) == "table" then
    local n = 0
    for k, x in pairs(v) do n = n + 1 + walk(x, depth + 1) end
    return n
  end
  return 0
end
function init() count = walk(robot.params, 0) end
function step() end""", count=1, params=params)
    sim.run(1)
    assert sim.robot_failures() == []

    def size(v):
        if isinstance(v, dict):
            return sum(1 + size(x) for x in v.values())
        if isinstance(v, list):
            return sum(1 + size(x) for x in v)
        return 0

    resolved = sim.groups[0].cfg.controller.params
    assert sim.groups[0].controllers[0].get_global(0, "count") == size(resolved)


@pytest.mark.parametrize("loop_guard, compiled", [(True, False), (False, True)])
def test_luajit_compiles_only_without_the_loop_guard(tmp_path, loop_guard, compiled):
    from tests.lua.luasim import lua_globals

    sim = lua_sim(tmp_path, runtime="luajit", count=1,
                  extra={"controller": {"lua": "ctrl.lua", "runtime": "luajit",
                                        "loop_guard": loop_guard}},
                  source="function step() compiled = jit.status() end")
    sim.run(1)
    assert lua_globals(sim, "compiled") == [compiled]
