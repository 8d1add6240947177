"""The Crazyflie type: flight modes, envelope, ground and contacts, battery, reproductions."""

import math
from dataclasses import replace

import numpy as np
import pytest

from swarmstack.actuators import flight as fl
from swarmstack.controllers.views import robot_view_class
from swarmstack.sim.simulation import Simulation
from swarmstack.physics import quadrotor as qr
from swarmstack.robots import base, crazyflie


def _sim(poses, runs=1, **group):
    cfg = {"simulation": {"ticks_per_second": 10}, "arena": {"size": [6.0, 6.0]},
           "robots": [{"name": "cf", "type": "crazyflie",
                       "placement": {"kind": "explicit", "poses": poses}, **group}]}
    sim = Simulation.from_dict(cfg, seed=0, runs=runs)
    sim.start()
    return sim


def _takeoff(sim, h=1.0, seconds=5.0):
    c = sim.commands("cf")
    c["mode"][:] = fl.TAKEOFF
    c["target"][:] = (math.nan, math.nan, h, math.nan)
    sim.run(int(seconds * 10))
    return c


def _robot(sim, i=0):
    """Robot ``i`` of group cf as its controller sees it (the host functions take it)."""
    g = sim.group("cf")
    return robot_view_class(g.robot_type)("cf", i, i, 0, g.readings, g.commands,
                                          np.random.default_rng(0), sim.world)


def test_registered_with_the_paper_body_and_radio():
    t = base.get("crazyflie")
    assert t.body.shape == "disc" and t.body.radius_m == pytest.approx(0.046)
    assert t.body.height_m == pytest.approx(0.029) and t.body.mass_kg == pytest.approx(0.027)
    assert (t.radio.range_m, t.radio.payload_bytes) == (3.0, 10)
    assert {"takeoff", "land", "goto", "move_by", "set_velocity", "set_yaw", "set_yaw_rate",
            "set_leds"} <= {h.name for h in t.host_api}
    assert {h.name: h.lengths for h in t.host_api}["goto"] == (0, 1, 2)


def test_takeoff_hover_goto_land_with_the_host_functions():
    sim = _sim([[0, 0, 0]], sensors={"positioning": True})
    b = sim.world.bodies
    r = _robot(sim)
    crazyflie.takeoff(r, 0.8)
    sim.run(50)
    assert b.z[0] == pytest.approx(0.8, abs=1e-3)
    crazyflie.goto(r, 1.0, -0.5, 1.2)
    sim.run(60)
    assert (b.x[0], b.y[0], b.z[0]) == pytest.approx((1.0, -0.5, 1.2), abs=2e-3)
    crazyflie.move_by(r, -0.5, 0.0, 0.0)
    sim.run(60)
    assert b.x[0] == pytest.approx(0.5, abs=2e-3)
    crazyflie.set_yaw(r, math.pi / 2)
    sim.run(50)
    assert b.yaw[0] == pytest.approx(math.pi / 2, abs=1e-2)
    assert sim.readings("cf")["pose"][0, 2] == pytest.approx(b.z[0])
    crazyflie.set_velocity(r, 0.2, 0.0, 0.0)
    sim.run(20)
    assert sim.world.drive[0]["velocity"][0, 0] == pytest.approx(0.2, abs=0.01)
    crazyflie.land(r)
    sim.run(80)
    assert b.z[0] == 0.0 and sim.world.drive[0]["mode"][0] == qr.OFF


def test_position_command_before_takeoff_is_an_error_naming_robot_and_tick():
    sim = _sim([[0, 0, 0]])
    sim.run(3)
    r = _robot(sim)
    with pytest.raises(ValueError, match=r"robot 0 of group 'cf': goto at tick 3"):
        crazyflie.goto(r, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="set_velocity"):
        crazyflie.set_velocity(r, 0.1, 0.0, 0.0)
    # batched commands on the floor are ignored and counted
    c = sim.commands("cf")
    c["mode"][:] = fl.CMD_POSITION
    c["target"][:] = (1.0, 0.0, 1.0, 0.0)
    sim.run(2)
    assert sim.world.bodies.z[0] == 0.0 and sim.world.drive[0]["rejected"][0] == 2


def test_setpoints_outside_the_envelope_are_clamped_and_counted():
    sim = _sim([[0, 0, 0]], flight={"ceiling": 2.0})
    b = sim.world.bodies
    c = _takeoff(sim)
    c["mode"][:] = fl.CMD_POSITION
    c["target"][:] = (0.0, 0.0, 5.0, 0.0)
    sim.run(60)
    d = sim.world.drive[0]
    assert b.z[0] + crazyflie.HEIGHT_M == pytest.approx(2.0, abs=1e-6)
    assert d["clamped"][0] == 1
    c["target"][:] = (0.0, 0.0, -1.0, 0.0)
    sim.run(60)
    assert b.z[0] == pytest.approx(0.0, abs=1e-6) and d["clamped"][0] == 2
    c["mode"][:] = fl.CMD_VELOCITY
    c["velocity"][:] = (30.0, 0.0, 0.0, 0.0)
    sim.run(1)
    assert d["clamped"][0] == 3
    assert np.linalg.norm(d["velocity_cmd"][0, :3]) == pytest.approx(crazyflie.MAX_SPEED_M_S)
    assert sim.drive_counters() == {"cf": {"clamped": [3], "rejected": [0]}}


