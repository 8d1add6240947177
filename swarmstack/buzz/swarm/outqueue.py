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
from typing import Any

import swarmstack.buzz.swarm.messages as M


def hashable_key(key: Any) -> Any:
    """Stigmergy keys are Buzz values; tables are compared by identity."""
    if isinstance(key, dict):
        return ("__table__", id(key))
    return key


class _VRec:
    __slots__ = ("kind", "timestamp", "data", "alive", "hkey")

    def __init__(self, kind: int, timestamp: int, data: bytes, hkey: tuple):
        self.hkey = hkey
        self.kind = kind
        self.timestamp = timestamp
        self.data = data
        self.alive = True


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
        if self.swarm_list is not None:
            if swarm_id in self.swarm_list:
                if kind == M.SWARM_LEAVE:
                    self.swarm_list.remove(swarm_id)
            elif kind == M.SWARM_JOIN:
                self.swarm_list.append(swarm_id)
            return
        if kind == M.SWARM_JOIN:
            if swarm_id not in self.join:
                self.join.append(swarm_id)
            if swarm_id in self.leave:
                self.leave.remove(swarm_id)
        else:
            if swarm_id in self.join:
                self.join.remove(swarm_id)
            if swarm_id not in self.leave:
                self.leave.append(swarm_id)

    # ------------------------------------------------------------ inspection
    def __len__(self) -> int:
        return (
            len(self.broadcast)
            + (self.swarm_list is not None)
            + sum(r.alive for r in self.vput)
            + sum(r.alive for r in self.vquery)
            + len(self.join)
            + len(self.leave)
        )

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
        used = 0
        # BROADCAST
        bq = self.broadcast
        while bq:
            m = bq[0]
            r = M.frame_record_size(m)
            if cap is not None:
                if r > cap:
                    bq.popleft()
                    self.oversize += 1
                    continue
                if used + r > cap:
                    return bytes(buf)
            M.put_uvarint(buf, len(m))
            buf += m
            used += r
            bq.popleft()
        # SWARM_LIST
        if self.swarm_list is not None:
            m = M.encode_swarm_list(self.swarm_list)
            r = M.frame_record_size(m)
            if cap is not None and r > cap:
                self.swarm_list = None
                self.oversize += 1
            elif cap is not None and used + r > cap:
                return bytes(buf)
            else:
                M.put_uvarint(buf, len(m))
                buf += m
                used += r
                self.swarm_list = None
        # VSTIG_PUT then VSTIG_QUERY
        for q in (self.vput, self.vquery):
            while q:
                rec = q[0]
                if not rec.alive:
                    q.popleft()
                    continue
                m = rec.data
                r = M.frame_record_size(m)
                if cap is not None:
                    if r > cap:
                        self._vdone(q)
                        self.oversize += 1
                        continue
                    if used + r > cap:
                        return bytes(buf)
                M.put_uvarint(buf, len(m))
                buf += m
                used += r
                self._vdone(q)
        # SWARM_JOIN then SWARM_LEAVE
        for kind, lst in ((M.SWARM_JOIN, self.join), (M.SWARM_LEAVE, self.leave)):
            while lst:
                m = M.encode_swarm_joinleave(kind, lst[0])
                r = M.frame_record_size(m)
                if cap is not None:
                    if r > cap:
                        lst.pop(0)
                        self.oversize += 1
                        continue
                    if used + r > cap:
                        return bytes(buf)
                M.put_uvarint(buf, len(m))
                buf += m
                used += r
                lst.pop(0)
        return bytes(buf)

    def _vdone(self, q: deque) -> None:
        rec = q.popleft()
        rec.alive = False
        if self._vindex.get(rec.hkey) is rec:
            del self._vindex[rec.hkey]

    def clear(self) -> None:
        self.broadcast.clear()
        self.vput.clear()
        self.vquery.clear()
        self._vindex.clear()
        self.swarm_list = None
        self.join.clear()
        self.leave.clear()


__all__ = ["OutQueue", "hashable_key"]
