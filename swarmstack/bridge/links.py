"""The robots of one group, linked to their ROS 2 drivers: readings in, commands out.

Each robot ``name`` is reached under the namespace ``/name`` (its driver's topics are
``/name/rvr/odom`` …). Samples are read as they arrive on zenoh threads, into the robot's
staging rows (a malformed one is dropped and counted there); :meth:`refresh`, called by the
control loop at the start of a tick, copies them into the group's readings, so controllers
always see one consistent snapshot.

A robot is, in turn:

- ``waiting`` — not every topic its controller reads has been heard yet: no command is ever
  sent to it, its controller does not run (``status()`` lists the topics still missing);
- ``live`` — readings arrive: its controller runs and its commands are sent each tick;
- ``lost`` — no reading for ``link_timeout_s``: its wheels are sent the stop command every
  tick (if the link half-works they stop), its controller is paused;
- ``gone`` — its driver node left the ROS graph (the liveliness token vanished): reported,
  controller paused, wheels sent the stop command.

A ``lost`` or ``gone`` robot whose readings arrive again is ``live`` again.
"""

from __future__ import annotations

import re
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from swarmstack.bridge import wire
from swarmstack.bridge.epuck2 import EPUCK2_TOPICS
from swarmstack.bridge.node import Node
from swarmstack.bridge.rvr import RVR_TOPICS
from swarmstack.bridge.topics import RobotTopics, convert

WAITING, LIVE, LOST, GONE = "waiting", "live", "lost", "gone"
ROBOT_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
# the robot types that have a ROS 2 bridge, and their topics by type name
TOPICS: dict[str, RobotTopics] = {t.robot_type: t for t in (EPUCK2_TOPICS, RVR_TOPICS)}


def topics_for(robot_type: str) -> RobotTopics:
    try:
        return TOPICS[robot_type]
    except KeyError:
        raise ValueError(f"no ROS 2 bridge for robot type {robot_type!r} (bridged: "
                         f"{', '.join(sorted(TOPICS))})") from None


def check_names(names: list[str]) -> list[str]:
    """Robot names as ROS namespaces: ValueError naming the first bad or repeated one."""
    seen = set()
    for n in names:
        if not ROBOT_NAME.match(n):
            raise ValueError(f"robot name {n!r}: a ROS name (a letter, then letters, digits, _)")
        if n in seen:
            raise ValueError(f"robot {n!r} is listed twice")
        seen.add(n)
    if not names:
        raise ValueError("no robots given")
    return names


@dataclass
class RobotLink:
    name: str
    row: int
    state: str = WAITING
    last_heard: Optional[float] = None
    in_graph: bool = False
    gone_pending: bool = False
    updated: bool = False                           # readings arrived since last tick
    heard: set = field(default_factory=set)         # topics read at least once
    heard_at_tick: frozenset = frozenset()          # … as of this tick's snapshot
    dropped: int = 0                                # well-formed but unreadable messages
    subscriptions: list = field(default_factory=list)
    publishers: dict = field(default_factory=dict)  # command topic -> Publisher
    last_sent: dict = field(default_factory=dict)   # command topic -> values (on change only)


