"""A robot's queue of outgoing Buzz messages, and the payload-cap packing rule.

The rules are those of the reference out-message queue:

* one FIFO per message kind; kinds are sent in priority order BROADCAST, SWARM_LIST,
  VSTIG_PUT, VSTIG_QUERY, SWARM_JOIN, SWARM_LEAVE (see :mod:`.messages`);
* stigmergy messages are de-duplicated per ``(stigmergy id, key)``: a queued message for the
  same entry with an equal or newer timestamp makes a new one pointless (it is dropped); an
  older one is withdrawn and the new one is queued at the back of its kind's FIFO;
* at most one SWARM_LIST is queued; queuing one withdraws every queued LIST/JOIN/LEAVE, and
  while one is queued a JOIN/LEAVE edits its id list instead of being queued; otherwise a
  JOIN withdraws a queued LEAVE for the same swarm (and vice versa) and duplicates are not
  queued twice.

Packing (:meth:`OutQueue.pack`): messages are taken in priority order while they fit in the
per-step payload cap; the first message that does not fit ends the frame and it and everything
behind it wait for the next step (order is never changed). A message too large for an empty
frame could never be sent and is discarded (counted in ``oversize``), as the reference does.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

import swarmstack.buzz.swarm.messages as M


def hashable_key(key: Any) -> Any:
    """Stigmergy keys are Buzz values; tables are compared by identity."""
    if isinstance(key, dict):
        return ("__table__", id(key))
    return key


@dataclass(eq=False, slots=True)
class _VRec:
    """A queued stigmergy message (withdrawn: not ``alive``)."""

    kind: int
    timestamp: int
    data: bytes
    hkey: tuple
    alive: bool = True


class OutQueue:
    __slots__ = ("broadcast", "vput", "vquery", "swarm_list", "join", "leave", "_vindex", "oversize")

    def __init__(self) -> None:
        self.broadcast: deque[bytes] = deque()
        self.vput: deque[_VRec] = deque()
        self.vquery: deque[_VRec] = deque()
        self.swarm_list: list[int] | None = None
        self.join: list[int] = []
        self.leave: list[int] = []
        self._vindex: dict[tuple, _VRec] = {}
        self.oversize = 0

    # ------------------------------------------------------------ queueing
    def append_broadcast(self, topic: str, value: Any) -> None:
        self.broadcast.append(M.encode_broadcast(topic, value))

    def append_vstig(self, kind: int, vstig_id: int, key: Any, value: Any, timestamp: int, robot: int) -> None:
        hk = (vstig_id, hashable_key(key))
        old = self._vindex.get(hk)
        if old is not None and old.alive:
            if old.timestamp >= timestamp:
                return
            old.alive = False
        rec = _VRec(kind, timestamp, M.encode_vstig(kind, vstig_id, key, value, timestamp, robot), hk)
        self._vindex[hk] = rec
        (self.vput if kind == M.VSTIG_PUT else self.vquery).append(rec)

    def append_swarm_list(self, ids) -> None:
        self.swarm_list = list(ids)
        self.join.clear()
        self.leave.clear()

    def append_swarm_joinleave(self, kind: int, swarm_id: int) -> None:
        ids = self.swarm_list
        if ids is not None:  # a queued list says it all: edit it
            if kind == M.SWARM_JOIN and swarm_id not in ids:
                ids.append(swarm_id)
            elif kind == M.SWARM_LEAVE and swarm_id in ids:
                ids.remove(swarm_id)
            return
        add, withdraw = (self.join, self.leave) if kind == M.SWARM_JOIN else (self.leave, self.join)
        if swarm_id not in add:
            add.append(swarm_id)
        if swarm_id in withdraw:
            withdraw.remove(swarm_id)

    # ------------------------------------------------------------ inspection
    def __len__(self) -> int:
        return len(self.pending())

    def pending(self) -> list[bytes]:
        """Every queued message, encoded, in sending order (does not consume)."""
        out = list(self.broadcast)
        if self.swarm_list is not None:
            out.append(M.encode_swarm_list(self.swarm_list))
        out += [r.data for r in self.vput if r.alive]
        out += [r.data for r in self.vquery if r.alive]
        out += [M.encode_swarm_joinleave(M.SWARM_JOIN, i) for i in self.join]
        out += [M.encode_swarm_joinleave(M.SWARM_LEAVE, i) for i in self.leave]
        return out

    # ------------------------------------------------------------ packing
    def pack(self, cap: int | None) -> bytes:
        """Remove the messages that fit in ``cap`` bytes (None: no cap) and return the frame."""
        if not (self.broadcast or self.swarm_list is not None or self.vput or self.vquery
                or self.join or self.leave):
            return b""  # the common step: nothing to say (the empty frame still marks presence)
        buf = bytearray()
        for m in self._consume():
            r = M.frame_record_size(m)
            if cap is not None and r > cap:
                self.oversize += 1
            elif cap is not None and len(buf) + r > cap:
                break
            else:
                M.put_uvarint(buf, len(m))
                buf += m
        return bytes(buf)

    def _consume(self):
        """The queued messages in sending order: each leaves the queue when the next one is
        asked for (a message the caller stops at stays queued)."""
        bq = self.broadcast
        while bq:
            yield bq[0]
            bq.popleft()
        if self.swarm_list is not None:
            yield M.encode_swarm_list(self.swarm_list)
            self.swarm_list = None
        for q in (self.vput, self.vquery):
            while q:
                if q[0].alive:
                    yield q[0].data
                rec = q.popleft()
                rec.alive = False
                if self._vindex.get(rec.hkey) is rec:
                    del self._vindex[rec.hkey]
        for kind, ids in ((M.SWARM_JOIN, self.join), (M.SWARM_LEAVE, self.leave)):
            while ids:
                yield M.encode_swarm_joinleave(kind, ids[0])
                ids.pop(0)


__all__ = ["OutQueue", "hashable_key"]
