"""cflib's own API flies a simulated Crazyflie served over UDP (``--serve cflib``)."""

from __future__ import annotations

import math
import socket
import struct
import threading
import time
from pathlib import Path

import numpy as np
import pytest

cflib_crtp = pytest.importorskip("cflib.crtp")

from cflib.crazyflie import Crazyflie  # noqa: E402
from cflib.crazyflie.log import LogConfig  # noqa: E402
from cflib.crazyflie.syncCrazyflie import SyncCrazyflie  # noqa: E402

from swarmstack.crtp import protocol as p  # noqa: E402
from swarmstack.crtp.serve import CflibServer, ServeError, open_server  # noqa: E402
from swarmstack.experiments.config import parse_experiment  # noqa: E402
from swarmstack.experiments.results_writer import read_table  # noqa: E402
from swarmstack.experiments.runner import run_experiment  # noqa: E402

SPEED = 8.0   # simulated seconds per second


def experiment(n: int = 1, controller: bool = False, noise: float = 0.0):
    group = {"name": "cf", "type": "crazyflie",
             "placement": {"kind": "explicit",
                           "poses": [[0.3 * k, 0.0, 0.0] for k in range(n)]},
             "sensors": {"positioning": {"position_noise": noise}, "battery": True}}
    if controller:
        group["controller"] = {"python": "controllers/crazyflie_hover.py:Hover"}
    return parse_experiment({
        "simulation": {"ticks_per_second": 20, "duration": "300 s", "seed": 5},
        "arena": {"size": [4.0, 4.0], "walls": True},
        "robots": [group],
        "output": {"sensors": ["positioning"]},
    }, "flight.toml")


class Served:
    """A run in a thread with its drones served; ``close`` ends it and gives the summary."""

    def __init__(self, tmp_path: Path, n: int = 1, noise: float = 0.0):
        self.cfg = experiment(n, noise=noise)
        self.server = CflibServer(self.cfg, base_port=0, speed=SPEED)
        self.out = tmp_path / "run"
        self.result: dict = {}
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            self.result["summary"] = run_experiment(self.cfg, self.out,
                                                    on_tick=self.server.before_tick)
        except BaseException as exc:  # the test reports it
            self.result["error"] = exc

    def close(self) -> dict:
        self.server.close()
        self.thread.join(60)
        assert "error" not in self.result, self.result.get("error")
        return self.result["summary"]


@pytest.fixture
def served(tmp_path):
    cflib_crtp.init_drivers()
    s = Served(tmp_path)
    yield s
    s.server.close()
    s.thread.join(60)


