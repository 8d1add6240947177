"""`swarmstack run EXP --serve cflib` from the command line: ports printed, a client flies a
drone with raw CRTP datagrams, Ctrl-C ends the run with the packet counts."""

from __future__ import annotations

import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

from swarmstack.crtp import protocol as p
from swarmstack.experiments.results_writer import read_table

EXPERIMENT = """
[simulation]
ticks_per_second = 10
duration = "1 h"
seed = 2

[arena]
size = [3.0, 3.0]

[[robots]]
name = "cf"
type = "crazyflie"
placement = { kind = "explicit", poses = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.0]] }
"""


def test_serve_cflib_from_the_command_line(tmp_path: Path):
    exp = tmp_path / "exp.toml"
    exp.write_text(EXPERIMENT)
    out = tmp_path / "out"
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    proc = subprocess.Popen(
        [sys.executable, "-c", "from swarmstack.cli import main; main()", "run", str(exp),
         "--out", str(out), "--serve", "cflib", "--serve-port", "0", "--serve-speed", "20",
         "--quiet"], stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        ports = []
        for line in proc.stderr:
            m = re.match(r"cflib: cf/(\d): udp://127\.0\.0\.1:(\d+)$", line.strip())
            if m:
                ports.append(int(m.group(2)))
            if "starts when a client connects" in line:
                break
        assert len(ports) == 2
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.settimeout(30)
        addr = ("127.0.0.1", ports[1])
        sock.sendto(b"\x00" * 64, addr)                               # dropped, counted
        sock.sendto(p.encode(p.PLATFORM, 1, b"\x00"), addr)            # protocol version?
        assert sock.recv(64) == p.encode(p.PLATFORM, 1, bytes((0, p.PROTOCOL_VERSION)))
        sock.sendto(p.encode(p.HIGH_LEVEL, 0, struct.pack("<BBff?f", 7, 0, 0.7, 0.0, True,
                                                           1.0)), addr)
        sock.sendto(p.encode(p.LOG, 1, struct.pack("<BBBH", 6, 3, 0x07, 2)), addr)
        assert sock.recv(64) == p.encode(p.LOG, 1, bytes((6, 3, 0)))   # block of z created
        sock.sendto(p.encode(p.LOG, 1, bytes((3, 3, 10))), addr)       # started, 100 ms
        assert sock.recv(64) == p.encode(p.LOG, 1, bytes((3, 3, 0)))
        z = 0.0
        end = time.monotonic() + 30
        while z < 0.69 and time.monotonic() < end:
            pk = p.decode(sock.recv(64))
            if pk.port == p.LOG and pk.channel == 2:
                (z,) = struct.unpack_from("<f", pk.data, 4)
        assert z >= 0.69
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert re.search(r"cflib: \d+ datagrams received, 1 malformed and 0 unsupported dropped",
                     err), err
    traj = read_table(out / "trajectories")
    assert traj["z"][traj["robot"] == 1].max() >= 0.69
    assert traj["z"][traj["robot"] == 0].max() == 0.0
