"""Two processes on loopback: a node in a child process publishes typed messages through
rmw_zenoh's wire format; this process subscribes, sees its graph and drops bad samples."""

import os
import subprocess
import sys
import threading
from pathlib import Path

from swarmstack.bridge import messages, wire
from swarmstack.bridge.node import Node

from tests.bridge.conftest import wait_for

ROOT = Path(__file__).resolve().parents[2]


def test_two_processes_exchange_typed_messages(endpoint):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen([sys.executable, str(Path(__file__).with_name("talker_process.py")),
                              endpoint], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    got, lock = [], threading.Lock()

    def on_msg(msg, att):
        with lock:
            got.append((msg.data, att.sequence_number, att.source_gid))

    try:
        with Node("listener", connect=(endpoint,)) as node:
            sub = node.subscribe("/chatter", "std_msgs/msg/String", on_msg)
            wait_for(lambda: sub.counters.received == 50 and sub.counters.dropped == 2,
                     15, "50 messages and 2 dropped samples")
            data = [g[0] for g in got]
            assert data == [f"hello {k}" for k in range(50)]
            # rmw_publisher_data.cpp: a publisher's sequence number starts at 1
            assert [g[1] for g in got] == list(range(1, 51))
            assert len({g[2] for g in got}) == 1 and len(got[0][2]) == 16
            # the graph: the talker's node (namespaced) and its publisher
            wait_for(lambda: "/demo/talker" in node.graph.nodes(), 5, "talker node token")
            pubs = node.graph.publishers("/chatter")
            assert pubs and pubs[0].dds_type == "std_msgs::msg::dds_::String_"
            assert pubs[0].type_hash == messages.type_hash("std_msgs/msg/String")
            assert wire.gid_of(pubs[0].key()) == got[0][2]
            done = node.publisher("/done", "std_msgs/msg/Empty")
            done.put(messages.message_class("std_msgs/msg/Empty")())
            assert child.wait(15) == 0, child.stderr.read()
            # the talker's tokens vanish with it
            wait_for(lambda: "/demo/talker" not in node.graph.nodes(), 10, "talker gone")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


def test_transient_local_samples_reach_a_late_subscriber(endpoint):
    """A transient-local publisher keeps its last `depth` samples (rmw_zenoh: an
    AdvancedPublisher with a cache); a transient-local subscription declared afterwards gets
    them (an AdvancedSubscriber querying late publishers), a volatile one does not."""
    import time

    from tests.bridge.conftest import wait_for

    String = messages.message_class("std_msgs/msg/String")
    latched = wire.QoS(transient_local=True, depth=2)
    with Node("map_server", listen=(endpoint,)) as talker, \
            Node("late", connect=(endpoint,)) as listener:
        pub = talker.publisher("/map", "std_msgs/msg/String", latched)
        for text in ("a", "b", "c"):
            pub.put(String(data=text))
        assert pub.entity.key().endswith("/:1:,2:,:,:,,")   # reliable, transient local, 2
        time.sleep(0.3)                               # all three published before anyone asks
        got, plain = [], []
        listener.subscribe("/map", "std_msgs/msg/String", lambda m, a: plain.append(m.data))
        listener.subscribe("/map", "std_msgs/msg/String",
                           lambda m, a: got.append((m.data, a.sequence_number)),
                           wire.QoS(transient_local=True, depth=10))
        wait_for(lambda: len(got) >= 2, 10, "the cached samples")
        time.sleep(0.3)
        assert got == [("b", 2), ("c", 3)]           # the publisher's cache holds 2
        assert plain == []
        pub.put(String(data="d"))                     # and live samples still flow to both
        wait_for(lambda: got[-1][0] == "d" and plain == ["d"], 10, "a live sample")
