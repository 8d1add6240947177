"""`swarmstack real` with an E-Puck2: a fake epuck_ros2 driver (a ROS 2 node speaking the
driver's topics, in the driver's units, over zenoh on loopback) feeds the ground, light and
ToF readings of a Python controller and takes its wheel and LED commands."""

import threading
import time
from pathlib import Path

import pytest

from swarmstack.bridge import messages, ros_types
from swarmstack.bridge.node import Node
from swarmstack.bridge.real import open_real
from swarmstack.experiments.config import load_experiment

HERE = Path(__file__).resolve().parent
M = messages.message_class


def _range(frame, d):
    return ros_types.range_msg(time.time(), frame, d, 0.0, 1.0, 0.26)


def test_an_epuck2_is_driven_from_its_drivers_topics(endpoint):
    got, lock = {}, threading.Lock()
    stop = threading.Event()
    with Node("epuck_driver", namespace="e1", listen=(endpoint,)) as drv:
        for k in range(8):
            kind = "std_msgs/msg/Bool" if k % 2 == 0 else "std_msgs/msg/Int32"
            drv.subscribe(f"led{k}", kind,
                          lambda m, a, k=k: got.__setitem__(f"led{k}", m.data))
        drv.subscribe("cmd_vel", "geometry_msgs/msg/Twist",
                      lambda m, a: got.__setitem__("cmd_vel", (m.linear.x, m.angular.z)))
        pubs = {t: drv.publisher(t, ty) for t, ty in
                [(f"gs{k}", "sensor_msgs/msg/Range") for k in range(3)]
                + [(f"ls{k}", "sensor_msgs/msg/Illuminance") for k in range(8)]
                + [("tof", "sensor_msgs/msg/Range")]}
        # the driver's units: gs as its table's "distance" (1000 → 0 m, 300 → 0.016 m), so
        # gs0 (left) 0.008 m = count 650, gs2 (right) 0 m = 1000; ls the raw count; tof in m
        ground = {"gs0": 0.008, "gs1": 0.004, "gs2": 0.0}

        def publish():
            while not stop.is_set():
                for name, d in ground.items():
                    pubs[name].put(_range(name, d))
                for k in range(8):
                    pubs[f"ls{k}"].put(M("sensor_msgs/msg/Illuminance")(
                        header=ros_types.header(time.time(), f"ls{k}"),
                        illuminance=3200.0 if k == 0 else 2500.0, variance=0.0))
                pubs["tof"].put(_range("tof", 0.3))
                time.sleep(0.05)

        t = threading.Thread(target=publish, daemon=True)
        t.start()
        run = open_real(load_experiment(HERE / "epuck2_real.toml"), ["e1"], base_dir=HERE,
                        connect=(endpoint,))
        try:
            end = time.monotonic() + 20
            while time.monotonic() < end and not {"led0", "led1", "cmd_vel"} <= set(got):
                run.tick()
                time.sleep(run.dt)
            g = run.sim.groups[0]
            # swarmstack's ground index 0 is the right sensor: the driver's gs2
            assert g.readings["ground"][0].tolist() == [1000, 825, 650]
            assert g.readings["light"][0].tolist() == [3200] + [2500] * 7
            assert int(g.readings["tof_mm"][0]) == 300
            with lock:
                # ring LED 1 = (650 // 4, 3200 // 16, 7) as 0xRRGGBB; red LED 0 on
                assert got["led1"] == (162 << 16) | (200 << 8) | 7
                assert got["led0"] is True
                # wheels 0.1 m/s left, 0.025 m/s right: linear.x the mean, angular.z / axle
                v, w = got["cmd_vel"]
            assert v == pytest.approx(0.0625) and w == pytest.approx(-0.075 / 0.053)
        finally:
            stop.set()
            t.join(2)
            run.close()


def test_a_served_epuck2_takes_one_led_per_topic(endpoint, tmp_path):
    """--serve ros2: a command on led3 recolours ring LED 3 only; the others keep what the
    experiment's controller (none here) wrote; the ground readings go out on gs0 … gs2."""
    from swarmstack.bridge.serve import Ros2Server
    from swarmstack.sim.simulation import Simulation

    exp = tmp_path / "e.toml"
    exp.write_text('[simulation]\nticks_per_second = 20\nduration = "1 min"\n'
                   '[arena]\nsize = [1.0, 1.0]\n[[robots]]\nname = "e"\ntype = "epuck2"\n'
                   'count = 1\nsensors = { ground = true }\n')
    sim = Simulation(load_experiment(exp), runs=1, base_dir=tmp_path, source=str(exp))
    server = Ros2Server(sim, listen=(endpoint,), realtime=False)
    ranges = []
    try:
        with Node("ros_user", connect=(endpoint,)) as user:
            user.subscribe("/e_0/gs0", "sensor_msgs/msg/Range",
                           lambda m, a: ranges.append(m.range))
            led3 = user.publisher("/e_0/led3", "std_msgs/msg/Int32")
            led2 = user.publisher("/e_0/led2", "std_msgs/msg/Bool")
            leds = sim.groups[0].commands["leds"][0]
            end = time.monotonic() + 20
            while time.monotonic() < end and not (ranges and leds[3].tolist() == [1, 2, 3]
                                                  and leds[2].tolist() == [255, 0, 0]):
                led3.put(M("std_msgs/msg/Int32")(data=0x010203))
                led2.put(M("std_msgs/msg/Bool")(data=True))
                sim.step()
                time.sleep(0.02)
            assert leds[3].tolist() == [1, 2, 3] and leds[2].tolist() == [255, 0, 0]
            assert leds[[0, 1, 4, 5, 6, 7, 8, 9]].max() == 0
            # the white floor: count 1023 sits just above the driver's 0 m (count 1000)
            assert ranges and ranges[-1] == pytest.approx(-23 / 43750, abs=1e-6)
    finally:
        server.close()
