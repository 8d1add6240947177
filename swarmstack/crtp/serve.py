"""Serve the simulated Crazyflies of a run to cflib over UDP, one port per drone.

Every drone of a ``crazyflie`` group without a controller gets a UDP socket on ``host``
(ports ``base_port``, ``base_port + 1`` … in group order, or free ones picked by the system
when ``base_port`` is 0); cflib reaches it as ``udp://HOST:PORT``. A datagram is one CRTP
packet; answers go back to whoever sent the last packet to that port.

The server is a hook of the run loop (:meth:`CflibServer.before_tick`): before each tick it
waits, answering packets as they come, until the tick is due — the simulation does not move
before the first packet reaches any drone, then runs ``speed`` × real time (``speed = 0``: as
fast as it can) — sends the log packets due, and writes each drone's set-point into its
group's commands. Packets that are not CRTP, or whose payload does not fit their command, are
dropped and counted (``counters``); nothing a client sends stops the server.
"""

from __future__ import annotations

import contextlib
import math
import select
import socket
import time
from dataclasses import dataclass
from typing import Callable, Optional

from swarmstack.crtp import protocol as p
from swarmstack.crtp.drone import Drone, State
from swarmstack.physics import quadrotor as qr

DEFAULT_PORT = 19850
POLL_S = 0.05   # longest wait between two looks at the stop flag


class ServeError(ValueError):
    """The experiment cannot be served (no drone to serve, a port taken, several runs)."""


@dataclass
class Served:
    """One served drone: where it is in the simulation and its endpoint."""

    group: str
    group_index: int
    row: int               # row in its group
    robot_id: int
    drone: Drone
    sock: socket.socket
    peer: Optional[tuple] = None

    @property
    def port(self) -> int:
        return self.sock.getsockname()[1]


def served_groups(cfg) -> list[tuple[int, object]]:
    """(index, group config) of the groups served: Crazyflies without a controller."""
    return [(k, g) for k, g in enumerate(cfg.robots)
            if g.type == "crazyflie" and g.controller is None]


