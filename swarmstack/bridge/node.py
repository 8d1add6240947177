"""A ROS 2 node as rmw_zenoh makes one: a zenoh peer session, a liveliness token per node,
publisher and subscription, typed CDR samples with their attachment; transient-local
publishers and subscriptions are zenoh-ext advanced ones with a cache and history queries, as
rmw_zenoh declares them.

Every node here opens its own zenoh session in peer mode. ``listen``/``connect`` are zenoh
endpoints (``tcp/127.0.0.1:7447``); with ``multicast=False`` (the default) peers find each
other only through these, which is what tests and a lab network with known addresses want.
A ROS 2 system whose nodes use rmw_zenoh's default configuration connects to the router at
``tcp/localhost:7447``: ``connect=("tcp/localhost:7447",)`` joins it.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Optional

from swarmstack.bridge import messages, wire


# rmw_zenoh's default session: a peer that connects to the router on this host and listens on
# a port of the OS's choosing, without multicast scouting
ROUTER_ENDPOINT = "tcp/localhost:7447"
CONFIG_ENV = "ZENOH_SESSION_CONFIG_URI"
_ids = itertools.count(0)     # node and entity ids, unique in the process


class SessionError(ValueError):
    """A zenoh session cannot be opened as asked (a bad endpoint, an unreadable config)."""


_ENDPOINT = re.compile(r"[a-z0-9]+/[^/\s].*\Z")
_RUST_LOCATION = re.compile(r" at /\S+\.rs:\d+\.?")


def check_endpoints(what: str, endpoints: Iterable[str]) -> list[str]:
    out = []
    for ep in endpoints:
        if not isinstance(ep, str) or not _ENDPOINT.match(ep):
            raise SessionError(f"{what} {ep!r}: a zenoh endpoint is <protocol>/<address>, "
                               "e.g. tcp/192.168.1.20:7447")
        out.append(ep)
    return out


def open_session(listen: Iterable[str] = (), connect: Iterable[str] = (),
                 multicast: bool = False):
    """A zenoh session (see :func:`peer_config`); SessionError saying why it cannot open."""
    import zenoh

    listen = check_endpoints("listen endpoint", listen)
    connect = check_endpoints("connect endpoint", connect)
    try:
        return zenoh.open(peer_config(listen, connect, multicast))
    except Exception as exc:   # zenoh.ZError, with the Rust source location appended
        text = _RUST_LOCATION.sub("", str(exc)).strip()
        raise SessionError(f"cannot open a zenoh session: {text}") from None


def peer_config(listen: Iterable[str] = (), connect: Iterable[str] = (),
                multicast: bool = False):
    """A zenoh configuration for a peer with explicit endpoints. With neither ``listen`` nor
    ``connect``, rmw_zenoh's own choice: the file named by ``ZENOH_SESSION_CONFIG_URI`` if set,
    else connect to the router at ``tcp/localhost:7447``."""
    import zenoh

    listen, connect = list(listen), list(connect)
    if not listen and not connect:
        path = os.environ.get(CONFIG_ENV)
        if path:
            return zenoh.Config.from_file(path)
        connect, listen = [ROUTER_ENDPOINT], ["tcp/localhost:0"]
    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    conf.insert_json5("listen/endpoints", json.dumps(list(listen)))
    conf.insert_json5("connect/endpoints", json.dumps(list(connect)))
    conf.insert_json5("scouting/multicast/enabled", "true" if multicast else "false")
    return conf


def resolve(topic: str, namespace: str) -> str:
    """A topic name as ROS resolves it inside ``namespace``: absolute names stay."""
    if topic.startswith("/"):
        return topic
    ns = namespace.rstrip("/")
    return f"{ns}/{topic}" if ns else f"/{topic}"


@dataclass
class Counters:
    received: int = 0
    dropped: int = 0          # malformed payload or attachment: not delivered
    last_error: str = ""


# rmw_zenoh's period of the sporadic heartbeat a reliable transient-local publisher sends, so
# that subscribers notice a missed last sample and fetch it from the publisher's cache
MISS_HEARTBEAT_S = 0.5


def _latched_publisher(session, key: str, qos: wire.QoS, cc, rel):
    """A transient-local publisher as rmw_zenoh declares one: a zenoh-ext AdvancedPublisher
    that keeps its last ``depth`` samples for late-joining subscribers to query, announces
    itself for them to detect, and (reliable) sends sporadic heartbeats."""
    import zenoh.ext as ze

    miss = ze.MissDetectionConfig(sporadic_heartbeat=MISS_HEARTBEAT_S) if qos.reliable else None
    return ze.declare_advanced_publisher(session, key, congestion_control=cc, reliability=rel,
                                         cache=ze.CacheConfig(max_samples=int(qos.depth)),
                                         publisher_detection=True,
                                         sample_miss_detection=miss)


def _late_joining_subscriber(session, key: str, qos: wire.QoS, callback):
    """A transient-local subscription as rmw_zenoh declares one: a zenoh-ext
    AdvancedSubscriber that asks every publisher it detects, also those that appear later, for
    its last ``depth`` cached samples and (reliable) recovers samples it missed."""
    import zenoh.ext as ze

    history = ze.HistoryConfig(detect_late_publishers=True, max_samples=int(qos.depth))
    recovery = ze.RecoveryConfig(heartbeat=True) if qos.reliable else None
    return ze.declare_advanced_subscriber(session, key, callback, history=history,
                                          recovery=recovery, subscriber_detection=True)


class _Endpoint:
    """A publisher or subscription of ``node``: its graph entity, its key expression, its
    liveliness token (:meth:`_announce`) and what it declared (``_decl``)."""

    def __init__(self, node: "Node", kind: str, topic: str, ros_type: str, qos: wire.QoS):
        self.topic = topic
        self.ros_type = ros_type
        self.entity = e = node._entity(kind, topic, ros_type, qos)
        self.key = wire.topic_key(node.domain, topic, e.dds_type, e.type_hash)

    def _announce(self, node: "Node") -> None:
        self._token = node.session.liveliness().declare_token(self.entity.key())

    def close(self) -> None:
        self._token.undeclare()
        self._decl.undeclare()


class Publisher(_Endpoint):
    """Publishes one topic; ``put(msg)`` serialises, stamps and sends."""

    def __init__(self, node: "Node", topic: str, ros_type: str, qos: wire.QoS):
        super().__init__(node, wire.PUBLISHER, topic, ros_type, qos)
        key = self.key
        self.gid = wire.gid_of(self.entity.key())
        import zenoh

        # as rmw_zenoh: a reliable keep-all publisher blocks when the link is congested,
        # others drop
        cc = zenoh.CongestionControl.BLOCK if qos.keep_all and qos.reliable else \
            zenoh.CongestionControl.DROP
        rel = zenoh.Reliability.RELIABLE if qos.reliable else zenoh.Reliability.BEST_EFFORT
        if qos.transient_local:
            self._decl = _latched_publisher(node.session, key, qos, cc, rel)
        else:
            self._decl = node.session.declare_publisher(key, congestion_control=cc,
                                                        reliability=rel)
        self._announce(node)
        self._seq = 0
        self.sent = 0

    def put(self, msg: Any) -> None:
        self.put_bytes(messages.encode(msg, self.ros_type))

    def put_bytes(self, payload: bytes) -> None:
        self._seq += 1
        att = wire.Attachment(self._seq, time.time_ns(), self.gid).encode()
        self._decl.put(payload, attachment=att)
        self.sent += 1


class Subscription(_Endpoint):
    """Calls ``callback(msg, attachment)`` for each well-formed sample of the topic (on a
    zenoh thread); malformed samples are dropped and counted in ``counters``."""

    def __init__(self, node: "Node", topic: str, ros_type: str,
                 callback: Callable[[Any, wire.Attachment], None], qos: wire.QoS):
        super().__init__(node, wire.SUBSCRIPTION, topic, ros_type, qos)
        self.counters = Counters()
        self._callback = callback
        if qos.transient_local:
            self._decl = _late_joining_subscriber(node.session, self.key, qos, self._on_sample)
        else:
            self._decl = node.session.declare_subscriber(self.key, self._on_sample)
        self._announce(node)

    def _on_sample(self, sample) -> None:
        c = self.counters
        try:
            raw = sample.attachment
            if raw is None:
                raise ValueError("sample without the rmw_zenoh attachment")
            att = wire.Attachment.decode(raw.to_bytes())
            msg = messages.decode(sample.payload.to_bytes(), self.ros_type)
        except ValueError as exc:
            c.dropped += 1
            c.last_error = str(exc)
            return
        c.received += 1
        self._callback(msg, att)


@dataclass
class Graph:
    """The ROS graph as liveliness tokens announce it: entities alive now."""

    entities: dict = field(default_factory=dict)    # key -> wire.Entity
    lock: threading.Lock = field(default_factory=threading.Lock)

    def nodes(self) -> set[str]:
        with self.lock:
            return {e.node_path for e in self.entities.values() if e.kind == wire.NODE}

    def publishers(self, topic: str) -> list:
        with self.lock:
            return [e for e in self.entities.values()
                    if e.kind == wire.PUBLISHER and e.topic == topic]


class Node:
    """One ROS 2 node: ``Node("bridge", connect=("tcp/127.0.0.1:7447",))``.

    ``on_graph(entity, alive)`` (optional) hears every node, publisher and subscription of the
    domain appear and disappear (tokens of crashed or unreachable peers disappear too).
    """

    def __init__(self, name: str, namespace: str = "", domain: int = 0,
                 listen: Iterable[str] = (), connect: Iterable[str] = (),
                 multicast: bool = False,
                 on_graph: Optional[Callable[[wire.Entity, bool], None]] = None,
                 session=None):
        import zenoh

        if not name or "/" in name:
            raise ValueError(f"a node name is one word, not {name!r}")
        self.name = name
        self.namespace = "/" + namespace.strip("/") if namespace.strip("/") else ""
        self.domain = int(domain)
        # several nodes may share one session (as nodes of one ROS context do)
        self._own_session = session is None
        self.session = open_session(listen, connect, multicast) if session is None else session
        self.zid = str(self.session.zid())
        self.node_id = next(_ids)
        self.graph = Graph()
        self.graph_dropped = 0
        self.on_graph = on_graph
        self._entities: list = []
        self._graph_sub = self.session.liveliness().declare_subscriber(
            f"{wire.ADMIN_SPACE}/{self.domain}/**", self._on_token, history=True)
        node = wire.Entity(self.domain, self.zid, self.node_id, self.node_id, wire.NODE,
                           self.namespace, self.name)
        self.entity = node
        self._token = self.session.liveliness().declare_token(node.key())

    def _entity(self, kind: str, topic: str, ros_type: str, qos: wire.QoS) -> wire.Entity:
        return wire.Entity(self.domain, self.zid, self.node_id, next(_ids), kind, self.namespace,
                           self.name, topic=topic, dds_type=messages.dds_name(ros_type),
                           type_hash=messages.type_hash(ros_type), qos=qos)

    def _on_token(self, sample) -> None:
        import zenoh

        key = str(sample.key_expr)
        try:
            entity = wire.parse_liveliness(key)
        except ValueError:
            self.graph_dropped += 1
            return
        alive = sample.kind == zenoh.SampleKind.PUT
        with self.graph.lock:
            if alive:
                self.graph.entities[key] = entity
            else:
                self.graph.entities.pop(key, None)
        if self.on_graph is not None:
            self.on_graph(entity, alive)

    def publisher(self, topic: str, ros_type: str, qos: wire.QoS = wire.QoS()) -> Publisher:
        pub = Publisher(self, resolve(topic, self.namespace), ros_type, qos)
        self._entities.append(pub)
        return pub

    def subscribe(self, topic: str, ros_type: str,
                  callback: Callable[[Any, wire.Attachment], None],
                  qos: wire.QoS = wire.QoS()) -> Subscription:
        sub = Subscription(self, resolve(topic, self.namespace), ros_type, callback, qos)
        self._entities.append(sub)
        return sub

    def close(self) -> None:
        for e in self._entities:
            e.close()
        self._entities.clear()
        self._token.undeclare()
        self._graph_sub.undeclare()
        if self._own_session:
            self.session.close()

    def __enter__(self) -> "Node":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
