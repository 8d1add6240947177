"""Buzz controllers on simulated robots: the harness's control step, the robot's closures and
sensor globals, distance units, failures that stop one robot, logs, mixed types."""

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack.buzz.swarm import Harness
from swarmstack.buzz.swarm.topology import Topology
from swarmstack.cli import app
from swarmstack.controllers.api import ControllerError
from swarmstack.experiments.config import ConfigError
from swarmstack.sim.simulation import Simulation
from tests.core.robot_types import hoverbox  # noqa: F401  (registers the test type)

runner = CliRunner()
ROW = [[0.0, 0.0, 0.0], [0.3, 0.0, 0.0], [0.6, 0.0, 0.0], [0.9, 0.0, 0.0]]


def experiment(tmp_path, script: str, *, poses=ROW, radio=None, sensors=None, params=None,
               unit=None, extra_groups=(), name="r", ticks_per_second=10, **top):
    (tmp_path / "s.bzz").write_text(script)
    ctrl = {"buzz": "s.bzz"}
    if params:
        ctrl["params"] = params
    if unit:
        ctrl["distance_unit"] = unit
    group = {"name": name, "type": "epuck2", "placement": {"kind": "explicit", "poses": poses},
             "controller": ctrl, "radio": radio if radio is not None else {"payload_bytes": 64}}
    if sensors:
        group["sensors"] = sensors
    return {"simulation": {"ticks_per_second": ticks_per_second},
            "arena": {"size": [3.0, 3.0], "walls": True},
            "robots": [group, *extra_groups], **top}


def sim_of(tmp_path, script, **kw):
    seed = kw.pop("seed", 0)
    runs = kw.pop("runs", 1)
    strict = kw.pop("strict", False)
    return Simulation.from_dict(experiment(tmp_path, script, **kw), base_dir=tmp_path,
                                seed=seed, runs=runs, strict=strict)


GRADIENT = """
hops = 1000
if (id == 0) { hops = 0 }
heard = {}
function init() { neighbors.listen("h", function(t, v, rid) { heard[rid] = v }) }
function step() {
  if (id != 0) { hops = reduce(heard, function(rid, h, acc) { return math.min(acc, h + 1) }, 1000) }
  heard = {}
  neighbors.broadcast("h", hops)
  nb = neighbors.count()
  d = neighbors.reduce(function(rid, x, acc) { return acc + x.distance }, 0.0)
}
"""


def test_same_script_same_result_as_the_harness(tmp_path):
    """Static robots in the simulator and the harness over a topology with the same links and
    geometry end with the same globals: one control step for both."""
    sim = sim_of(tmp_path, GRADIENT, radio={"range": 0.35, "payload_bytes": 64})
    sim.start()
    sim.run(8)
    ctrl = sim.buzz("r")
    # the harness: same positions (antennas at the same height), links of range 0.35 m
    topo = Topology([(x, y, 0.0) for x, y, _ in ROW], range_m=0.35)
    h = Harness(GRADIENT, 4, filename=str(tmp_path / "s.bzz"), topology=topo).load()
    for _ in range(8):
        h.step()
    for k in range(4):
        assert ctrl.get_global(k, "hops") == h.get_global(k, "hops") == k
        assert ctrl.get_global(k, "nb") == h.get_global(k, "nb")
        assert ctrl.get_global(k, "d") == pytest.approx(h.get_global(k, "d"), rel=1e-6)


def test_walls_between_robots_cut_the_gradient(tmp_path):
    boxes = [{"center": [0.45, 0.0], "size": [0.05, 0.6, 0.1]}]
    sim = sim_of(tmp_path, GRADIENT, radio={"range": 0.35, "payload_bytes": 64}, boxes=boxes)
    sim.start()
    sim.run(8)
    hops = [sim.buzz("r").get_global(k, "hops") for k in range(4)]
    assert hops == [0, 1, 1000, 1000]
    # the same arena with occlusion off: the box no longer matters
    data = experiment(tmp_path, GRADIENT, radio={"range": 0.35, "payload_bytes": 64},
                      boxes=boxes)
    data["radio"] = {"occlusion": False}
    sim = Simulation.from_dict(data, base_dir=tmp_path)
    sim.start()
    sim.run(8)
    assert [sim.buzz("r").get_global(k, "hops") for k in range(4)] == [0, 1, 2, 3]


