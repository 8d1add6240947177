"""``swarmstack run EXP --serve ros2``: simulated robots behind the same ROS 2 topics as real
ones, so unmodified ROS 2 nodes (rmw_zenoh) read their sensors and drive them.

The robot of group ``g`` whose id in the run is ``k`` (ids run on across groups) is the
namespace ``/g_k`` (``/rvr_0``, ``/rvr_1`` …), with one
driver node each, publishing every tick the sensor topics of its type whose readings the group
has and taking its type's command topics. A command received holds until the next one, as on
the real driver; it replaces what the experiment's controller (if any) wrote for that robot.
The simulation runs in real time: each tick takes at least ``dt``.
"""

from __future__ import annotations

import threading
import time
from typing import Iterable

import numpy as np

from swarmstack.bridge.links import TOPICS, topics_for
from swarmstack.bridge.node import Node
from swarmstack.bridge.topics import convert


class Ros2Server:
    """Serves every bridged group of ``sim`` (a :class:`Simulation` of one run)."""

    def __init__(self, sim, domain: int = 0, listen: Iterable[str] = (),
                 connect: Iterable[str] = (), multicast: bool = False, realtime: bool = True):
        from swarmstack.bridge.node import SessionError, open_session
        from swarmstack.experiments.config import ConfigError

        if sim.runs != 1:
            raise ConfigError(["--serve ros2 serves one run (--runs 1)"])
        if not any(g.robot_type.name in TOPICS for g in sim.groups):
            raise ConfigError([f"{sim.source}: --serve ros2: no group of a robot type with a "
                               "ROS 2 bridge (rvr, epuck2)"])
        self.sim = sim
        self.realtime = realtime
        try:
            self.session = open_session(listen, connect, multicast)
        except SessionError as exc:
            raise ConfigError([f"--serve ros2: {exc}"]) from None
        self._lock = threading.Lock()
        self.robots = []     # (group, row, name, node, publishers, pending commands)
        self.dropped = 0
        b = sim.world.bodies
        for g in sim.groups:
            try:
                topics = topics_for(g.robot_type.name)
            except ValueError:
                continue
            units = {c.name: c.unit for c in g.robot_type.commands}
            for row in range(g.slice.n):
                name = f"{g.name}_{int(b.robot_id[g.slice.start + row])}"
                node = Node(topics.driver_node, namespace=name, domain=domain,
                            session=self.session)
                pubs = [(node.publisher(st.topic, st.ros_type), st) for st in topics.sensors
                        if set(st.readings) <= set(g.readings)]
                pending: dict = {}
                for ct in topics.commands:
                    convert(np.zeros(1), ct.unit, units[ct.command])   # a known unit pair
                    node.subscribe(ct.topic, ct.ros_type,
                                   self._on_command(pending, ct, units[ct.command]))
                self.robots.append((g, row, name, node, pubs, pending))
        self._held = [dict() for _ in self.robots]
        self._next = None
        sim.hooks.after("control", self.control)
        sim.hooks.after("sense", self.sense)

    def _on_command(self, pending: dict, ct, unit: str):
        def on_msg(msg, att) -> None:
            try:
                values = convert(ct.from_msg(msg), ct.unit, unit)
            except ValueError:
                self.dropped += 1
                return
            with self._lock:
                pending[(ct.command, ct.part)] = values
        return on_msg

    @property
    def names(self) -> list[str]:
        return [r[2] for r in self.robots]

    def control(self, sim) -> None:
        """After the experiment's controllers: the commands ROS 2 nodes sent (they win)."""
        for k, (g, row, name, node, pubs, pending) in enumerate(self.robots):
            with self._lock:
                new = dict(pending)
                pending.clear()
            held = self._held[k]
            held.update(new)
            for (command, part), values in held.items():
                where = ... if part is None else part   # the whole row, or one LED of it
                target = g.commands[command][row]
                target[where] = values.reshape(target[where].shape)

    def sense(self, sim) -> None:
        """After sensing: the readings of the new tick published; then wait for the tick's end
        in real time."""
        stamp = self.sim.tick * self.sim.cfg.simulation.dt
        for g, row, name, node, pubs, pending in self.robots:
            rows = {r: g.readings[r][row:row + 1] for r in g.readings}
            for pub, st in pubs:
                pub.put(st.write(rows, stamp))
        if self.realtime:
            now = time.monotonic()
            if self._next is None or now > self._next + 1.0:   # first tick, or far behind
                self._next = now
            self._next += self.sim.cfg.simulation.dt
            delay = self._next - time.monotonic()
            if delay > 0:
                time.sleep(delay)

    def close(self) -> None:
        self.sim.hooks.remove("control", self.control)
        self.sim.hooks.remove("sense", self.sense)
        for r in self.robots:
            r[3].close()
        self.session.close()


def serve_ros2(sim, **kw) -> Ros2Server:
    """Serve ``sim``'s robots over ROS 2 (see the module doc); close the server at the end."""
    return Ros2Server(sim, **kw)
