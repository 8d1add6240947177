"""ROS 2 bridge costs: CDR encode/decode of the Mercator messages, and typed messages between
two zenoh peers on loopback (two sessions in one process, explicit endpoints, no scouting).

For each message: µs of CPU per encode and per decode (rosbags), then the messages per second
one keep-all publisher delivers to one subscriber (every sample stamped with its attachment, decoded
and checked on arrival) and the CPU seconds that took. Prints a table, or with ``--json`` the
table on standard error and one JSON object as the last line of standard output.

    python benchmarks/ros2_bridge.py --messages 5000 --json
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swarmstack.bridge import messages, wire  # noqa: E402
from swarmstack.bridge.node import Node  # noqa: E402
from swarmstack.bridge.rvr import RVR_TOPICS  # noqa: E402


def sample_rows() -> dict:
    rng = np.random.default_rng(1)
    return {"ground_color": np.array([[200, 10, 10]]), "light": np.array([120.0]),
            "locator": np.array([[0.3, -0.2]]), "quaternion": np.array([[1.0, 0, 0, 0]]),
            "velocity": np.array([[0.1, 0.0]]), "imu": np.zeros((1, 3)),
            "gyroscope": np.zeros((1, 3)), "accelerometer": np.zeros((1, 3)),
            "proximity": rng.uniform(0.05, 2.0, (1, 8)), "lidar": rng.uniform(0.1, 12, (1, 719)),
            "fixed_color": np.array([[255, 0, 0, 0]]), "pose": np.zeros((1, 6))}


def cpu() -> float:
    return time.process_time()


def codec(repeats: int) -> list[dict]:
    rows = sample_rows()
    out = []
    for st in RVR_TOPICS.sensors:
        msg = st.write(rows, 1.0)
        t = cpu()
        for _ in range(repeats):
            data = messages.encode(msg, st.ros_type)
        enc = (cpu() - t) / repeats
        t = cpu()
        for _ in range(repeats):
            messages.decode(data, st.ros_type)
        dec = (cpu() - t) / repeats
        out.append({"topic": st.topic, "type": st.ros_type, "bytes": len(data),
                    "encode_us": enc * 1e6, "decode_us": dec * 1e6})
    return out


def free_endpoint() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp/127.0.0.1:{s.getsockname()[1]}"


def loopback(n: int, topic: str = "rvr/odom") -> dict:
    st = next(s for s in RVR_TOPICS.sensors if s.topic == topic)
    payload = messages.encode(st.write(sample_rows(), 1.0), st.ros_type)
    ep = free_endpoint()
    done = threading.Event()
    got = [0]

    def on_msg(msg, att):
        got[0] += 1
        if got[0] == n:
            done.set()

    with Node("bench_pub", listen=(ep,)) as a, Node("bench_sub", connect=(ep,)) as b:
        sub = b.subscribe("/bench/" + topic, st.ros_type, on_msg)
        # keep-all: the publisher blocks rather than drops when the link is congested
        pub = a.publisher("/bench/" + topic, st.ros_type, wire.QoS(keep_all=True))
        while not a.graph.entities or not any(e.kind == "MS" for e in a.graph.entities.values()):
            time.sleep(0.01)
        time.sleep(0.2)
        w, c = time.perf_counter(), cpu()
        for _ in range(n):
            pub.put_bytes(payload)
        done.wait(60)
        wall, used = time.perf_counter() - w, cpu() - c
    return {"topic": topic, "messages": n, "received": got[0], "dropped": sub.counters.dropped,
            "wall_s": wall, "cpu_s": used, "messages_per_s": got[0] / wall if wall else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--repeats", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = codec(args.repeats)
    link = loopback(args.messages)
    out = sys.stderr if args.json else sys.stdout
    print(f"{'topic':22} {'type':34} {'bytes':>6} {'encode µs':>10} {'decode µs':>10}", file=out)
    for r in rows:
        print(f"{r['topic']:22} {r['type']:34} {r['bytes']:6d} {r['encode_us']:10.1f} "
              f"{r['decode_us']:10.1f}", file=out)
    print(f"\n{link['received']}/{link['messages']} {link['topic']} samples over loopback in "
          f"{link['wall_s']:.3f} s ({link['messages_per_s']:,.0f} /s, {link['cpu_s']:.3f} s "
          "CPU, receive side included)", file=out)
    if args.json:
        print(json.dumps({"codec": rows, "loopback": link}))


if __name__ == "__main__":
    main()