@pytest.mark.parametrize("unit, scale", [("cm", 100.0), ("m", 1.0), ("mm", 1000.0)])
def test_distance_unit_applies_to_neighbours_and_wheels(tmp_path, unit, scale):
    script = "function step() { d = neighbors.get(1 - id).distance  set_wheels(5.0, 5.0) }"
    sim = sim_of(tmp_path, script, poses=ROW[:2], unit=unit)
    sim.start()
    sim.step()
    assert sim.buzz("r").get_global(0, "d") == pytest.approx(0.3 * scale, rel=1e-5)
    # set_wheels(5, 5) is 5 units/s: 5 cm/s, 5 m/s (clamped to 0.154) or 5 mm/s
    assert sim.commands("r")["wheels"][0, 0] == pytest.approx(5.0 / scale)


def test_sensor_globals_follow_the_readings(tmp_path):
    script = """
    function step() {
      p0 = proximity[0].value  pa = proximity[2].angle
      t = tof  g = ground[1]  e = encoders.left  c = battery.charge
      px = pose.position.x  yaw = pose.orientation.yaw
    }"""
    sensors = {"proximity": True, "tof": True, "ground": True, "encoders": True,
               "battery": True, "positioning": True}
    poses = [[0.2, 0.1, 0.5], [1.0, 1.0, 0.0]]
    sim = sim_of(tmp_path, script, poses=poses, sensors=sensors)
    sim.start()
    sim.step()
    g = sim.group("r")
    ctrl = sim.buzz("r")
    for k in range(2):
        # the globals are what the robot read before its step (the readings of tick 0)
        assert ctrl.get_global(k, "px") == pytest.approx(poses[k][0], abs=1e-6)
        assert ctrl.get_global(k, "yaw") == pytest.approx(poses[k][2], abs=1e-6)
    sim2 = sim_of(tmp_path, script, poses=poses, sensors=sensors)
    sim2.start()
    r = sim2.group("r").readings
    expected = (int(r["proximity"][1, 0]), int(r["tof_mm"][1]), int(r["ground"][1, 1]),
                int(r["encoders"][1, 0]))
    sim2.step()
    c2 = sim2.buzz("r")
    assert (c2.get_global(1, "p0"), c2.get_global(1, "t"), c2.get_global(1, "g"),
            c2.get_global(1, "e")) == expected
    assert c2.get_global(1, "pa") == pytest.approx(g.robot_type.devices["proximity"]
                                                   .script.convert(np.zeros(8))[2]["angle"],
                                                   abs=1e-6)
    assert 0.0 < c2.get_global(1, "c") <= 1.0


def test_a_disabled_sensor_is_nil(tmp_path):
    sim = sim_of(tmp_path, "function step() { t = tof  missing = (tof == nil) }", poses=ROW[:1])
    sim.start()
    sim.step()
    assert sim.buzz("r").get_global(0, "missing") == 1


def test_goto_drives_towards_the_vector(tmp_path):
    script = "function step() { goto(10.0, 0.0) }"      # 10 cm/s straight ahead
    sim = sim_of(tmp_path, script, poses=[[0.0, 0.0, 0.0]])
    sim.start()
    sim.run(20)
    b = sim.world.bodies
    assert b.x[0] == pytest.approx(0.2, abs=0.005) and abs(b.y[0]) < 1e-6
    script = "function step() { goto(-1.0, 10.0) }"     # behind-left: turn on the spot
    sim = sim_of(tmp_path, script, poses=[[0.0, 0.0, 0.0]])
    sim.start()
    sim.step()
    left, right = sim.commands("r")["wheels"][0]
    assert left < 0 < right


def test_runtime_error_stops_one_robot_only(tmp_path):
    script = """
    function step() {
      set_wheels(5.0, 5.0)
      steps = steps + 1
      if (id == 1 and steps == 3) { undefined_function() }
    }
    steps = 0
    """
    sim = sim_of(tmp_path, script, poses=ROW[:3])
    sim.start()
    sim.run(6)
    failures = sim.robot_failures()
    assert len(failures) == 1
    f = failures[0]
    assert (f["group"], f["run"], f["robot"], f["tick"]) == ("r", 0, 1, 2)
    assert "s.bzz:5:" in f["report"] and "Buzz stack trace" in f["report"]
    wheels = sim.commands("r")["wheels"]
    assert list(wheels[1]) == [0.0, 0.0]                 # the type's safe command
    assert wheels[0, 0] == pytest.approx(0.05)
    ctrl = sim.buzz("r")
    assert ctrl.get_global(0, "steps") == 6 and ctrl.get_global(2, "steps") == 6
    # the failed robot is silent: its neighbours stop hearing it
    inbox = sim.medium.inbox
    assert 1 not in inbox.sender[inbox.start[0]:inbox.start[1]]
    assert sim.medium.out_size[1] == -1


def test_strict_stops_the_run(tmp_path):
    script = "function step() { if (id == 0) { nil_fn() } }"
    sim = sim_of(tmp_path, script, poses=ROW[:2], strict=True)
    sim.start()
    with pytest.raises(ControllerError) as exc:
        sim.step()
    assert exc.value.robot_id == 0 and "s.bzz:1:" in str(exc.value)