def wait_for(cond, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False


def test_cflib_takes_off_goes_to_a_point_and_lands(served):
    seen = []
    with SyncCrazyflie(served.server.uris[0], cf=Crazyflie()) as scf:
        scf.wait_for_params()
        conf = LogConfig("state", 50)
        for name in ("stateEstimate.x", "stateEstimate.y", "stateEstimate.z",
                     "stateEstimate.yaw", "pm.vbat", "pm.batteryLevel"):
            conf.add_variable(name)
        conf.data_received_cb.add_callback(lambda ts, data, _: seen.append((ts, dict(data))))
        scf.cf.log.add_config(conf)
        conf.start()
        hl = scf.cf.high_level_commander
        hl.takeoff(0.6, 2.0)
        assert wait_for(lambda: seen and seen[-1][1]["stateEstimate.z"] > 0.58)
        hl.go_to(0.8, -0.5, 1.0, math.pi / 2, 2.5)
        assert wait_for(lambda: math.dist(
            (seen[-1][1]["stateEstimate.x"], seen[-1][1]["stateEstimate.y"],
             seen[-1][1]["stateEstimate.z"]), (0.8, -0.5, 1.0)) < 0.02
            and abs(seen[-1][1]["stateEstimate.yaw"] - 90.0) < 2.0)
        at_goal = seen[-1]
        hl.land(0.0, 2.0)
        assert wait_for(lambda: seen[-1][1]["stateEstimate.z"] < 1e-6
                        and seen[-1][0] > at_goal[0] + 3000)
        conf.stop()
    summary = served.close()
    assert summary["status"] == "completed"

    # the logged values are the simulated ones: time stamps are simulated milliseconds
    stamps = [ts for ts, _ in seen]
    assert all(b - a == 50 for a, b in zip(stamps, stamps[1:]))
    _, d = at_goal
    assert 3.0 < d["pm.vbat"] <= 4.2 and 0 < d["pm.batteryLevel"] <= 100
    traj = read_table(served.out / "trajectories")
    dt = summary["dt_s"]
    k = list(traj["tick"]).index(round(at_goal[0] / 1000 / dt))
    assert traj["x"][k] == pytest.approx(d["stateEstimate.x"], abs=1e-5)
    assert traj["y"][k] == pytest.approx(d["stateEstimate.y"], abs=1e-5)
    assert traj["z"][k] == pytest.approx(d["stateEstimate.z"], abs=1e-5)
    assert math.degrees(traj["yaw"][k]) == pytest.approx(d["stateEstimate.yaw"], abs=1e-3)
    # landed where it went, motors off: the last rows stay on the floor at (0.8, -0.5)
    assert traj["z"][-1] == 0.0
    assert (traj["x"][-1], traj["y"][-1]) == pytest.approx((0.8, -0.5), abs=0.02)
    assert max(traj["z"]) < 1.05   # the smooth path does not overshoot


def test_cflib_parameters_drive_the_led_ring_and_set_points_fly(served):
    with SyncCrazyflie(served.server.uris[0], cf=Crazyflie()) as scf:
        scf.wait_for_params()
        cf = scf.cf
        assert cf.param.get_value("commander.enHighLevel") == "1"
        assert cf.param.get_value("deck.bcLedRing") == "1"
        with pytest.raises(AttributeError):
            cf.param.set_value("deck.bcLedRing", 0)      # read-only, as on the drone
        done = threading.Event()
        cf.param.add_update_callback(group="ring", name="solidBlue",
                                     cb=lambda name, value: done.set())
        cf.param.set_value("ring.solidRed", 200)
        cf.param.set_value("ring.solidBlue", 40)
        cf.param.set_value("ring.effect", 7)             # solid colour
        assert done.wait(10)
        sim_leds = lambda: served.server._sim.groups[0].commands["leds"][0, 0].tolist()  # noqa
        assert wait_for(lambda: sim_leds() == [200, 0, 40])

        # low-level position set-points, streamed: the drone takes off and follows them
        z = []
        conf = LogConfig("z", 50)
        conf.add_variable("stateEstimate.z", "float")
        conf.add_variable("stateEstimate.x", "float")
        conf.data_received_cb.add_callback(lambda ts, data, _: z.append(data))
        cf.log.add_config(conf)
        conf.start()
        for _ in range(40):
            cf.commander.send_position_setpoint(0.4, 0.0, 0.5, 0.0)
            time.sleep(0.03)
        assert wait_for(lambda: z and abs(z[-1]["stateEstimate.z"] - 0.5) < 0.05
                        and abs(z[-1]["stateEstimate.x"] - 0.4) < 0.05)
        cf.commander.send_stop_setpoint()
        assert wait_for(lambda: z[-1]["stateEstimate.z"] < 1e-6)
    served.close()
    assert served.server.counters()["malformed"] == 0


def test_malformed_datagrams_are_dropped_and_counted(served):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.settimeout(5.0)
    addr = ("127.0.0.1", served.server.drones[0].port)
    bad = [b"", bytes(40),                                   # no packet, too long
           p.encode(p.LOG, 0, b"\x02\xff\xff"),              # TOC item out of range
           p.encode(p.PARAM, 1, b"\x01"),                    # read cut short
           p.encode(p.HIGH_LEVEL, 0, b"\x07\x00\x00"),       # take-off cut short
           p.encode(p.GENERIC_COMMANDER, 0, b"\x07" + bytes.fromhex("0000c07f") * 4)]  # NaN
    for data in bad:
        sock.sendto(data, addr)
    sock.sendto(p.encode(p.LINK, 0, b"still here"), addr)    # echo
    assert sock.recv(64) == p.encode(p.LINK, 0, b"still here")
    sock.close()
    served.close()
    c = served.server.counters()
    assert c["malformed"] == len(bad) and c["received"] == len(bad) + 1
    # nothing flew: the NaN set-point never reached the drone
    traj = read_table(served.out / "trajectories")
    assert max(traj["z"]) == 0.0


def test_what_cannot_be_served_is_said(tmp_path):
    with pytest.raises(ServeError, match="no Crazyflie group without a controller"):
        CflibServer(experiment(1, controller=True), base_port=0)
    with pytest.raises(ServeError, match="one run"):
        open_server("cflib", experiment(), runs=2, base_port=0)
    with pytest.raises(ServeError, match="unknown server"):
        open_server("mavlink", experiment(), base_port=0)
    with pytest.raises(ServeError, match="cannot serve cf/0 on 127.0.0.1:70000"):
        CflibServer(experiment(), base_port=70000)
    first = CflibServer(experiment(), base_port=0)
    try:
        with pytest.raises(ServeError, match=f"cf/0 on 127.0.0.1:{first.drones[0].port}"):
            CflibServer(experiment(), base_port=first.drones[0].port)
    finally:
        first.close()


def test_drones_are_named_by_group_and_robot_id_as_in_the_results():
    cfg = parse_experiment({
        "simulation": {"ticks_per_second": 10, "duration": "1 s"},
        "arena": {"size": [2.0, 2.0]},
        "robots": [{"name": "ground", "type": "epuck2", "count": 2},
                   {"name": "air", "type": "crazyflie", "count": 2,
                    "sensors": {"camera": True}}],
    }, "mixed.toml")
    server = CflibServer(cfg, base_port=0)
    try:
        assert [line.split(":")[0] for line in server.lines()] == ["air/2", "air/3"]
        assert [d.drone.param("deck.bcAI") for d in server.drones] == [1, 1]
    finally:
        server.close()


def test_the_estimate_is_the_tracking_systems_reading_noise_included(tmp_path):
    served = Served(tmp_path, noise=0.05)
    try:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.settimeout(30)
        addr = ("127.0.0.1", served.server.drones[0].port)
        sock.sendto(p.encode(p.LOG, 1, struct.pack("<BBBH", 6, 1, 0x07, 0)), addr)  # x
        assert sock.recv(64) == p.encode(p.LOG, 1, bytes((6, 1, 0)))
        sock.sendto(p.encode(p.LOG, 1, bytes((3, 1, 5))), addr)                    # 50 ms
        assert sock.recv(64) == p.encode(p.LOG, 1, bytes((3, 1, 0)))
        logged = []
        while len(logged) < 5:
            pk = p.decode(sock.recv(64))
            if pk.channel == 2:
                stamp = int.from_bytes(pk.data[1:4], "little")
                logged.append((stamp, struct.unpack_from("<f", pk.data, 4)[0]))
        sock.close()
    finally:
        served.close()
    dt = 0.05
    sensors = read_table(served.out / "sensors" / "cf")
    traj = read_table(served.out / "trajectories")
    for stamp, x in logged:
        k = list(sensors["tick"]).index(round(stamp / 1000 / dt))
        assert x == np.float32(sensors["pose_0"][k])     # what the positioning device read
    assert any(abs(x - traj["x"][0]) > 1e-3 for _, x in logged)   # … not the true pose


def test_cflib_motion_commander_flies_a_served_drone(tmp_path):
    """cflib's MotionCommander (hover set-points streamed by its own thread, wall-clock sleeps)
    takes off, flies forward and lands. Served at real speed, so its velocities and sleeps give
    the distances it means; kept short, but take-off's estimator reset alone sleeps 2.1 s."""
    from cflib.positioning.motion_commander import MotionCommander

    cflib_crtp.init_drivers()
    s = Served(tmp_path)
    s.server.speed = 1.0
    seen = []
    try:
        with SyncCrazyflie(s.server.uris[0], cf=Crazyflie()) as scf:
            conf = LogConfig("state", 50)
            for name in ("stateEstimate.x", "stateEstimate.z"):
                conf.add_variable(name)
            conf.data_received_cb.add_callback(lambda ts, data, _: seen.append(dict(data)))
            scf.cf.log.add_config(conf)
            conf.start()
            mc = MotionCommander(scf, default_height=0.2)
            try:
                mc.take_off(velocity=1.0)
                assert wait_for(lambda: seen[-1]["stateEstimate.z"] > 0.15, 3.0)
                mc.forward(0.1, velocity=0.5)
            finally:
                mc.land(velocity=1.0)     # its set-point thread must end, even on a failure
            assert wait_for(lambda: seen[-1]["stateEstimate.z"] < 0.02, 3.0)
            conf.stop()
        assert 0.15 < max(d["stateEstimate.z"] for d in seen) < 0.3
        assert seen[-1]["stateEstimate.x"] == pytest.approx(0.1, abs=0.04)
    finally:
        s.server.close()
        s.thread.join(60)
