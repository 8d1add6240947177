"""Hostile Lua scripts: none outruns the loop guard, escapes the sandbox, or takes the process
down; each failure is a located error that stops its robot, and a stopped run says so."""

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from swarmstack.experiments.config import ConfigError, parse_experiment
from swarmstack.experiments.results_writer import read_summary
from swarmstack.experiments.runner import run_experiment
from tests.lua.luasim import lua_globals, lua_sim

BUDGET = "ran for more than 100 million Lua instructions in one call"
REFUSED = "is not available to robot controllers"
TIMEOUT = 90   # generous: a loaded machine may be slow to start Python


def _only_g0(body: str) -> str:
    """A script whose robot g0 runs ``body`` in step(); g1 drives."""
    return ("function step()\n  if robot.id == 'g0' then\n" + body +
            "\n  end\n  robot.wheels.set_velocity(1, 1)\nend\n")


# ------------------------------------------------------------------ the guard
LOOPS = {
    "pcall": "while true do pcall(function() while true do end end) end",
    "xpcall handler": "xpcall(function() error('x') end, function() while true do end end)",
    "xpcall both": "local function loop() while true do end end\nxpcall(loop, loop)",
    "coroutine.wrap": "coroutine.wrap(function() while true do end end)()",
    "wrap in pcall": "while true do pcall(coroutine.wrap(function() while true do end end)) end",
    "resume": "while true do coroutine.resume(coroutine.create(function() while true do end end))"
              " end",
    "load": "while true do pcall(load('while true do end')) end",
    "error handler in pcall": "while true do pcall(xpcall, function() error() end, "
                              "function() while true do end end) end",
}


@pytest.mark.parametrize("body", LOOPS.values(), ids=LOOPS.keys())
def test_no_loop_outruns_the_guard(tmp_path, runtime, body):
    sim = lua_sim(tmp_path, _only_g0(body), count=2, runtime=runtime)
    sim.run(2)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0 and f["where"] == "step"
    # located: the script's line (or the loaded chunk's)
    assert re.match(rf"({re.escape(str(tmp_path / 'ctrl.lua'))}|\[string .*\]):\d+: {BUDGET}",
                    f["error"]), f["error"]
    assert sim.commands("g")["wheels"][1].tolist() == [0.01, 0.01]


FINALISERS = [
    "setmetatable({}, {__gc = function() while true do end end})",
    "local mt = getmetatable(vector3())\nmt.__gc = function() while true do end end\nvector3()",
]


@pytest.mark.parametrize("body", FINALISERS)
def test_no_finaliser_runs_out_of_the_guards_reach(tmp_path, runtime, body):
    # Lua 5.3 runs __gc with hooks off: a loop there would hang the run
    sim = lua_sim(tmp_path, _only_g0(body + "\ncollectgarbage('count')"), count=2,
                  runtime=runtime)
    sim.run(2)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0
    assert f["error"].startswith(f"{tmp_path / 'ctrl.lua'}:")


# ------------------------------------------------------------------ the sandbox
ESCAPES = {
    "os.exit through the registry": ("debug.getregistry()._LOADED.os.exit(3)", "debug"),
    "debug.sethook": ("debug.sethook()", "debug"),
    "loadlib": ("package.loadlib('libc.so.6', 'abort')()", "package"),
    "os.execute": ("os.execute('true')", "os"),
    "os.getenv": ("os.getenv('HOME')", "os"),
    "io.open": ("io.open('/etc/passwd')", "io.open"),
    "io.popen": ("io.popen('true')", "io.popen"),
    "dofile": ("dofile('/etc/passwd')", "dofile"),
    "loadfile": ("loadfile('/etc/passwd')", "loadfile"),
    "require os": ("require('os').exit(3)", "os"),
    "python": ("python.eval('1')", "python"),
    "upvalues of log": ("debug.getupvalue(log, 1)", "debug"),
    "getfenv": ("getfenv(robot.wheels.set_velocity).os.exit(3)", "getfenv"),
    "collectgarbage": ("collectgarbage('collect')", 'collectgarbage("collect")'),
}