def test_error_in_init_is_a_failed_robot(tmp_path):
    script = "function init() { if (id == 1) { x = nil  x.y = 2 } }\nfunction step() { ok = 1 }"
    sim = sim_of(tmp_path, script, poses=ROW[:2])
    sim.start()
    sim.step()
    assert [f["where"] for f in sim.robot_failures()] == ["init"]
    assert sim.buzz("r").get_global(0, "ok") == 1


def test_syntax_error_fails_before_tick_zero_with_a_location(tmp_path):
    with pytest.raises(ConfigError) as exc:
        sim_of(tmp_path, "function step() {\n  x = = 1\n}\n")
    msg = str(exc.value)
    assert "robots[0].controller.buzz" in msg and "s.bzz:2:" in msg


def test_bytes_that_are_not_utf8_outside_strings_are_a_located_error(tmp_path):
    data = experiment(tmp_path, "")
    (tmp_path / "s.bzz").write_bytes(b"x = 1\ny = \xff\n")
    with pytest.raises(ConfigError, match=r"s\.bzz:2:5: .*byte 0xff, not valid UTF-8"):
        Simulation.from_dict(data, base_dir=tmp_path)
    # inside a string the byte is kept, as the reference reads it (strings are bytes)
    (tmp_path / "s.bzz").write_bytes(b"y = \"\xff\"\nfunction step() { n = string.length(y) }\n")
    sim = Simulation.from_dict(data, base_dir=tmp_path)
    sim.start()
    sim.step()
    assert sim.buzz("r").get_global(0, "n") == 1


def test_missing_script_is_a_config_error(tmp_path):
    data = experiment(tmp_path, "function step() {}")
    data["robots"][0]["controller"]["buzz"] = "nowhere.bzz"
    with pytest.raises(ConfigError, match=r"controller\.buzz: cannot read Buzz script"):
        Simulation.from_dict(data, base_dir=tmp_path)


@pytest.mark.parametrize("call, message", [
    ("set_wheels(1.0)", "set_wheels takes 2 arguments, found 1"),
    ("set_wheels(\"a\", 1.0)", "set_wheels: argument 1 must be a number, found a string"),
    ("set_led(42, 1, 2, 3)", "set_led: index 42 is out of bounds"),
])
def test_bad_closure_calls_are_located_buzz_errors(tmp_path, call, message):
    sim = sim_of(tmp_path, "function step() {\n  " + call + "\n}\n", poses=ROW[:1])
    sim.start()
    sim.step()
    (f,) = sim.robot_failures()
    assert "s.bzz:2:" in f["report"] and message in f["report"]


def test_params_and_identity_globals(tmp_path):
    script = "function step() { k = K  t = robot_type  g = robot_group  me = id }"
    sim = sim_of(tmp_path, script, poses=ROW[:2], params={"K": 7})
    sim.start()
    sim.step()
    ctrl = sim.buzz("r")
    assert [ctrl.get_global(k, "me") for k in range(2)] == [0, 1]
    assert (ctrl.get_global(1, "k"), ctrl.get_global(1, "t"), ctrl.get_global(1, "g")) == \
        (7, "epuck2", "r")


def test_heterogeneous_swarm_selects_by_type(tmp_path):
    script = """
    epucks = swarm.create(1)
    epucks.select(robot_type == "epuck2")
    boxes = swarm.create(2)
    boxes.select(robot_type == "hoverbox")
    function step() {
      n_epucks = neighbors.kin().count()
      seen = neighbors.count()
      in_epucks = epucks.in()
    }
    """
    (tmp_path / "s.bzz").write_text(script)
    hover = {"name": "boxes", "type": "hoverbox",
             "placement": {"kind": "explicit", "poses": [[0.0, 0.4, 0.0], [0.3, 0.4, 0.0]]},
             "controller": {"buzz": "s.bzz"}, "radio": {"range": 0.8, "payload_bytes": 64}}
    data = experiment(tmp_path, script, poses=ROW[:2], extra_groups=[hover])
    sim = Simulation.from_dict(data, base_dir=tmp_path)
    sim.start()
    sim.run(5)
    e, h = sim.buzz("r"), sim.buzz("boxes")
    assert [e.get_global(k, "in_epucks") for k in range(2)] == [1, 1]
    assert [h.get_global(k, "in_epucks") for k in range(2)] == [0, 0]
    assert [e.get_global(k, "seen") for k in range(2)] == [3, 3]  # ranges differ: 0.8 vs 0.5
    # ids are unique across groups inside a run: the boxes are robots 2 and 3
    assert [v.id for v in h.views] == [2, 3]


