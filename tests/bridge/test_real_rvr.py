"""`swarmstack real` end to end: an experiment's Python controller drives two fake RVR drivers
(another process, two ROS 2 nodes speaking the Mercator topics over zenoh on loopback)."""

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from swarmstack.bridge.real import RealRunError, open_real
from swarmstack.experiments.config import load_experiment

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


class Fake:
    def __init__(self, endpoint, names, listen=False):
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        endpoint = ",".join(endpoint) if isinstance(endpoint, list) else endpoint
        args = [sys.executable, str(HERE / "fake_rvr.py"), endpoint, ",".join(names)]
        self.p = subprocess.Popen(args + (["listen"] if listen else []), env=env, cwd=ROOT,
                                  text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.split())

    def tell(self, text):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def close(self):
        if self.p.poll() is None:
            try:
                self.tell("quit")
                self.p.wait(5)
            except (OSError, subprocess.TimeoutExpired):
                self.p.kill()
                self.p.wait()


def run_until(run, fake, predicate, seconds=10.0, what=""):
    """Tick the real run (at its own rate) until predicate(received lines so far)."""
    end = time.monotonic() + seconds
    seen = []
    while time.monotonic() < end:
        run.tick()
        while not fake.lines.empty():
            seen.append(fake.lines.get())
        if predicate(seen):
            return seen
        time.sleep(run.dt)
    raise AssertionError(f"timed out: {what}; last lines {seen[-5:]}; "
                         f"stderr {fake.p.stderr.read() if fake.p.poll() is not None else ''}")


@pytest.fixture
def fake(endpoint):
    f = Fake(endpoint, ["rvr_1", "rvr_2"])
    yield f
    f.close()


@pytest.fixture(scope="module")
def listening_fake():
    """Two fake robots that listen (one endpoint each) and outlive a test: the bridge of each
    test connects to them. Returns (fake, endpoints)."""
    from tests.bridge.conftest import free_endpoint

    eps = [free_endpoint(), free_endpoint()]
    f = Fake(eps, ["rvr_1", "rvr_2"], listen=True)
    assert f.lines.get(timeout=15) == ["ready"]
    yield f, eps
    f.close()


def wheels(seen, name):
    return [tuple(float(v) for v in s[2:]) for s in seen if s[:2] == ["wheels", name]]