@pytest.mark.parametrize("body, name", ESCAPES.values(), ids=ESCAPES.keys())
def test_the_sandbox_refuses_what_a_controller_does_not_need(tmp_path, runtime, body, name):
    sim = lua_sim(tmp_path, _only_g0("    " + body), count=2, runtime=runtime)
    sim.run(2)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0
    assert f["error"].startswith(f"{tmp_path / 'ctrl.lua'}:3: {name} {REFUSED} (")


@pytest.mark.parametrize("body", [
    "load(string.dump(function() end))()",
    "load(('').dump(function() end))()",
    "getmetatable('').__index.dump(print)",
])
def test_no_binary_chunk_and_no_way_to_them(tmp_path, runtime, body):
    # string.dump is gone, from the library and from the strings' metatable
    sim = lua_sim(tmp_path, _only_g0("    " + body), count=2, runtime=runtime)
    sim.run(2)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0 and f["error"].startswith(f"{tmp_path / 'ctrl.lua'}:3: ")


def test_a_luajit_script_cannot_turn_the_compiler_on(tmp_path):
    # compiled loops never call the hook: jit.on() would let a loop outrun the guard
    sim = lua_sim(tmp_path, _only_g0("    compiled = jit.status()\n    jit.on()"), count=2,
                  runtime="luajit")
    sim.run(2)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0 and f["error"].startswith(f"{tmp_path / 'ctrl.lua'}:4: ")
    assert lua_globals(sim, "compiled") == [False, None]


def test_what_a_controller_uses_is_there(tmp_path, runtime):
    sim = lua_sim(tmp_path, runtime=runtime, count=1, source="""
function step()
  local t = {}
  for i, v in ipairs({3, 1, 2}) do t[#t + 1] = v end
  table.sort(t)
  local ok, msg = pcall(error, "caught", 0)
  local co = coroutine.wrap(function(a) coroutine.yield(a + 1) return 0 end)
  local f = load("return ...")
  result = string.format("%d %s %s %d %s %s", select("#", 1, 2), tostring(ok), msg, co(1),
                         type(math.floor), f(7)) .. table.concat(t, ",")
  memory = collectgarbage("count") > 0
  setmetatable({}, {__index = function() return 1 end})
  io.write("half a line, ", 42)
  io.write(" and the rest\\n")
end""")
    sim.run(1)
    assert sim.robot_failures() == []
    assert lua_globals(sim, "result") == ["2 false caught 2 function 71,2,3"]
    assert lua_globals(sim, "memory") == [True]
    assert [t for *_, t in sim.logs] == ["half a line, 42 and the rest"]


def test_trusted_turns_the_full_libraries_back_on(tmp_path, runtime):
    source = """
function step()
  home = os.getenv("HOME") ~= nil
  local f = io.open(robot.params.file, "r")
  first = f:read("*l")
  f:close()
  line = debug.getinfo(1, "l").currentline
end"""
    (tmp_path / "data.txt").write_text("hello\n")
    params = {"file": str(tmp_path / "data.txt")}
    sim = lua_sim(tmp_path, source, count=1, runtime=runtime, params=params,
                  extra={"controller": {"lua": "ctrl.lua", "trusted": True, "params": params,
                                        **({"runtime": runtime} if runtime != "lua5.3" else {})}})
    sim.run(1)
    assert sim.robot_failures() == []
    assert lua_globals(sim, "first") == ["hello"]
    assert lua_globals(sim, "line") == [7]
    (tmp_path / "sandboxed").mkdir()
    sim = lua_sim(tmp_path / "sandboxed", source, count=1, runtime=runtime, params=params)
    sim.run(1)
    (f,) = sim.robot_failures()
    assert f"os {REFUSED}" in f["error"]


def test_trusted_belongs_to_lua_controllers(tmp_path):
    with pytest.raises(ConfigError) as err:
        parse_experiment({"arena": {"size": [1.0, 1.0]}, "robots": [
            {"name": "g", "count": 1, "controller": {"buzz": "x.bzz", "trusted": True}}]},
            base_dir=tmp_path)
    assert "trusted applies to Lua controllers only" in str(err.value)


# ------------------------------------------------------------------ located errors
def test_replacing_a_reading_is_an_error_on_its_line(tmp_path, runtime):
    sim = lua_sim(tmp_path, _only_g0("    robot.proximity = nil"), count=2, runtime=runtime,
                  sensors={"proximity": True})
    sim.run(3)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0 and f["where"] == "step"
    assert f["error"].startswith(f"{tmp_path / 'ctrl.lua'}:3: robot.proximity is a reading")
    assert sim.commands("g")["wheels"][1].tolist() == [0.01, 0.01]