def test_batched_runs_match_runs_alone(tmp_path):
    script = GRADIENT + "\nfunction step2() {}\n"
    radio = {"range": 0.35, "payload_bytes": 64, "drop": 0.3}
    batch = sim_of(tmp_path, script, radio=radio, seed=10, runs=3)
    batch.start()
    batch.run(12)
    for r in range(3):
        alone = sim_of(tmp_path, script, radio=radio, seed=10 + r)
        alone.start()
        alone.run(12)
        rows = [k for k, v in enumerate(batch.buzz("r").views) if v.run == r]
        got = [batch.buzz("r").get_global(k, "hops") for k in rows]
        assert got == [alone.buzz("r").get_global(k, "hops") for k in range(4)]
        assert batch.radio_stats()["per_run"][r] == alone.radio_stats()["per_run"][0]


def test_same_seed_same_run(tmp_path):
    radio = {"range": 0.5, "payload_bytes": 64, "drop": 0.5, "range_noise": 0.01}
    script = GRADIENT.replace("nb = neighbors.count()", "nb = neighbors.count()  set_wheels(d / 50.0, 3.0)")
    out = []
    for _ in range(2):
        sim = sim_of(tmp_path, script, radio=radio, seed=4)
        sim.start()
        sim.run(30)
        out.append(sim.world.bodies.pose.copy())
    assert np.array_equal(out[0], out[1])


def test_reset_replays_the_buzz_run(tmp_path):
    script = "n = 0\nfunction step() { n = n + 1  c = neighbors.count() }"
    sim = sim_of(tmp_path, script)
    sim.start()
    sim.run(5)
    sim.reset()
    sim.run(2)
    assert sim.buzz("r").get_global(0, "n") == 2
    assert sim.radio_stats()["messages_sent"] == 4 * 3  # ticks 0, 1, 2 after the reset


TOML = """
[simulation]
ticks = 5

[arena]
size = [2.0, 2.0]
walls = true

[[robots]]
name = "r"
placement = { kind = "explicit", poses = [[0, 0, 0], [0.3, 0, 0], [0.6, 0, 0]] }
controller = { buzz = "s.bzz" }
radio = { payload_bytes = 64 }
"""


def test_run_cli_writes_logs_and_summary(tmp_path):
    (tmp_path / "s.bzz").write_text('function step() {\n  log("hello from ", id)\n'
                                    '  if (id == 2) { boom() }\n}\n')
    (tmp_path / "e.toml").write_text(TOML)
    out = tmp_path / "out"
    res = runner.invoke(app, ["run", str(tmp_path / "e.toml"), "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "completed" and summary["failed_robots"] == 1
    assert summary["robot_failures"][0]["robot"] == 2
    # 3 robots emit on ticks 0-4 until robot 2 fails during its first step (tick 0): it never
    # broadcasts; the other two hear each other (0.3 m) each tick
    assert summary["messages_sent"] == 2 * 6 + 1
    assert summary["messages_delivered"] > 0 and summary["messages_dropped"] == 0
    assert "logs/run-00000.log" in summary["files"]
    log = (out / "logs" / "run-00000.log").read_text().splitlines()
    assert "tick 0 robot 0 (r): hello from 0" in log
    assert "tick 4 robot 1 (r): hello from 1" in log
    assert any(line.startswith("tick 0 robot 2 (r): Buzz error (step 1)") for line in log)
    assert "boom" in res.output  # the warning names the failure
    # --strict: the same run fails
    res = runner.invoke(app, ["run", str(tmp_path / "e.toml"), "--out", str(tmp_path / "o2"),
                              "--quiet", "--strict"])
    assert res.exit_code == 1
    summary = json.loads((tmp_path / "o2" / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["error"]["robot"] == 2


def test_verbose_prints_log_lines(tmp_path):
    (tmp_path / "s.bzz").write_text('function step() { log("line ", id) }')
    (tmp_path / "e.toml").write_text(TOML)
    res = runner.invoke(app, ["run", str(tmp_path / "e.toml"), "--out", str(tmp_path / "o"),
                              "--quiet", "--verbose"])
    assert res.exit_code == 0
    assert "[run 0] tick 3 robot 1 (r): line 1" in res.output


def test_messages_that_never_fit_the_cap_are_counted_and_logged(tmp_path):
    script = 'function step() { neighbors.broadcast("hello", "a long enough string") }'
    sim = sim_of(tmp_path, script, poses=ROW[:2], radio={"range": 0.8})  # E-Puck2: 2 bytes
    sim.start()
    sim.run(3)
    assert sim.radio_stats()["messages_refused"] == 2 * 3
    lines = [t for (_, _, rid, _, t) in sim.logs if rid == 0]
    assert len(lines) == 1 and "payload_bytes = 2" in lines[0]
