"""The range-and-bearing radio of real robots as a ROS 2 topic (as ROSBuzz carries Buzz
messages between robots): every live robot publishes, each tick, one
``swarmstack_msgs/msg/RadioFrame`` on ``/swarm/radio`` — its name, its pose in the frame the
swarm shares and the bytes its controller sent (empty when it sent nothing) — and the frames
heard on the topic become, at the next tick, the inbox every controller reads: the same
``robot.inbox``, ``group.inbox`` and Buzz ``neighbors`` as in simulation.

Range and bearing are computed from the poses (the robots' ``pose`` topic): a frame reaches
the robots within the sender's radio range; the azimuth is in the receiver's frame, CCW from
its heading. Frames of robots this run does not drive are ignored (and counted).
"""

from __future__ import annotations

import math
import threading

import numpy as np

from swarmstack.bridge.messages import message_class
from swarmstack.bridge.ros_types import header
from swarmstack.media.rab import Inbox

RADIO_TOPIC = "/swarm/radio"
RADIO_TYPE = "swarmstack_msgs/msg/RadioFrame"
POSE_TOPIC = "pose"


class TopicRadio:
    def __init__(self, node, links, medium, topic: str = RADIO_TOPIC):
        self.links = links
        self.medium = medium
        self.row_of = {link.name: link.row for link in links.links}
        self.ignored = 0
        self.sent = 0
        self.heard = 0
        self._lock = threading.Lock()
        self._frames: dict = {}
        self._cls = message_class(RADIO_TYPE)
        self.pub = node.publisher(topic, RADIO_TYPE)
        self.sub = node.subscribe(topic, RADIO_TYPE, self._on_frame)

    def _on_frame(self, msg, att) -> None:
        row = self.row_of.get(msg.robot)
        values = (msg.x, msg.y, msg.z, msg.yaw)
        if row is None or not all(math.isfinite(v) for v in values):
            self.ignored += 1
            return
        with self._lock:
            self._frames[row] = (*values, bytes(msg.payload))

    def _pose(self, link):
        return self.links.rows(link.name)["pose"][0] if POSE_TOPIC in link.heard_at_tick \
            else None

    def deliver(self, live: np.ndarray) -> None:
        """The frames heard since the last tick → the medium's inbox (live receivers with a
        known pose only)."""
        with self._lock:
            frames, self._frames = self._frames, {}
        m = self.medium
        n, width = m.n, m.max_cap
        sent = np.zeros((n, width), dtype=np.uint8)
        sent_size = np.full(n, -1, dtype=np.int32)
        for row, f in frames.items():
            k = min(len(f[4]), width)
            sent[row, :k] = np.frombuffer(f[4][:k], dtype=np.uint8)
            sent_size[row] = k
        start = np.zeros(n + 1, dtype=np.int64)
        snd, dist, az, el = [], [], [], []
        for link in self.links.links:
            j = link.row
            pose = self._pose(link) if live[j] else None
            if pose is not None:
                for s in sorted(frames):
                    if s == j:
                        continue
                    x, y, z = frames[s][:3]
                    dx, dy, dz = x - pose[0], y - pose[1], z - pose[2]
                    flat = math.hypot(dx, dy)
                    d = math.hypot(flat, dz)
                    if d > m.params.range_m[s]:
                        continue
                    snd.append(s)
                    dist.append(d)
                    az.append(math.remainder(math.atan2(dy, dx) - pose[5], 2 * math.pi))
                    el.append(math.atan2(dz, flat))
            start[j + 1] = len(snd)
        start = np.maximum.accumulate(start)
        self.heard += len(snd)
        m.inbox = Inbox(start, np.array(snd, dtype=np.int64), np.array(dist),
                        np.array(az), np.array(el), sent, sent_size)

    def publish(self, live: np.ndarray, stamp_s: float) -> None:
        """This tick's frame of every live robot with a known pose, then a fresh outbox."""
        m = self.medium
        for link in self.links.links:
            pose = self._pose(link)
            if not live[link.row] or pose is None or not m.enabled[link.row]:
                continue
            k = int(m.out_size[link.row])
            payload = m.outbox[link.row, :k].copy() if 0 < k <= m.max_cap else \
                np.zeros(0, dtype=np.uint8)
            self.pub.put(self._cls(header=header(stamp_s, "world"), robot=link.name,
                                   x=float(pose[0]), y=float(pose[1]), z=float(pose[2]),
                                   yaw=float(pose[5]), payload=payload))
            self.sent += 1
        m.out_size[:] = np.where(m.enabled, 0, -1)
