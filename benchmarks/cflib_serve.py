"""Cost of serving simulated Crazyflies to cflib: CPU time per tick, served against alone.

N drones hover at 0.5 m (a high-level take-off sent once to each), every one streaming a log
block of six floats (position, yaw, battery) every 10 ms to a UDP client in this process,
which reads nothing back (loopback drops what overflows). The run goes as fast as it can
(``--serve-speed 0``), so the time measured is the server's work per tick — polling the
sockets, the log packets, the set-points — on top of the simulation's, which the same run
without the server gives. CPU time of the process (``resource.getrusage``, user + system),
not wall time. Prints a table, and with ``--json`` one JSON object as the last line.

    python benchmarks/cflib_serve.py --robots 1,16,64 --ticks 2000 --json
"""

from __future__ import annotations

import argparse
import json
import resource
import socket
import struct
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swarmstack.crtp import protocol as p  # noqa: E402
from swarmstack.crtp.serve import CflibServer  # noqa: E402
from swarmstack.experiments.config import parse_experiment  # noqa: E402
from swarmstack.experiments.runner import run_experiment  # noqa: E402


def experiment(n: int, ticks: int):
    side = max(1, int(n ** 0.5 + 0.999))
    poses = [[0.3 * (k % side) - 1.0, 0.3 * (k // side) - 1.0, 0.0] for k in range(n)]
    return parse_experiment({
        "simulation": {"ticks_per_second": 100, "duration": f"{ticks / 100} s", "seed": 1},
        "arena": {"size": [6.0, 6.0]},
        "robots": [{"name": "cf", "type": "crazyflie", "sensors": {"battery": True},
                    "placement": {"kind": "explicit", "poses": poses}}],
        "output": {"trajectories": False},
    }, "cflib_serve")


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def clients(server: CflibServer) -> list[socket.socket]:
    """One client per drone: a take-off and a log block started (answers read here)."""
    socks = []
    for d in server.drones:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.connect(("127.0.0.1", d.port))
        s.send(p.encode(p.HIGH_LEVEL, 0, struct.pack("<BBff?f", 7, 0, 0.5, 0.0, True, 1.0)))
        ops = b"".join(struct.pack("<BH", 0x07, k) for k in (0, 1, 2, 8))
        ops += struct.pack("<BH", 0x07, d.drone.log_names.index("pm.vbat"))
        ops += struct.pack("<BH", 0x01, d.drone.log_names.index("pm.batteryLevel"))
        s.send(p.encode(p.LOG, 1, bytes((6, 1)) + ops))
        s.send(p.encode(p.LOG, 1, bytes((3, 1, 1))))
        socks.append(s)
    return socks


def measure(n: int, ticks: int, served: bool) -> float:
    """CPU seconds per tick of a run of ``ticks`` ticks (set-up excluded)."""
    cfg = experiment(n, ticks)
    with tempfile.TemporaryDirectory() as tmp:
        marks = {}
        if served:
            server = CflibServer(cfg, base_port=0, speed=0.0)
            socks = []

            def hook(sim):
                if "t0" not in marks:
                    socks.extend(clients(server))
                    marks["t0"] = None
                out = server.before_tick(sim)
                if marks["t0"] is None:
                    marks["t0"] = cpu_s()
                return out
        else:
            def hook(sim):
                marks.setdefault("t0", cpu_s())
                return False
        run_experiment(cfg, Path(tmp) / "run", on_tick=hook)
        spent = cpu_s() - marks["t0"]
        if served:
            server.close()
            for s in socks:
                s.close()
    return spent / ticks


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--robots", default="1,16,64", help="drone counts, comma-separated")
    ap.add_argument("--ticks", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = []
    for n in (int(v) for v in args.robots.split(",")):
        alone = measure(n, args.ticks, False)
        served = measure(n, args.ticks, True)
        rows.append({"robots": n, "alone_us_per_tick": alone * 1e6,
                     "served_us_per_tick": served * 1e6,
                     "server_us_per_drone_tick": (served - alone) * 1e6 / n})
    print(f"{'drones':>6} {'alone µs/tick':>14} {'served µs/tick':>15} "
          f"{'server µs/drone-tick':>21}")
    for r in rows:
        print(f"{r['robots']:>6} {r['alone_us_per_tick']:>14.1f} {r['served_us_per_tick']:>15.1f} "
              f"{r['server_us_per_drone_tick']:>21.1f}")
    if args.json:
        print(json.dumps({"benchmark": "cflib_serve", "ticks": args.ticks, "rows": rows}))


if __name__ == "__main__":
    main()