def test_controller_drives_fake_robots_with_units_link_loss_and_departure(endpoint, fake):
    cfg = load_experiment(HERE / "rvr_real.toml")
    events = []
    run = open_real(cfg, ["rvr_1", "rvr_2"], base_dir=HERE, listen=(endpoint,),
                    link_timeout_s=0.3, on_event=lambda n, s, t: events.append((n, s)))
    try:
        assert fake.lines.get(timeout=15) == ["ready"]
        # readings in: red 100 / 150 → 10 / 15 cm/s = 0.1 / 0.15 m/s on the topic; locator
        # x 0.25 m → 25 cm/s = 0.25 m/s
        # (LEDs travel on their own topic: they may arrive after the wheels)
        seen = run_until(run, fake, lambda s: wheels(s, "rvr_1") and wheels(s, "rvr_2")
                         and any(x[:2] == ["leds", "rvr_1"] for x in s),
                         what="wheel commands for both robots and LEDs")
        assert wheels(seen, "rvr_1")[-1] == pytest.approx((0.1, 0.25), abs=1e-4)
        assert wheels(seen, "rvr_2")[-1] == pytest.approx((0.15, 0.25), abs=1e-4)
        leds = [s for s in seen if s[:2] == ["leds", "rvr_1"]]
        assert leds and [float(v) for v in leds[-1][2:5]] == [100, 0, 0]
        assert ("rvr_1", "live") in events and ("rvr_2", "live") in events
        g = run.sim.groups[0]
        assert g.readings["ground_color"][1].tolist() == [150, 0, 0]
        assert g.readings["locator"][0].tolist() == [0.25, -0.5]

        # malformed messages are dropped and counted; the robot goes on
        fake.tell("garbage rvr_1")
        run_until(run, fake, lambda s: ["ok", "garbage", "rvr_1"] in s, what="garbage sent")
        run_until(run, fake, lambda s: run.summary()["robots"][0]["dropped"] == 2,
                  what="two malformed messages counted")
        assert run.links.links[0].state == "live"
        assert g.readings["locator"][0].tolist() == [0.25, -0.5]

        # a lost link: the robot's wheels get the stop command and its controller pauses
        fake.tell("silence rvr_2")
        seen = run_until(run, fake, lambda s: (0.0, 0.0) in wheels(s, "rvr_2"),
                         what="stop command after the link timeout")
        assert ("rvr_2", "lost") in events
        assert wheels(seen, "rvr_1")[-1] == pytest.approx((0.1, 0.25), abs=1e-4)
        # ... and resumes when readings come back
        fake.tell("resume rvr_2")
        run_until(run, fake, lambda s: any(w[0] > 0.1 for w in wheels(s, "rvr_2")),
                  what="commands again after reconnection")
        assert events.count(("rvr_2", "live")) == 2

        # a robot whose driver leaves the graph is reported gone and stopped
        fake.tell("kill rvr_2")
        run_until(run, fake, lambda s: ("rvr_2", "gone") in events, what="departure reported")
        assert [link.state for link in run.links.links] == ["live", "gone"]
        assert run.summary()["robots"][1] == {"robot": "rvr_2", "state": "gone", "dropped": 0,
                                              "missing": []}
    finally:
        run.close()


def test_no_command_before_a_robot_is_heard(endpoint):
    cfg = load_experiment(HERE / "rvr_real.toml")
    run = open_real(cfg, ["ghost"], base_dir=HERE, listen=(endpoint,))
    try:
        for _ in range(3):
            run.tick()
        assert run.links.links[0].state == "waiting"
        assert run.links.links[0].publishers == {}    # nothing was ever declared or sent
        assert run.summary()["robots"][0]["missing"] == ["rvr/ground_color", "rvr/odom"]
    finally:
        run.close()


@pytest.mark.parametrize("robots, message", [(["rvr-1"], "ROS name"), (["a", "a"], "twice"),
                                             ([], "no robots")])
def test_bad_robot_lists_are_refused(robots, message):
    cfg = load_experiment(HERE / "rvr_real.toml")
    with pytest.raises(RealRunError, match=message):
        open_real(cfg, robots, base_dir=HERE)


def test_cli_real_drives_a_robot_and_reports(endpoint):
    import json

    from typer.testing import CliRunner

    from swarmstack.cli import app

    f = Fake([endpoint], ["rvr_1"], listen=True)
    try:
        assert f.lines.get(timeout=15) == ["ready"]
        res = CliRunner().invoke(app, ["real", str(HERE / "rvr_real.toml"), "--robots", "rvr_1",
                                       "--ticks", "20", "--connect", endpoint, "--json"])
        assert res.exit_code == 0, res.output
        summary = json.loads(res.stdout[res.stdout.index("{"):])
        assert summary["ticks"] == 20
        # the state at the end is the last one reported (stopping the robots does not make
        # them "lost"); the fake driver publishes all along, so live unless a hiccup
        last = [e["state"] for e in summary["events"] if e["robot"] == "rvr_1"][-1]
        assert summary["robots"] == [{"robot": "rvr_1", "state": last, "dropped": 0,
                                      "missing": []}]
        assert {"robot": "rvr_1", "state": "live", "tick": summary["events"][0]["tick"]} \
            in summary["events"]
        lines = []
        while not f.lines.empty():
            lines.append(f.lines.get())
        w = wheels(lines, "rvr_1")
        assert (0.1, 0.25) in [tuple(round(v, 4) for v in x) for x in w]
        assert w[-1] == (0.0, 0.0)     # the end of the run stops the robot
    finally:
        f.close()


