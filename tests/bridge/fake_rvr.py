"""Fake Mercator drivers for the end-to-end tests: one ROS 2 node per robot (its own zenoh
session, namespace /<name>) publishing ground colour, ambient light, odometry, a pose (robot
k at x = k m), 8 ranges and a scan that see nothing, at 20 Hz, printing every wheels_speed and
rgb_leds command it takes.

The first argument is an endpoint all robots connect to, or with a third argument ``listen``
one endpoint per robot (comma-separated) that each listens on.
stdin commands: ``silence NAME`` (stop publishing: a lost link), ``resume NAME``, ``garbage
NAME`` (two malformed odometry samples), ``kill NAME`` (close its node: it leaves the graph),
``quit``."""

import os
import sys
import threading
import time

import numpy as np

from swarmstack.bridge.node import Node
from swarmstack.bridge.rvr import RVR_TOPICS


def main(endpoints: list[str], names: list[str], listen: bool = False) -> None:
    out_lock = threading.Lock()

    def say(*parts):
        with out_lock:
            print(*parts, flush=True)

    robots = {}
    for k, name in enumerate(names):
        # robot k listens on endpoint k when the bridge is the one that connects
        where = {"listen": (endpoints[k],)} if listen else {"connect": (endpoints[0],)}
        node = Node("rvr_driver", namespace=name, **where)
        rows = {"ground_color": np.array([[100 + 50 * k, 0, 0]]), "light": np.array([42.0]),
                "locator": np.array([[0.25, -0.5]]), "quaternion": np.array([[1.0, 0, 0, 0]]),
                "velocity": np.zeros((1, 2)),
                "pose": np.array([[1.0 * k, 0.0, 0.0, 0.0, 0.0, 0.0]]),   # 1 m apart on x
                "proximity": np.full((1, 8), np.inf),                     # nothing near
                "lidar": np.full((1, 719), 12.0)}                         # no return
        pubs = [(node.publisher(st.topic, st.ros_type), st) for st in RVR_TOPICS.sensors
                if st.topic in ("rvr/ground_color", "rvr/ambient_light", "rvr/odom", "pose",
                                "ranges", "scan")]
        for ct in RVR_TOPICS.commands:
            def on_cmd(msg, att, ct=ct, name=name):
                say(ct.command, name, *[f"{v:.4f}" for v in ct.from_msg(msg).ravel()])
            node.subscribe(ct.topic, ct.ros_type, on_cmd)
        robots[name] = {"node": node, "pubs": pubs, "rows": rows, "on": True}
    say("ready")

    def publish():
        while True:
            for r in list(robots.values()):
                if r["on"]:
                    for pub, st in r["pubs"]:
                        pub.put(st.write(r["rows"], time.time()))
            time.sleep(0.05)

    threading.Thread(target=publish, daemon=True).start()
    for line in sys.stdin:
        cmd, *arg = line.split()
        if cmd == "quit":
            break
        r = robots[arg[0]]
        if cmd == "silence":
            r["on"] = False
        elif cmd == "resume":
            r["on"] = True
        elif cmd == "garbage":   # a truncated odometry sample and one with a NaN position
            pub, st = next((p, st) for p, st in r["pubs"] if st.topic == "rvr/odom")
            pub.put_bytes(b"\x00\x01\x00\x00\x01\x02")
            pub.put(st.write({**r["rows"], "locator": np.array([[np.nan, 0.0]])}, time.time()))
        elif cmd == "kill":
            r["on"] = False
            robots.pop(arg[0])["node"].close()
        say("ok", cmd, arg[0])
    for r in robots.values():
        r["node"].close()
    os._exit(0)     # the publishing thread may be inside a put


if __name__ == "__main__":
    main(sys.argv[1].split(","), sys.argv[2].split(","), sys.argv[3:] == ["listen"])