@pytest.mark.parametrize("body", [
    "robot.proximity[1] = nil",
    "robot.proximity[2] = setmetatable({}, {__newindex = function() while true do end end})",
    "robot.proximity[3] = 'text'",
])
def test_breaking_a_readings_table_stops_that_robot_only(tmp_path, runtime, body):
    sim = lua_sim(tmp_path, _only_g0("    " + body), count=2, runtime=runtime,
                  sensors={"proximity": True})
    sim.run(3)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0 and f["tick"] == 1
    assert f["error"].startswith(f"{tmp_path / 'ctrl.lua'}")
    assert sim.commands("g")["wheels"][1].tolist() == [0.01, 0.01]


def test_a_scripts_metamethods_on_its_radio_table_run_only_in_its_calls(tmp_path, runtime):
    # the runtime writes the messages heard into robot.range_and_bearing between calls: a
    # metamethod there would run outside any call, where an error has no robot to stop
    sim = lua_sim(tmp_path, runtime=runtime, count=3, radio={"range": 5.0}, source="""
function init()
  local r = robot.range_and_bearing
  for i = #r, 1, -1 do r[i] = nil end
  setmetatable(r, {__newindex = function() error("boom") end, __len = function() return 0 end})
end
function step()
  heard = #robot.range_and_bearing
  robot.range_and_bearing.set_data(1, 5)
  robot.wheels.set_velocity(1, 1)
end""")
    sim.run(3)
    assert sim.robot_failures() == []
    assert sim.commands("g")["wheels"].tolist() == [[0.01, 0.01]] * 3


@pytest.mark.parametrize("body", [
    "local t = {}\nfor i = 1, 1e9 do t[i] = string.rep('x', 4096) .. i end",
    "big = big or {}\nfor i = 1, 1e9 do big[#big + 1] = string.rep('x', 4096) .. i end",
])
def test_running_out_of_memory_stops_that_robot_only(tmp_path, runtime, body):
    # (LuaJIT collects no garbage before it reports a failed allocation: the memory must be
    # let go before the runtime allocates again, or the Lua state fails as a whole)
    sim = lua_sim(tmp_path, _only_g0(body), count=2, runtime=runtime)
    sim.run(3)
    (f,) = sim.robot_failures()
    assert f["robot"] == 0 and "not enough memory" in f["error"]
    assert f["error"].startswith(f"{tmp_path / 'ctrl.lua'}")
    assert sim.commands("g")["wheels"][1].tolist() == [0.01, 0.01]


@pytest.mark.parametrize("value", [2 ** 63, -2 ** 63 - 1, 10 ** 400])
def test_an_integer_beyond_64_bits_is_refused_with_its_key_path(tmp_path, value):
    (tmp_path / "ctrl.lua").write_text("function step() end\n")
    with pytest.raises(ConfigError) as err:
        parse_experiment({"arena": {"size": [1.0, 1.0]}, "robots": [
            {"name": "g", "count": 1,
             "controller": {"lua": "ctrl.lua", "params": {"a": {"b": [1, value]}}}}]},
            base_dir=tmp_path)
    assert "robots[0].controller" in str(err.value)
    assert f"params.a.b[1]: {value} is beyond Lua's 64-bit integers" in str(err.value)


