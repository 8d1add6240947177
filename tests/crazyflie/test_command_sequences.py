"""The Crazyflie's commands given in one control step do what they say, in order — or fail
loudly, naming the robot and the tick. A take-off followed by goto flies to the goal; nothing is
silently dropped by the flight model (its ``rejected`` count stays 0 for host functions)."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.actuators import flight as fl
from swarmstack.controllers.api import ControllerError
from swarmstack.controllers.views import robot_view_class
from swarmstack.sim.simulation import Simulation
from swarmstack.physics import quadrotor as qr
from swarmstack.robots import crazyflie

START = (-0.5, 0.25, 0.3)    # x, y, yaw of the drone
GOAL = (1.0, 0.5, 1.2)
TOP = crazyflie.DEFAULT_CEILING_M - crazyflie.HEIGHT_M


def _config(controller=None, runs_params=None) -> dict:
    group = {"name": "cf", "type": "crazyflie",
             "placement": {"kind": "explicit", "poses": [list(START)]}}
    if controller is not None:
        group["controller"] = controller
    return {"simulation": {"ticks_per_second": 10}, "arena": {"size": [8.0, 8.0]},
            "robots": [group]}


def _sim(controller=None, **kw) -> Simulation:
    sim = Simulation.from_dict(_config(controller), seed=1, **kw)
    sim.start()
    return sim


def _robot(sim):
    g = sim.group("cf")
    return robot_view_class(g.robot_type)("cf", 0, 0, 0, g.readings, g.commands,
                                          np.random.default_rng(0), sim.world)


def _assert_at(sim, xyz, tol=1e-3):
    b = sim.world.bodies
    assert (b.x[0], b.y[0], b.z[0]) == pytest.approx(xyz, abs=tol)
    assert sim.world.drive[0]["rejected"][0] == 0


def _python(ops):
    return {"python": "tests.crazyflie.controllers:Sequence", "params": {"ops": ops}}


def test_takeoff_then_goto_in_one_step_flies_to_the_goal_python():
    sim = _sim(_python([["takeoff", 1.0], ["goto", *GOAL]]))
    sim.run(100)
    _assert_at(sim, GOAL)


def test_takeoff_then_goto_in_one_step_flies_to_the_goal_buzz(tmp_path):
    # lengths in centimetres, the default distance unit of scripts
    (tmp_path / "c.bzz").write_text(
        "function init() { t = 0 }\n"
        "function step() {\n"
        "  if (t == 0) { takeoff(100.0) goto(100.0, 50.0, 120.0) }\n"
        "  t = t + 1\n"
        "}\n"
        "function reset() {}\nfunction destroy() {}\n")
    sim = Simulation.from_dict(_config({"buzz": "c.bzz"}), seed=1, base_dir=tmp_path)
    sim.run(100)
    assert sim.robot_failures() == []
    _assert_at(sim, GOAL)


@pytest.mark.parametrize("runtime", ["lua5.3", "luajit"])
def test_takeoff_then_goto_in_one_step_flies_to_the_goal_lua(tmp_path, runtime):
    (tmp_path / "c.lua").write_text(
        "function step()\n"
        "  if not done then robot.takeoff(100); robot.goto_(100, 50, 120); done = true end\n"
        "end\n")
    lua = {"lua": "c.lua", **({"runtime": runtime} if runtime != "lua5.3" else {})}
    sim = Simulation.from_dict(_config(lua), seed=1, base_dir=tmp_path)
    sim.run(100)
    assert sim.robot_failures() == []
    _assert_at(sim, GOAL)


def test_a_batched_takeoff_with_a_target_flies_to_it():
    # a batched controller takes off and flies in one tick with TAKEOFF and the point as target
    sim = _sim()
    c = sim.commands("cf")
    c["mode"][:] = fl.TAKEOFF
    c["target"][:] = (*GOAL, math.nan)
    sim.run(100)
    _assert_at(sim, GOAL)


def test_takeoff_then_set_yaw_rises_and_turns():
    sim = _sim(_python([["takeoff", 0.8], ["set_yaw", 1.5]]))
    sim.run(60)
    _assert_at(sim, (START[0], START[1], 0.8))
    assert sim.world.bodies.yaw[0] == pytest.approx(1.5, abs=1e-3)


def test_takeoff_then_move_by_moves_from_the_take_off_point():
    sim = _sim(_python([["takeoff", 0.8], ["move_by", 0.5, -0.25, 0.2]]))
    sim.run(80)
    _assert_at(sim, (START[0] + 0.5, START[1] - 0.25, 1.0))


@pytest.mark.parametrize("ops, what, why", [
    ([["goto", *GOAL]], "goto", "before takeoff"),
    ([["set_yaw", 1.0]], "set_yaw", "before takeoff"),
    ([["move_by", 0.1, 0.0, 0.0]], "move_by", "before takeoff"),
    ([["takeoff", 1.0], ["land"], ["goto", *GOAL]], "goto", "after land"),
    ([["takeoff", 1.0], ["set_velocity", 0.5, 0.0, 0.0]], "set_velocity",
     "in the same step as takeoff"),
    ([["takeoff", 1.0], ["set_yaw_rate", 0.5]], "set_yaw_rate", "in the same step as takeoff"),
])
def test_a_command_the_drone_cannot_obey_is_an_error_naming_robot_and_tick(ops, what, why):
    sim = _sim({"python": "tests.crazyflie.controllers:Sequence",
                "params": {"ops": ops, "at": 3}})
    with pytest.raises(ControllerError, match=rf"robot 0 of group 'cf'.*raised at tick 3") as e:
        sim.run(10)
    assert f"{what} at tick 3 {why}" in str(e.value)


def test_goto_while_landing_is_an_error():
    sim = _sim()
    r = _robot(sim)
    crazyflie.takeoff(r, 1.0)
    sim.run(30)
    crazyflie.land(r)
    sim.run(2)
    with pytest.raises(ValueError, match=r"robot 0 of group 'cf': goto at tick 32 while the "
                                         r"drone is landing"):
        crazyflie.goto(r, *GOAL)


def test_after_a_reset_the_drone_is_on_the_floor_for_the_host_functions():
    sim = _sim(_python([["takeoff", 1.0]]))
    sim.run(30)
    sim.reset()
    r = sim.group("cf").views[0]
    with pytest.raises(ValueError, match="goto at tick 0 before takeoff"):
        r.goto(*GOAL)


def test_a_sequence_the_drone_cannot_obey_fails_the_run_from_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from swarmstack.cli import app

    (tmp_path / "e.toml").write_text(
        "[simulation]\nticks = 30\n[arena]\nsize = [4.0, 4.0]\n"
        "[[robots]]\nname = \"cf\"\ntype = \"crazyflie\"\ncount = 2\n"
        "controller = { python = \"tests.crazyflie.controllers:Sequence\", "
        "params = { at = 4, ops = [[\"takeoff\", 1.0], [\"land\"], "
        "[\"goto\", 1.0, 0.0, 1.0]] } }\n")
    res = CliRunner().invoke(app, ["run", str(tmp_path / "e.toml"), "--out",
                                   str(tmp_path / "out"), "--quiet"])
    assert res.exit_code == 1
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["runs_status"][0]["status"] == "failed"
    err = summary["runs_status"][0]["error"]
    assert (err["group"], err["robot"], err["tick"]) == ("cf", 0, 4)
    assert "goto at tick 4 after land()" in err["error"]


# --- any sequence of one step: what it says, in order, or an error -------------------------------
OPS = st.one_of(
    st.tuples(st.just("takeoff"), st.floats(0.5, 1.5)),
    st.tuples(st.just("goto"), st.floats(-2.0, 2.0), st.floats(-2.0, 2.0), st.floats(0.3, 1.8)),
    st.tuples(st.just("move_by"), st.floats(-0.5, 0.5), st.floats(-0.5, 0.5),
              st.floats(-0.3, 0.3)),
    st.tuples(st.just("set_yaw"), st.floats(-3.0, 3.0)),
    st.tuples(st.just("land")))


def _expected(flying: bool, here: tuple, ops: list):
    """The set-point (x, y, z, yaw) the commands lead to applied one after the other, whether
    the drone then flies, and the index of the first command that must fail (None: none)."""
    x, y, z, yaw = here
    for k, (name, *a) in enumerate(ops):
        if name == "takeoff":
            flying, z = True, a[0]
        elif name == "land":  # where it is, as it is: what the step set before is dropped
            flying, (x, y), yaw = False, here[:2], here[3]
        elif not flying:
            return None, False, k
        elif name == "goto":
            x, y, z = a
        elif name == "move_by":
            x, y, z = x + a[0], y + a[1], z + a[2]
        else:
            yaw = a[0]
    return (x, y, min(max(z, 0.0), TOP), yaw), flying, None


@settings(max_examples=60, deadline=None)
@given(hovering=st.booleans(), ops=st.lists(OPS, min_size=1, max_size=5))
def test_any_sequence_in_one_step_does_what_it_says_or_fails_loudly(hovering, ops):
    sim = _sim()
    r = _robot(sim)
    b = sim.world.bodies
    if hovering:
        crazyflie.takeoff(r, 1.0)
        sim.run(80)
    tick = sim.tick
    here = (b.x[0], b.y[0], b.z[0], b.yaw[0])
    setpoint, flying, failing = _expected(hovering, here, ops)
    for k, (name, *args) in enumerate(ops):
        if k == failing:
            with pytest.raises(ValueError, match=rf"robot 0 of group 'cf': {name} at tick "
                                                 rf"{tick} "):
                getattr(crazyflie, name)(r, *args)
            return
        getattr(crazyflie, name)(r, *args)
    sim.run(250)
    d = sim.world.drive[0]
    assert d["rejected"][0] == 0
    if flying:
        assert d["mode"][0] == qr.POSITION
        _assert_at(sim, setpoint[:3], tol=2e-3)
        turn = math.remainder(b.yaw[0] - setpoint[3], 2.0 * math.pi)
        assert abs(turn) < 1e-3
    else:
        assert d["mode"][0] == qr.OFF and b.z[0] == 0.0
        _assert_at(sim, (setpoint[0], setpoint[1], 0.0), tol=2e-3)