def test_cli_real_refuses_bad_robot_names():
    from typer.testing import CliRunner

    from swarmstack.cli import app

    res = CliRunner().invoke(app, ["real", str(HERE / "rvr_real.toml"), "--robots", "rvr 1"])
    assert res.exit_code == 1
    assert "robot name 'rvr 1'" in res.output



def test_cli_real_takes_an_argos_file(endpoint):
    import json

    from typer.testing import CliRunner

    from swarmstack.cli import app

    argos = HERE.parents[1] / "examples" / "argos" / "epuck2_buzz_flocking.argos"
    res = CliRunner().invoke(app, ["real", str(argos), "--robots", "ep_1", "--ticks", "1",
                                   "--listen", endpoint, "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout[res.stdout.index("{"):])
    assert summary["robots"][0]["robot"] == "ep_1" and summary["robots"][0]["state"] == "waiting"

def test_buzz_script_on_real_robots_through_the_radio_topic(listening_fake):
    """ROSBuzz-style: neighbours and their messages come from /swarm/radio, placed by the
    robots' pose topics (rvr_1 at x = 0, rvr_2 at x = 1 m)."""
    fake, eps = listening_fake
    cfg = load_experiment(HERE / "rvr_buzz_real.toml")
    run = open_real(cfg, ["rvr_1", "rvr_2"], base_dir=HERE, connect=eps)
    try:
        # one neighbour each → left 0.1 m/s; rvr_1 heard id 1 → 0.2, rvr_2 heard id 0 → 0.1
        seen = run_until(run, fake, lambda s: (wheels(s, "rvr_1") or [()])[-1] == (0.1, 0.2)
                         and (wheels(s, "rvr_2") or [()])[-1] == (0.1, 0.1),
                         what="Buzz wheel commands from the radio")
        inbox = run.sim.medium.inbox
        assert inbox.count(0) == 1 and inbox.count(1) == 1
        assert inbox.distance_m.tolist() == pytest.approx([1.0, 1.0])
        assert inbox.azimuth_rad.tolist() == pytest.approx([0.0, np.pi], abs=1e-9) or \
            inbox.azimuth_rad.tolist() == pytest.approx([0.0, -np.pi], abs=1e-9)
        assert run.summary()["radio"]["frames_sent"] > 0

        # a robot out of reach: its VM stops stepping until it is back
        _paused_while_lost(run, fake, run.sim.groups[0].controllers[0])
    finally:
        run.close()


def test_lua_scripts_of_lost_robots_are_paused(listening_fake):
    """A Lua robot out of reach stops stepping until it is back, as a Buzz VM does; the
    others go on."""
    fake, eps = listening_fake
    cfg = load_experiment(HERE / "rvr_lua_real.toml")
    run = open_real(cfg, ["rvr_1", "rvr_2"], base_dir=HERE, connect=eps)
    try:
        run_until(run, fake, lambda s: (wheels(s, "rvr_1") or [()])[-1] == (0.1, 0.1)
                  and (wheels(s, "rvr_2") or [()])[-1] == (0.1, 0.1),
                  what="Lua wheel commands")
        _paused_while_lost(run, fake, run.sim.groups[0].controllers[0])
    finally:
        run.close()


@pytest.mark.parametrize("endpoint, message", [("foo", "a zenoh endpoint is"),
                                               ("tcp/127.0.0.1:99999", "cannot open")])
def test_cli_real_refuses_bad_endpoints(endpoint, message):
    from typer.testing import CliRunner

    from swarmstack.cli import app

    res = CliRunner().invoke(app, ["real", str(HERE / "rvr_real.toml"), "--robots", "rvr_1",
                                   "--listen", endpoint])
    assert res.exit_code == 1
    assert message in res.output and "Traceback" not in res.output


def test_readings_without_a_topic_are_refused(tmp_path):
    exp = tmp_path / "e.toml"
    exp.write_text('[arena]\nsize = [1.0, 1.0]\n[[robots]]\nname = "e"\ntype = "epuck2"\n'
                   'count = 1\nsensors = { proximity = true, encoders = true }\n'
                   'controller = { python = "still.py:Still" }\n')
    (tmp_path / "still.py").write_text("from swarmstack import Controller\n\n\n"
                                       "class Still(Controller):\n"
                                       "    def step(self, robot):\n        pass\n")
    # the epuck_ros2 driver publishes odometry, not its encoder counts
    with pytest.raises(RealRunError, match="no topic for encoders"):
        open_real(load_experiment(exp), ["e1"], base_dir=tmp_path)



def test_the_group_to_run_is_the_bridged_one_with_a_controller(tmp_path):
    from swarmstack.bridge.real import real_config

    def cfg(*groups):
        exp = tmp_path / "e.toml"
        exp.write_text('[arena]\nsize = [4.0, 4.0]\n' + "".join(
            f'[[robots]]\nname = "{name}"\ntype = "{kind}"\ncount = 1\n' +
            ('controller = { python = "swarmstack.controllers.api:Controller" }\n' if ctrl
             else "") for name, kind, ctrl in groups))
        return load_experiment(exp)

    # a standing RVR (a C++ controller in an imported .argos file) is no candidate
    picked = real_config(cfg(("ep", "epuck2", True), ("rvr", "rvr", False)), 2)
    assert [(g.name, g.count) for g in picked.robots] == [("ep", 2)]
    with pytest.raises(RealRunError, match="no controller to run: groups ep, rvr have none"):
        real_config(cfg(("ep", "epuck2", False), ("rvr", "rvr", False)), 1)
    with pytest.raises(RealRunError, match=r"several groups could run on robots \(ep, rvr\)"):
        real_config(cfg(("ep", "epuck2", True), ("rvr", "rvr", True)), 1)
    with pytest.raises(RealRunError, match=r"ROS 2 bridge \(epuck2, rvr\)"):
        real_config(cfg(("cf", "crazyflie", True)), 1)

def test_designed_pfsm_on_real_robots_reads_the_reference_model_from_topics(listening_fake):
    """A Watermelon PFSM (exploration) reads Table 1's record computed from the ranges, the
    scan, the light and the ground colour: with nothing around it drives straight at the
    reference model's 12 cm/s = 0.12 m/s on the driver's topic."""
    fake, eps = listening_fake
    cfg = load_experiment(HERE / "rvr_pfsm_real.toml")
    run = open_real(cfg, ["rvr_1", "rvr_2"], base_dir=HERE, connect=eps)
    try:
        run_until(run, fake, lambda s: (wheels(s, "rvr_1") or [()])[-1] == (0.12, 0.12)
                  and (wheels(s, "rvr_2") or [()])[-1] == (0.12, 0.12),
                  what="exploration at the reference model's speed")
        ref = run.sim.groups[0].readings["reference"]
        assert ref["prox"].max() == 0.0 and ref["lidar_count"].tolist() == [0, 0]
        assert ref["light"].tolist() == [42.0, 42.0]
    finally:
        run.close()


def _paused_while_lost(run, fake, script) -> None:
    """rvr_2 falls silent: its script's ``steps`` global stops counting while rvr_1's goes
    on, and counts again once rvr_2 is back."""
    fake.tell("silence rvr_2")
    run_until(run, fake, lambda s: run.links.links[1].state == "lost", what="rvr_2 lost")
    steps = script.get_global(1, "steps")
    for _ in range(3):
        run.tick()
    assert script.get_global(1, "steps") == steps
    assert script.get_global(0, "steps") > steps
    fake.tell("resume rvr_2")
    run_until(run, fake, lambda s: run.links.links[1].state == "live", what="rvr_2 back")
    run.tick()
    assert script.get_global(1, "steps") > steps