def test_run_summary_counts_clamped_setpoints_per_run(tmp_path):
    import json

    from typer.testing import CliRunner

    from swarmstack.cli import app

    (tmp_path / "ctl.py").write_text(
        "from swarmstack import Controller\n"
        "class High(Controller):\n"
        "    def step(self, robot):\n"
        "        if robot.tick == 0:\n"
        "            robot.takeoff(0.5)\n"
        "        elif robot.tick == 40:\n"
        "            robot.goto(0.0, 0.0, 9.0)\n")
    (tmp_path / "e.toml").write_text(
        "[simulation]\nticks = 60\n[arena]\nsize = [3.0, 3.0]\n"
        "[[robots]]\nname = \"cf\"\ntype = \"crazyflie\"\ncount = 2\n"
        "controller = { python = \"ctl.py:High\" }\n")
    res = CliRunner().invoke(app, ["run", str(tmp_path / "e.toml"), "--out",
                                   str(tmp_path / "out"), "--runs", "2", "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["drive_counters"] == {"cf": {"clamped": [2, 2], "rejected": [0, 0]}}


def test_drones_collide_at_the_same_height_and_pass_at_different_heights():
    for heights, crossed in (((1.0, 1.0), False), ((1.0, 1.5), True)):
        sim = _sim([[-0.5, 0, 0], [0.5, 0, 0]])
        b = sim.world.bodies
        c = sim.commands("cf")
        c["mode"][:] = fl.TAKEOFF
        c["target"][:, 2] = heights
        sim.run(50)
        c["mode"][:] = fl.CMD_VELOCITY
        c["velocity"][:] = ((0.3, 0, 0, 0), (-0.3, 0, 0, 0))
        sim.run(40)
        assert (b.x[0] > b.x[1]) == crossed
        if not crossed:
            assert b.x[1] - b.x[0] >= 2 * crazyflie.RADIUS_M - 1e-6


def test_flies_over_a_ground_robot_and_stops_at_walls_at_full_speed():
    cfg = {"simulation": {"ticks_per_second": 10}, "arena": {"size": [4.0, 4.0], "walls": True},
           "robots": [{"name": "cf", "type": "crazyflie",
                       "placement": {"kind": "explicit", "poses": [[-1.0, 0, 0]]}},
                      {"name": "e", "type": "epuck2",
                       "placement": {"kind": "explicit", "poses": [[0.0, 0, 0]]}}]}
    sim = Simulation.from_dict(cfg, seed=0)
    sim.start()
    c = _takeoff(sim, 0.3)
    b = sim.world.bodies
    c["mode"][:] = fl.CMD_VELOCITY
    c["velocity"][:] = (0.5, 0, 0, 0)
    sim.run(40)
    assert b.x[0] > 0.5 and b.x[1] == pytest.approx(0.0)  # passed over it, did not push it
    c["mode"][:] = fl.CMD_POSITION
    c["target"][:] = (50.0, 0.0, 0.3, 0.0)                  # beyond the wall at 10 m/s
    sim.run(30)
    assert b.x[0] < 2.0 and b.x[0] > 1.5


@pytest.mark.parametrize("on_empty", ["land", "fall"])
def test_an_empty_battery_lands_or_drops_the_drone(on_empty):
    sim = _sim([[0, 0, 0]], flight={"on_empty": on_empty},
               sensors={"battery": {"start_charge": 0.15}})
    b = sim.world.bodies
    c = _takeoff(sim, 1.0, 2.0)
    ticks = 0
    while sim.readings("cf")["battery"][0] > 0 and ticks < 200:
        sim.step()
        ticks += 1
    assert sim.readings("cf")["battery"][0] == 0
    z0 = b.z[0]
    assert z0 > 0.5
    sim.run(3)
    drop = z0 - b.z[0]
    assert (drop > 0.1) == (on_empty == "fall")
    sim.run(100)
    assert b.z[0] == 0.0 and sim.world.drive[0]["dead"][0] == 1
    c["mode"][:] = fl.TAKEOFF
    sim.run(10)
    assert b.z[0] == 0.0  # obeys nothing any more


def test_many_drones_in_one_kernel_call():
    n = 64
    poses = [[0.5 * (k % 8) - 2, 0.5 * (k // 8) - 2, 0] for k in range(n)]
    sim = _sim(poses)
    c = _takeoff(sim, 1.0)
    assert np.allclose(sim.world.bodies.z, 1.0, atol=1e-3)
    c["mode"][:] = fl.MOVE_BY
    c["target"][:] = (0.0, 0.0, 0.5, math.nan)
    sim.run(60)
    assert np.allclose(sim.world.bodies.z, 1.5, atol=2e-3)
    assert np.all(c["mode"] == fl.CMD_POSITION)


# --- reproductions and their mutations ------------------------------------------------------------
def test_velocity_reproduction_is_inside_tolerance(tmp_path):
    from swarmstack.validations import crazyflie_velocity

    assert crazyflie_velocity.reproduce(tmp_path, quick=True).ok


def test_velocity_reproduction_fails_with_a_faster_yaw_loop(tmp_path, monkeypatch):
    from swarmstack.validations import crazyflie_velocity

    t = base.get("crazyflie")
    monkeypatch.setitem(base.ROBOT_TYPES, "crazyflie",
                        replace(t, dynamics=replace(t.dynamics, tau_yaw=0.3)))
    assert not crazyflie_velocity.reproduce(tmp_path, quick=True).ok


def test_velocity_reproduction_fails_with_a_slower_velocity_loop(tmp_path, monkeypatch):
    from swarmstack.validations import crazyflie_velocity

    t = base.get("crazyflie")
    monkeypatch.setitem(base.ROBOT_TYPES, "crazyflie",
                        replace(t, dynamics=replace(t.dynamics, tau_v=1.0)))
    assert not crazyflie_velocity.reproduce(tmp_path, quick=True).ok


@pytest.mark.parametrize("controller", ["pd", "pid"])
def test_position_reproduction_is_inside_tolerance(tmp_path, controller):
    from swarmstack.validations import crazyflie_position

    r = crazyflie_position.reproduce(tmp_path, controller=controller)
    assert r.ok, [row for row in r.rows if not row.ok]


def test_position_reproduction_fails_with_a_weaker_position_gain(tmp_path, monkeypatch):
    from swarmstack.validations import crazyflie_position

    monkeypatch.setitem(crazyflie.GAINS, "pd", (0.8, 0.0, 0.0))
    assert not crazyflie_position.reproduce(tmp_path).ok


def test_position_reproduction_fails_without_yaw_damping(tmp_path, monkeypatch):
    from swarmstack.validations import crazyflie_position

    t = base.get("crazyflie")
    monkeypatch.setitem(base.ROBOT_TYPES, "crazyflie",
                        replace(t, dynamics=replace(t.dynamics, yaw_kd=0.0)))
    assert not crazyflie_position.reproduce(tmp_path).ok


def test_reference_literals_are_the_papers():
    from swarmstack.validations import crazyflie_position, crazyflie_velocity

    assert crazyflie_velocity.TABLE1["yaw"][1] == (45.0, 89.6, 170.6)
    assert crazyflie_position.MEASURED_M == (0.98, 1.97, 4.92, 9.85, 24.62, 49.93)
    assert crazyflie_position.MEASURED_YAW_DEG == (179.84, -134.54, 44.90)


def test_buzz_goto_before_takeoff_is_a_located_error(tmp_path):
    (tmp_path / "early.bzz").write_text("function init() { }\n"
                                        "function step() {\n  goto(0.0, 0.0, 100.0)\n}\n")
    cfg = {"simulation": {"ticks_per_second": 10}, "arena": {"size": [3.0, 3.0]},
           "robots": [{"name": "cf", "type": "crazyflie",
                       "placement": {"kind": "explicit", "poses": [[0, 0, 0]]},
                       "controller": {"buzz": "early.bzz"}}]}
    sim = Simulation.from_dict(cfg, seed=0, base_dir=tmp_path)
    sim.run(2)
    failures = [f for g in sim.groups for c in g.controllers for f in getattr(c, "failures", [])]
    assert failures, "the robot should have failed"
    f = failures[0]
    assert "goto" in f["error"] + str(f["report"]) and "before takeoff" in f["error"]
    assert "early.bzz:3" in str(f["where"]) + str(f["report"])


@pytest.mark.parametrize("height, passes", [(0.05, False), (0.3, True)])
def test_a_box_blocks_by_its_real_height(height, passes):
    cfg = {"simulation": {"ticks_per_second": 10}, "arena": {"size": [4.0, 4.0]},
           "boxes": [{"center": [0.0, 0.0], "size": [0.2, 1.0, 0.2]}],
           "robots": [{"name": "cf", "type": "crazyflie",
                       "placement": {"kind": "explicit", "poses": [[-0.6, 0, 0]]}}]}
    sim = Simulation.from_dict(cfg, seed=0)
    sim.start()
    c = _takeoff(sim, height, 3.0)
    c["mode"][:] = fl.CMD_VELOCITY
    c["velocity"][:] = (0.4, 0, 0, 0)
    sim.run(40)
    x = sim.world.bodies.x[0]
    assert (x > 0.5) == passes
    if not passes:
        assert x <= -0.1 - crazyflie.RADIUS_M + 1e-6


def test_cli_reproduce_passes_the_controller(tmp_path):
    from typer.testing import CliRunner

    from swarmstack.cli import app

    r = CliRunner().invoke(app, ["reproduce", "crazyflie-position", "--controller", "pid",
                                 "--out", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "crazyflie-position" / "crazyflie_position_pid.png").is_file()
    r = CliRunner().invoke(app, ["reproduce", "crazyflie-velocity", "--controller", "pidd",
                                 "--out", str(tmp_path)])
    assert r.exit_code == 2
