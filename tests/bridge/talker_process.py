"""A second process for the transport test: a node on its own zenoh session that waits for a
subscription to /chatter, publishes 50 strings and two malformed samples, then exits when told
on /done (or after 20 s)."""

import sys
import threading
import time

from swarmstack.bridge import wire
from swarmstack.bridge.node import Node


def main(endpoint: str) -> None:
    done = threading.Event()
    with Node("talker", namespace="demo", listen=(endpoint,)) as node:
        from swarmstack.bridge import messages

        pub = node.publisher("/chatter", "std_msgs/msg/String")
        node.subscribe("/done", "std_msgs/msg/Empty", lambda m, a: done.set())
        end = time.monotonic() + 20
        while not any(e.kind == wire.SUBSCRIPTION and e.topic == "/chatter"
                      for e in list(node.graph.entities.values())):
            if time.monotonic() > end:
                sys.exit("no subscriber appeared")
            time.sleep(0.01)
        String = messages.message_class("std_msgs/msg/String")
        for k in range(50):
            pub.put(String(data=f"hello {k}"))
        pub.put_bytes(b"\x00\x01\x00\x00\xff\xff\xff\x7fab")     # string longer than the bytes
        node.session.put(pub.key, messages.encode(String(data="x"), "std_msgs/msg/String"))
        print("sent", flush=True)
        done.wait(max(0.0, end - time.monotonic()))


if __name__ == "__main__":
    main(sys.argv[1])
