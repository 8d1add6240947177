"""`swarmstack run EXP --serve ros2`: a ROS 2 node (a zenoh peer speaking rmw_zenoh's format,
as an unmodified node would) reads a simulated RVR's odometry and drives it."""

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np

from swarmstack.bridge import ros_types
from swarmstack.bridge.node import Node

from tests.bridge.conftest import wait_for

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def test_a_ros_node_drives_a_served_simulated_rvr(endpoint, tmp_path):
    conf = tmp_path / "zenoh.json5"
    conf.write_text(json.dumps({"mode": "peer", "listen": {"endpoints": [endpoint]},
                                "scouting": {"multicast": {"enabled": False}}}))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "ZENOH_SESSION_CONFIG_URI": str(conf)}
    code = "from swarmstack.cli import main; main()"
    sim = subprocess.Popen([sys.executable, "-c", code, "run", str(HERE / "rvr_serve.toml"),
                            "--serve", "ros2", "--ticks", "2000", "--quiet",
                            "--out", str(tmp_path / "out")],
                           env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    odom, lock = [], threading.Lock()

    def on_odom(msg, att):
        p = msg.pose.pose.position
        with lock:
            odom.append((p.x, p.y))

    try:
        with Node("driver_test", connect=(endpoint,)) as node:
            node.subscribe("/rvr_0/rvr/odom", "nav_msgs/msg/Odometry", on_odom)
            colours = []
            node.subscribe("/rvr_1/rvr/ground_color", "std_msgs/msg/ColorRGBA",
                           lambda m, a: colours.append(m))
            wheels = node.publisher("/rvr_0/rvr/wheels_speed", "std_msgs/msg/Float32MultiArray")
            wait_for(lambda: len(odom) > 2, 60, "odometry of the simulated robot")
            assert odom[-1] == (0.0, 0.0)           # not driven yet: still at its boot place
            # the driver's unit: m/s on /rvr/wheels_speed, straight ahead (yaw 0 → +x)
            wait_for(lambda: (wheels.put(ros_types.float32_array([0.3, 0.3])) or
                              odom[-1][0] > 0.15), 10, "the robot moving")
            x, y = odom[-1]
            assert abs(y) < 1e-6 and x > 0.15
            assert colours and colours[-1].a == 255
            assert any(e.node_path == "/rvr_1/rvr_driver" for e in node.graph.entities.values())
        sim.send_signal(signal.SIGINT)           # Ctrl-C: the run ends, its results kept
        assert sim.wait(30) == 130, sim.stderr.read()
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        assert summary["status"] == "interrupted" and summary["ticks_done"] > 10
    finally:
        if sim.poll() is None:
            sim.kill()
            sim.wait()


def test_a_served_simulation_keeps_its_phases_and_its_other_hooks(endpoint):
    """The server works through the simulation's hooks: no phase is replaced on the instance,
    a hook registered before it keeps being called while it serves and after it closed, and
    with no ROS 2 command received the served simulation steps as an unserved one."""
    from swarmstack.bridge.serve import Ros2Server
    from swarmstack.sim.simulation import PHASES, Simulation

    sim, plain = (Simulation.from_file(HERE / "rvr_serve.toml") for _ in range(2))
    seen = []
    sim.hooks.after("sense", lambda s: seen.append(s.tick))
    server = Ros2Server(sim, listen=(endpoint,), realtime=False)
    try:
        assert not set(PHASES) & set(vars(sim))
        sim.run(3)
    finally:
        server.close()
    sim.run(2)
    plain.run(5)
    assert seen == [0, 1, 2, 3, 4, 5]
    assert np.array_equal(sim.world.bodies.pose, plain.world.bodies.pose)
    for g, p in zip(sim.groups, plain.groups):
        for name in g.readings:
            assert np.array_equal(g.readings[name], p.readings[name])


def test_serve_refuses_what_it_cannot_serve(tmp_path):
    from typer.testing import CliRunner

    from swarmstack.cli import app

    exp = tmp_path / "cf.toml"
    exp.write_text('[simulation]\nticks = 3\n[arena]\nsize = [2.0, 2.0]\n'
                   '[[robots]]\nname = "cf"\ntype = "crazyflie"\ncount = 1\n')
    res = CliRunner().invoke(app, ["run", str(exp), "--serve", "ros2", "--quiet",
                                   "--out", str(tmp_path / "out")])
    assert res.exit_code == 1 and "no group of a robot type with a ROS 2 bridge" in res.output
    res = CliRunner().invoke(app, ["run", str(HERE / "rvr_serve.toml"), "--serve", "ros2",
                                   "--runs", "2", "--out", str(tmp_path / "out2")])
    assert res.exit_code == 2 and "serves one run" in res.output
    # the cflib server's options would be ignored by a real-time ROS 2 run
    res = CliRunner().invoke(app, ["run", str(HERE / "rvr_serve.toml"), "--serve", "ros2",
                                   "--serve-speed", "4", "--out", str(tmp_path / "out3")])
    assert res.exit_code == 2 and "apply to --serve cflib only" in res.output
    assert not (tmp_path / "out3").exists()


def test_serve_prints_the_namespaces_by_run_wide_robot_id(endpoint, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from swarmstack.cli import app

    conf = tmp_path / "zenoh.json5"
    conf.write_text(json.dumps({"mode": "peer", "listen": {"endpoints": [endpoint]},
                                "scouting": {"multicast": {"enabled": False}}}))
    monkeypatch.setenv("ZENOH_SESSION_CONFIG_URI", str(conf))
    exp = tmp_path / "two.toml"
    exp.write_text('[simulation]\nticks = 2\nticks_per_second = 20\n[arena]\nsize = [6.0, 6.0]\n'
                   '[[robots]]\nname = "ep"\ntype = "epuck2"\ncount = 3\n'
                   'sensors = { proximity = true }\n'
                   '[[robots]]\nname = "rvr"\ntype = "rvr"\ncount = 2\n'
                   'sensors = { locator = true }\n')
    res = CliRunner().invoke(app, ["run", str(exp), "--serve", "ros2", "--quiet",
                                   "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    # robot ids run on across groups, as in the results and the MCAP export
    assert "ros2: group 'ep': /ep_0, /ep_1, /ep_2 (epuck_driver each)" in res.output
    assert "ros2: group 'rvr': /rvr_3, /rvr_4 (rvr_driver each)" in res.output


def test_without_the_ros2_extra_real_and_serve_say_what_to_install(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from swarmstack.cli import app

    monkeypatch.setitem(sys.modules, "zenoh", None)    # as if eclipse-zenoh were not installed
    for args in (["real", str(HERE / "rvr_serve.toml"), "--robots", "rvr_1", "--ticks", "1"],
                 ["run", str(HERE / "rvr_serve.toml"), "--serve", "ros2", "--ticks", "1",
                  "--out", str(tmp_path / "out")]):
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 1, res.output
        assert "needs the ros2 extra (pip install 'swarmstack[ros2]')" in res.output
        assert "Traceback" not in res.output


def test_ros_domain_id_is_taken_from_the_environment_as_ros_2_nodes_take_it(endpoint, tmp_path,
                                                                             monkeypatch):
    from typer.testing import CliRunner

    from swarmstack.bridge import serve as served
    from swarmstack.cli import app

    conf = tmp_path / "zenoh.json5"
    conf.write_text(json.dumps({"mode": "peer", "listen": {"endpoints": [endpoint]},
                                "scouting": {"multicast": {"enabled": False}}}))
    monkeypatch.setenv("ZENOH_SESSION_CONFIG_URI", str(conf))
    monkeypatch.setenv("ROS_DOMAIN_ID", "7")
    domains = []
    real_server = served.Ros2Server

    def spy(sim, **kw):
        domains.append(kw.get("domain"))
        return real_server(sim, **kw)

    monkeypatch.setattr(served, "serve_ros2", spy)
    res = CliRunner().invoke(app, ["run", str(HERE / "rvr_serve.toml"), "--serve", "ros2",
                                   "--ticks", "1", "--quiet", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    assert domains == [7]
    monkeypatch.setenv("ROS_DOMAIN_ID", "seven")
    res = CliRunner().invoke(app, ["run", str(HERE / "rvr_serve.toml"), "--serve", "ros2",
                                   "--ticks", "1", "--quiet", "--out", str(tmp_path / "out2")])
    assert res.exit_code == 1 and "ROS_DOMAIN_ID='seven': expected a domain id" in res.output
    assert "Traceback" not in res.output
    # swarmstack real's --domain defaults to it too
    from swarmstack.bridge import real

    def stop(cfg, names, **kw):
        domains.append(kw["domain"])
        raise real.RealRunError("stopped here")

    monkeypatch.setattr(real, "open_real", stop)
    monkeypatch.setenv("ROS_DOMAIN_ID", "9")
    res = CliRunner().invoke(app, ["real", str(HERE / "rvr_real.toml"), "--robots", "rvr_1"])
    assert "stopped here" in res.output and domains == [7, 9]