class RobotLinks:
    """``group`` is the run-time group (``experiments.build.Group``) of a one-run Simulation
    whose rows are the robots ``names`` in order. ``on_event(name, state, text)`` hears every
    change of state."""

    def __init__(self, node: Node, topics: RobotTopics, group, names: list[str],
                 link_timeout_s: float = 0.5,
                 on_event: Optional[Callable[[str, str, str], None]] = None,
                 clock: Callable[[], float] = time.monotonic, extra_readings=()):
        self.node = node
        self.topics = topics
        self.group = group
        self.link_timeout_s = float(link_timeout_s)
        self.clock = clock
        self.on_event = on_event or (lambda name, state, text: None)
        self._lock = threading.Lock()
        rt = group.robot_type
        units = {c.name: c.unit for c in rt.commands}
        for ct in topics.commands:    # no command leaves in a unit nobody checked
            convert(np.zeros(1), units[ct.command], ct.unit)
        self.devices = self._devices(rt, group)
        wanted = set(group.readings) | set(extra_readings)
        if wanted & set(topics.derived):
            wanted |= set(topics.derived_from)
        self.sensor_topics = [s for s in topics.sensors if wanted & set(s.readings)]
        carried = {r for s in self.sensor_topics for r in s.readings}
        # a reading no topic brings would keep a simulated value: refuse rather than fake it
        unbridged = sorted(set(group.readings) - carried - set(topics.derived))
        if unbridged:
            them = "it" if len(unbridged) == 1 else "them"
            raise ValueError(f"the {rt.name}'s ROS 2 bridge has no topic for "
                             f"{', '.join(unbridged)}: remove {them} from the group's sensors "
                             "to run on real robots")
        self.links = [RobotLink(n, i) for i, n in enumerate(check_names(list(names)))]
        self._by_ns = {f"/{link.name}": link for link in self.links}
        # staging rows (written as samples arrive) and the snapshot of the current tick
        self._rows = {link.name: {r: self.devices[r].allocate(1) for r in carried}
                      for link in self.links}
        self._snap = {name: {r: a.copy() for r, a in rows.items()}
                      for name, rows in self._rows.items()}
        for link in self.links:
            for st in self.sensor_topics:
                link.subscriptions.append(node.subscribe(
                    f"/{link.name}/{st.topic}", st.ros_type, self._store(link, st)))
        node.on_graph = self._on_graph
        for e in list(node.graph.entities.values()):
            self._on_graph(e, True)
        self._units = units

    @staticmethod
    def _devices(rt, group) -> dict:
        """Reading name → device: the group's, and the type's defaults for the others."""
        out = {}
        for name, spec in rt.devices.items():
            dev = group.devices.get(name)
            if dev is None:
                try:
                    dev = spec.make(spec.options(), None)
                except Exception:   # a device that needs files or options to exist
                    continue
            out[dev.name] = dev
        return out

    # ---------------------------------------------------------------- zenoh threads
    def _store(self, link: RobotLink, st):
        """Read each sample as it arrives (so every malformed one is counted) into the robot's
        staging rows; the control thread copies them at the start of a tick."""
        rows = self._rows[link.name]

        mine = [r for r in st.readings if r in rows]

        def on_msg(msg, att) -> None:
            with self._lock:
                # into copies first: a message that fails half-way leaves nothing behind
                tmp = {r: rows[r].copy() for r in mine}
                try:
                    st.read(msg, tmp, self.devices)
                except ValueError:
                    link.dropped += 1
                    return
                for r in mine:
                    rows[r][...] = tmp[r]
                link.heard.add(st.topic)
                link.updated = True
                link.last_heard = self.clock()
        return on_msg

    def _on_graph(self, entity: wire.Entity, alive: bool) -> None:
        link = self._by_ns.get(entity.namespace) if entity.kind == wire.NODE else None
        if link is None:
            return
        with self._lock:
            if alive:
                link.in_graph = True
            elif link.in_graph:
                link.in_graph = False
                link.gone_pending = True

    # ---------------------------------------------------------------- control thread
    def refresh(self) -> np.ndarray:
        """Readings of this tick into the group's arrays; returns which rows are live."""
        now = self.clock()
        g = self.group
        events = []
        for link in self.links:
            with self._lock:
                updated, link.updated = link.updated, False
                heard = link.last_heard
                gone = link.gone_pending
                link.gone_pending = False
                complete = len(link.heard) == len(self.sensor_topics)
                link.heard_at_tick = frozenset(link.heard)
                rows = {k: v.copy() for k, v in self._rows[link.name].items()} \
                    if updated else None
            if rows is not None:
                self._snap[link.name] = rows
                for name, arr in rows.items():
                    if name in g.readings:
                        g.readings[name][link.row] = arr[0]
                if self.topics.derive is not None:
                    for d in self.topics.derived:
                        if d in g.readings:
                            self.topics.derive(self.devices, rows,
                                               g.readings[d][link.row:link.row + 1])
            state = link.state
            fresh = heard is not None and now - heard <= self.link_timeout_s
            if gone and state in (LIVE, LOST):
                state = GONE
            elif fresh and complete and (updated or state == LIVE):
                state = LIVE
            elif state == LIVE and not fresh:
                state = LOST
            if state != link.state:
                events.append((link, state))
                link.state = state
        for link, state in events:
            self.on_event(link.name, state, _TEXT[state])
        return np.array([link.state == LIVE for link in self.links], dtype=bool)

    def send(self, live: np.ndarray) -> None:
        """Each live robot's commands; the stop command to lost and gone ones."""
        g = self.group
        for link in self.links:
            if link.state == WAITING:
                continue
            for ct in self.topics.commands:
                pub = link.publishers.get(ct.topic)
                if pub is None:
                    pub = self.node.publisher(f"/{link.name}/{ct.topic}", ct.ros_type)
                    link.publishers[ct.topic] = pub
                if link.state == LIVE:
                    values = convert(g.commands[ct.command][link.row], self._units[ct.command],
                                     ct.unit)
                elif ct.command in self.topics.stop:
                    values = np.full(g.commands[ct.command][link.row].shape,
                                     self.topics.stop[ct.command])
                else:
                    continue
                if ct.part is not None:
                    values = values[ct.part]
                if not ct.every_tick:
                    last = link.last_sent.get(ct.topic)
                    if last is not None and np.array_equal(last, values):
                        continue
                    link.last_sent[ct.topic] = values.copy()
                pub.put(ct.to_msg(values))

    def stop_all(self) -> None:
        """The stop command to every robot ever heard (end of a run, Ctrl-C); their states
        stay what they were, for the summary."""
        states = [link.state for link in self.links]
        for link in self.links:
            if link.state != WAITING:
                link.state = LOST     # what send() sends the stop command to
        try:
            self.send(np.zeros(len(self.links), dtype=bool))
        finally:
            for link, state in zip(self.links, states):
                link.state = state

    def rows(self, name: str) -> dict:
        """Robot ``name``'s readings of this tick as its topics brought them (reading →
        [1, …])."""
        return self._snap[name]

    def status(self) -> list[dict]:
        return [{"robot": link.name, "state": link.state, "dropped": link.dropped
                 + sum(s.counters.dropped for s in link.subscriptions),
                 "missing": sorted(st.topic for st in self.sensor_topics
                                   if st.topic not in link.heard)}
                for link in self.links]


_TEXT = {LIVE: "readings arrive: controller running",
         LOST: "no reading for the link timeout: wheels stopped, controller paused",
         GONE: "its driver left the ROS graph: wheels stopped, controller paused",
         WAITING: "waiting for its first readings"}