class CflibServer:
    """The UDP endpoints of an experiment's drones (opened here) and the hook that ties them
    to its run (:meth:`before_tick`)."""

    def __init__(self, cfg, host: str = "127.0.0.1", base_port: int = DEFAULT_PORT,
                 speed: float = 1.0, should_stop: Optional[Callable[[], bool]] = None):
        if not (speed >= 0 and math.isfinite(speed)):
            raise ServeError(f"speed must be a finite number ≥ 0, not {speed}")
        groups = served_groups(cfg)
        if not groups:
            raise ServeError("no Crazyflie group without a controller: nothing to serve to "
                             "cflib (a group with a controller is flown by its controller)")
        self.host = host
        self.speed = float(speed)
        self.should_stop = should_stop or (lambda: False)
        self.drones: list[Served] = []
        self._closed = False
        self._sim = None
        self._t0: Optional[float] = None
        self._stepped = 0
        self.malformed = 0       # datagrams that are no CRTP packet (the drones count the rest)
        # robot ids run on across groups, in file order (as in the results)
        first_id = [sum(g.n for g in cfg.robots[:k]) for k in range(len(cfg.robots))]
        try:
            for gi, g in groups:
                camera = bool(g.sensors.get("camera"))
                for j in range(g.n):
                    rid = first_id[gi] + j
                    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                    self.drones.append(Served(g.name, gi, j, rid,
                                              Drone(f"{g.name}/{rid}", camera), sock))
                    port = 0 if base_port == 0 else base_port + len(self.drones) - 1
                    try:
                        sock.bind((host, port))
                    except (OSError, OverflowError) as exc:
                        why = getattr(exc, "strerror", None) or exc
                        raise ServeError(f"cannot serve {g.name}/{rid} on {host}:{port}: "
                                         f"{why}") from None
                    sock.setblocking(False)
        except BaseException:
            self.close()
            raise
        self._by_fd = {d.sock.fileno(): d for d in self.drones}

    # ------------------------------------------------------------------------------ facts
    @property
    def uris(self) -> list[str]:
        return [f"udp://{self.host}:{d.port}" for d in self.drones]

    def lines(self) -> list[str]:
        """One line per drone: ``GROUP/ROBOT_ID: URI``."""
        return [f"{d.group}/{d.robot_id}: {uri}" for d, uri in zip(self.drones, self.uris)]

    def counters(self) -> dict:
        """Totals over every drone: datagrams received, malformed (not a CRTP packet, or a
        payload that does not fit its command: dropped), unsupported (dropped), high-level
        commands refused in the drone's state."""
        out = {"received": self.malformed, "malformed": self.malformed, "unsupported": 0,
               "rejected": 0}
        for d in self.drones:
            for k, v in vars(d.drone.counters).items():
                out[k] += v
        return out

    def report(self) -> str:
        c = self.counters()
        return (f"cflib: {c['received']} datagrams received, {c['malformed']} malformed and "
                f"{c['unsupported']} unsupported dropped, {c['rejected']} high-level commands "
                "refused in the drone's state")

    def hook(self, signals=None, echo: Callable[[str], None] = print) -> Callable:
        """The run loop's ``on_tick``; says where the drones are through ``echo`` first.
        ``signals`` (a StopSignals) ends a wait when a stop was asked for."""
        for line in self.lines():
            echo(f"cflib: {line}")
        echo("cflib: the simulation starts when a client connects")
        if signals is not None:
            self.should_stop = lambda: signals.signum is not None
        return self.before_tick

    # ----------------------------------------------------------------------- the run hook
    def bind(self, sim) -> None:
        if sim.runs != 1:
            raise ServeError("a served experiment has one run")
        self._sim = sim

    def now(self) -> float:
        w = self._sim.world
        return w.tick * w.dt

    def state(self, d: Served) -> State:
        sim = self._sim
        g = sim.groups[d.group_index]
        i = g.slice.start + d.row
        # the estimate is the tracking system's reading (its noise included) when the group
        # has one, else the true pose
        seen = g.readings.get("pose")
        x, y, z, roll, pitch, yaw = (seen[d.row] if seen is not None
                                     else sim.world.bodies.pose[:, i])
        drive = sim.world.drive[d.group_index]
        v = drive["velocity"][d.row]
        m = int(drive["mode"][d.row])
        return State(float(x), float(y), float(z), float(roll), float(pitch), float(yaw),
                     float(v[0]), float(v[1]), float(v[2]), float(drive["battery"][d.row]),
                     m in (qr.POSITION, qr.VELOCITY), self.now())

    def before_tick(self, sim) -> bool:
        """The run loop's hook: wait for the tick's time answering packets, send the logs due,
        write the set-points. Returns True once the server is closed (the run ends there)."""
        if self._sim is None:
            self.bind(sim)
        if self._t0 is None:       # nothing moves before a client is there
            while not (self._closed or self.should_stop()
                       or any(d.peer is not None for d in self.drones)):
                self.poll(POLL_S)
            self._t0 = time.monotonic()
        if self.speed > 0:
            due = self._t0 + self._stepped * sim.world.dt / self.speed
            while not self._closed and not self.should_stop():
                left = due - time.monotonic()
                if left <= 0:
                    break
                self.poll(min(left, POLL_S))
        self.poll(0.0)
        now = self.now()
        for d in self.drones:
            st = self.state(d)
            if d.peer is not None:
                for pkt in d.drone.logs(now, st):
                    self._send(d, pkt)
            d.drone.command(now, st, sim.groups[d.group_index].commands, d.row)
        self._stepped += 1
        return self._closed

    # --------------------------------------------------------------------------- sockets
    def poll(self, timeout: float) -> None:
        """Answer the datagrams waiting (for at most ``timeout`` s when none is)."""
        if self._closed:
            return
        try:
            ready, _, _ = select.select(list(self._by_fd), [], [], max(timeout, 0.0))
        except (OSError, ValueError):
            return
        for fd in ready:
            d = self._by_fd[fd]
            for _ in range(256):            # drain, but let the others have their turn
                try:
                    data, addr = d.sock.recvfrom(2048)
                except (BlockingIOError, InterruptedError):
                    break
                except OSError:             # e.g. an ICMP "port unreachable" from a peer
                    break
                self._receive(d, data, addr)

    def _receive(self, d: Served, data: bytes, addr) -> None:
        try:
            pk = p.decode(data)
        except p.Malformed:
            self.malformed += 1
            return
        d.peer = addr
        st = self.state(d) if self._sim is not None else State()
        now = self.now() if self._sim is not None else 0.0
        try:
            answers = d.drone.handle(pk, now, st)
        except Exception:   # noqa: BLE001 - Malformed, or whatever: the server goes on
            d.drone.counters.malformed += 1
            return
        for a in answers:
            self._send(d, a)

    def _send(self, d: Served, data: bytes) -> None:
        with contextlib.suppress(OSError):   # a client gone away: its next packet sets a peer
            d.sock.sendto(data, d.peer)

    def close(self) -> None:
        self._closed = True
        for d in self.drones:
            with contextlib.suppress(OSError):
                d.sock.close()


def open_server(kind: str, cfg, runs: int = 1, base_port: int = DEFAULT_PORT,
                speed: float = 1.0, host: str = "127.0.0.1") -> CflibServer:
    """The server ``--serve KIND`` asks for, its sockets open (ServeError if it cannot be)."""
    if kind != "cflib":
        raise ServeError(f"unknown server {kind!r}; this one serves: cflib")
    if runs != 1:
        raise ServeError(f"a served experiment has one run, not {runs}")
    return CflibServer(cfg, host, base_port, speed)