# ------------------------------------------------------------------ signals
def _command() -> list[str]:
    script = Path(sys.executable).with_name("swarmstack")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-c", "from swarmstack.cli import main; main()"]


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_ends_a_run_stuck_in_scripts(tmp_path, sig, code):
    # every robot loops every tick, catching the guard's error with pcall: the run would take
    # hours; the signal ends it, with a summary that says so
    (tmp_path / "ctrl.lua").write_text(
        "function step() log('looping') while true do pcall(function() while true do end end)"
        " end end\n")
    (tmp_path / "exp.toml").write_text(
        '[arena]\nsize = [1.0, 1.0]\n[[robots]]\nname = "g"\ncount = 50\n'
        'controller = { lua = "ctrl.lua" }\n')
    out = tmp_path / "out"
    proc = subprocess.Popen(_command() + ["run", str(tmp_path / "exp.toml"), "--out", str(out),
                                          "--quiet", "--ticks", "100"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + TIMEOUT
        while not list(out.glob("logs/*.log")) or "looping" not in "".join(
                p.read_text() for p in out.glob("logs/*.log")):
            assert proc.poll() is None, proc.stderr.read()
            assert time.monotonic() < deadline, "the run did not start"
            time.sleep(0.01)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    assert "Traceback" not in err
    summary = read_summary(out)
    assert summary["status"] == "interrupted" and summary["signal"] == sig.name
    assert summary["failed_robots"] == 0   # a stop is not the scripts' failure


# ------------------------------------------------------------------ fuzz
PRIMITIVES = [
    "while true do end",
    "pcall(function() while true do end end)",
    "xpcall(function() while true do end end, function() while true do end end)",
    "coroutine.wrap(function() while true do end end)()",
    "coroutine.resume(coroutine.create(function() while true do end end))",
    "setmetatable({}, {__gc = function() while true do end end})",
    "debug.sethook()",
    "os.exit(3)",
    "io.open('/etc/passwd')",
    "package.loadlib('libc.so.6', 'abort')()",
    "load(string.dump(print))",
    "load('\\27LuaS')()",
    "robot.proximity = nil",
    "robot.proximity[1] = nil",
    "robot.wheels.set_velocity(1e308, -1e308)",
    "local s = string.rep('x', 2 ^ 31)",
    "error(setmetatable({}, {__tostring = function() while true do end end}))",
    "getmetatable('').__index = nil",
    "collectgarbage('collect')",
    "error(string.rep('e', 1e7))",
    "x = (x or 0) + 1",
    "log(string.rep('l', 1e6))",
]
WRAPS = ["{}", "pcall(function() {} end)", "coroutine.wrap(function() {} end)()",
         "for i = 1, 3 do {} end", "local ok = pcall(load, [==[{}]==])"]


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(WRAPS), st.sampled_from(PRIMITIVES)), min_size=1,
                max_size=3),
       st.sampled_from(["lua5.3", "luajit"]))
@example([("pcall(function() {} end)", "while true do end")], "lua5.3")
@example([("{}", "os.exit(3)")], "luajit")
def test_hostile_snippets_end_in_a_located_error_or_success(tmp_path_factory, parts, runtime):
    tmp_path = tmp_path_factory.mktemp("fuzz")
    body = "\n".join(w.format(p) for w, p in parts)
    (tmp_path / "ctrl.lua").write_text("function step()\n" + body + "\nend\n")
    cfg = parse_experiment({
        "arena": {"size": [1.0, 1.0]},
        "robots": [{"name": "g", "count": 1, "sensors": {"proximity": True},
                    "controller": {"lua": "ctrl.lua",
                                   **({"runtime": runtime} if runtime != "lua5.3" else {})}}]},
        base_dir=tmp_path)
    summary = run_experiment(cfg, tmp_path / "out", ticks=3, base_dir=tmp_path,
                             source=str(tmp_path / "exp.toml"))
    assert summary == json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["ticks_done"] == 3
    for f in summary.get("robot_failures", []):
        assert f["error"].startswith(str(tmp_path / "ctrl.lua")), f
        assert len(f["error"]) <= 2100
    assert summary["failed_robots"] == len(summary.get("robot_failures", []))
    assert np.isfinite(summary["wall_time_s"])


def test_the_runs_time_limit_ends_a_run_stuck_in_scripts(tmp_path):
    (tmp_path / "ctrl.lua").write_text(
        "function step() while true do pcall(function() while true do end end) end end\n")
    (tmp_path / "exp.toml").write_text(
        '[simulation]\nticks = 20\ntimeout = 1.5\n[arena]\nsize = [1.0, 1.0]\n'
        '[[robots]]\nname = "g"\ncount = 50\ncontroller = { lua = "ctrl.lua" }\n')
    out = tmp_path / "out"
    p = subprocess.run(_command() + ["run", str(tmp_path / "exp.toml"), "--out", str(out),
                                     "--quiet"],
                       capture_output=True, text=True, timeout=TIMEOUT)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr and "timeout" in p.stderr
    summary = read_summary(out)
    assert summary["status"] == "failed"
    assert [r["error"]["kind"] for r in summary["runs_status"]] == ["timeout"]
