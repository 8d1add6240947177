"""A robot group's window onto the range-and-bearing medium, as controllers use it.

The medium (:mod:`swarmstack.media.rab`) keeps one outbox row per body and delivers, after
every tick, an inbox for every body. A :class:`RadioPort` maps a group's rows onto those
arrays so that

* a per-robot controller calls ``robot.send(b"...")`` and reads ``robot.inbox`` (a
  :class:`RobotInbox`: arrays of sender ids, distances, bearings and the payloads);
* a batched controller writes ``group.outbox`` / ``group.out_size`` (or calls
  ``group.send(...)``) and reads ``group.inbox`` (a :class:`GroupInbox`, CSR over its rows).

Frames sent during tick ``t`` are heard during tick ``t + 1``, as on the real board. Every robot
with a radio emits every tick (an empty frame unless it sent something), so receivers always
see their neighbours' range and bearing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class RobotInbox:
    """What one robot heard this tick, ordered by sender. ``sender`` are robot ids (inside the
    run), ``distance_m`` metres, ``azimuth_rad`` the horizontal bearing in the robot's frame
    (CCW from its +x, in [-pi, pi]), ``elevation_rad`` the vertical bearing, ``payloads`` the
    frames (``bytes``, possibly empty)."""

    sender: np.ndarray
    distance_m: np.ndarray
    azimuth_rad: np.ndarray
    elevation_rad: np.ndarray
    payloads: list

    def __len__(self) -> int:
        return int(self.sender.shape[0])


class GroupInbox:
    """What every robot of a group heard this tick, as flat arrays over receptions.

    Receptions of group row ``i`` are ``start[i]:start[i + 1]``; ``receiver`` gives each
    reception's row, ``sender`` the sender's robot id (inside its run), ``sender_row`` the
    sender's index in the world's arrays. ``payload`` (uint8[m, max bytes]) and ``size``
    (int32[m]) hold the frames, made on first access.
    """

    def __init__(self, inbox, bodies, rows: slice):
        lo, hi = rows.start, rows.stop
        base = inbox.start[lo]
        self.start = inbox.start[lo:hi + 1] - base
        seg = slice(int(base), int(inbox.start[hi]))
        self.sender_row = inbox.sender[seg]
        self.sender = bodies.robot_id[self.sender_row]
        self.distance_m = inbox.distance_m[seg]
        self.azimuth_rad = inbox.azimuth_rad[seg]
        self.elevation_rad = inbox.elevation_rad[seg]
        self.receiver = np.repeat(np.arange(hi - lo), np.diff(self.start))
        self._inbox = inbox

    def __len__(self) -> int:
        return int(self.sender.shape[0])

    @cached_property
    def size(self) -> np.ndarray:
        return self._inbox.sent_size[self.sender_row]

    @cached_property
    def payload(self) -> np.ndarray:
        return self._inbox.sent[self.sender_row]


class RadioPort:
    """Group rows ``rows`` of a medium. ``cap`` is each row's payload cap (bytes per tick)."""

    def __init__(self, medium, bodies, rows: slice):
        self.medium = medium
        self.bodies = bodies
        self.rows = rows
        self.cap = medium.params.payload_bytes[rows]
        # writable views: a batched controller fills them directly
        self.outbox = medium.outbox[rows]
        self.out_size = medium.out_size[rows]
        self._group_inbox = None
        # None: this group may read the full inbox; a number: only neighbour_sums with that
        # scale (when every group says so, the medium may skip listing receptions)
        self.sums_per_m = None
        medium.readers.append(self)

    def reset(self) -> None:
        """A new run: nothing declared yet of what the group reads (its controllers say it
        again), as when the port was made."""
        self.sums_per_m = None
        self._group_inbox = None

    def silence(self, row: int) -> None:
        """Row ``row`` sends nothing from now on (a robot whose script failed)."""
        self.medium.enabled[self.rows.start + row] = False
        self.out_size[row] = -1

    # ------------------------------------------------------------------ sending
    def send(self, row: int, data) -> bool:
        """Queue ``data`` (bytes, bytearray or a uint8 array) as row ``row``'s frame this tick.
        A frame over the cap is refused as the real board refuses it (and counted by the
        medium): returns False."""
        buf = np.frombuffer(bytes(data), dtype=np.uint8) if not isinstance(data, np.ndarray) \
            else np.ascontiguousarray(data, dtype=np.uint8).reshape(-1)
        k = buf.shape[0]
        if not self.medium.enabled[self.rows.start + row]:
            return False
        if k > self.cap[row] or k > self.outbox.shape[1]:
            self.out_size[row] = k  # the medium refuses and counts it
            return False
        self.outbox[row, :k] = buf
        self.out_size[row] = k
        return True

    def send_all(self, data) -> None:
        """Every row sends: ``data`` is bytes (the same frame for all) or uint8[n, k]."""
        arr = np.atleast_2d(np.asarray(data, dtype=np.uint8) if isinstance(data, np.ndarray)
                            else np.frombuffer(bytes(data), dtype=np.uint8))
        k = arr.shape[1]
        width = min(k, self.outbox.shape[1])
        self.outbox[:, :width] = arr[:, :width]
        self.out_size[...] = np.where(self.medium.enabled[self.rows], k, -1)

    # ------------------------------------------------------------------ receiving
    def group_inbox(self) -> GroupInbox:
        inbox = self.medium.inbox
        if self._group_inbox is None or self._group_inbox[0] is not inbox:
            self._group_inbox = (inbox, GroupInbox(inbox, self.bodies, self.rows))
        return self._group_inbox[1]

    def neighbour_sums(self, per_m: float) -> tuple[np.ndarray, np.ndarray]:
        """Per row: robots heard (int64) and Σ (1/(1 + per_m·d), ∠bearing) over them
        (float64[n, 2]). Asking declares that this group reads nothing else of the inbox."""
        self.sums_per_m = float(per_m)
        count, pull = self.medium.neighbour_sums(per_m)
        return count[self.rows], pull[self.rows]

    def robot_inbox(self, row: int) -> RobotInbox:
        inbox = self.medium.inbox
        b = self.rows.start + row
        seg = slice(int(inbox.start[b]), int(inbox.start[b + 1]))
        senders = inbox.sender[seg]
        return RobotInbox(self.bodies.robot_id[senders], inbox.distance_m[seg],
                          inbox.azimuth_rad[seg], inbox.elevation_rad[seg],
                          [inbox.payload(k) for k in range(seg.start, seg.stop)])


# --- talking to Buzz robots from Python ---------------------------------------------------------
def buzz_frame(**topics) -> bytes:
    """A frame Buzz robots read as ``neighbors.broadcast(topic, value)`` messages: Python
    robots of a mixed swarm send it with ``robot.send(buzz_frame(beacon=3))`` and Buzz
    listeners (``neighbors.listen("beacon", …)``) receive it."""
    from swarmstack.buzz.swarm.messages import encode_broadcast, pack_frame

    return pack_frame([encode_broadcast(topic, value) for topic, value in topics.items()])


def buzz_broadcasts(frame: bytes) -> dict:
    """The ``neighbors.broadcast`` messages in a frame a Buzz robot sent, ``{topic: value}``
    (other Buzz traffic — stigmergy, swarm lists — is skipped; an undecodable frame gives
    ``{}``)."""
    from swarmstack.buzz.swarm.messages import BROADCAST, WireError, decode_frame

    try:
        messages, _ = decode_frame(frame)
    except (WireError, UnicodeDecodeError):
        return {}
    return {m[1]: m[2] for m in messages if m[0] == BROADCAST}
