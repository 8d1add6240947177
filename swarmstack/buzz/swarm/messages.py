"""Compact binary wire format for Buzz messages.

Robots exchange *frames*: one frame per robot per step, holding zero or more Buzz messages.
Radio payloads are small (2 to 10 bytes on the e-puck or Crazyflie range-and-bearing boards, a
few dozen bytes on BLE), so every integer on the wire is a LEB128 varint and every value is
tagged with one byte.

Message kinds and their numbers follow the reference out-message queue, whose order is also the
sending priority (lower number goes first):

====  ============  =====================================================================
kind  name          body
====  ============  =====================================================================
0     BROADCAST     topic (varint length + UTF-8), value
1     SWARM_LIST    varint count, then count varint swarm ids
2     VSTIG_PUT     varint stigmergy id, key value, data value, varint timestamp, varint robot
3     VSTIG_QUERY   same body as VSTIG_PUT
4     SWARM_JOIN    varint swarm id
5     SWARM_LEAVE   varint swarm id
====  ============  =====================================================================

Values (tag byte first):

====  ========  =================================================================
tag   type      body
====  ========  =================================================================
0     nil       --
1     integer   zig-zag varint (small magnitudes take one byte)
6     float     IEEE-754 binary16, little endian -- when the value round-trips exactly
                (every BittyBuzz float does, and small halves such as 0.5 or 2.25)
2     float     IEEE-754 binary32, little endian -- else when it round-trips exactly
                (every float of the Buzz profile does)
3     float     IEEE-754 binary64, little endian -- otherwise (no precision is lost)
4     string    varint byte length + UTF-8
5     table     varint count, then count (key, value) pairs
====  ========  =================================================================

Closures cannot travel (their code lives in the sender's VM); they are sent as nil. The
reference serialises only top-level closures as bytecode references; scripts do not rely on it.

A frame is the concatenation of ``varint length + message`` records. The sender's robot id is
not part of the frame: the medium (radio) reports who sent each packet, as a situated
range-and-bearing device does.
"""

from __future__ import annotations

import struct
from typing import Any

from swarmstack.buzz.values import Closure, HostClosure, Table

BROADCAST = 0
SWARM_LIST = 1
VSTIG_PUT = 2
VSTIG_QUERY = 3
SWARM_JOIN = 4
SWARM_LEAVE = 5
KIND_COUNT = 6
KIND_NAMES = ("broadcast", "swarm_list", "vstig_put", "vstig_query", "swarm_join", "swarm_leave")

T_NIL, T_INT, T_F32, T_F64, T_STR, T_TABLE, T_F16 = range(7)

_F16 = struct.Struct("<e")
_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")


class WireError(ValueError):
    """A malformed frame or message (truncated, unknown tag or kind)."""


# ---------------------------------------------------------------- varints

def put_uvarint(buf: bytearray, n: int) -> None:
    """Append the unsigned LEB128 encoding of ``n`` (must be >= 0)."""
    if n < 0:
        raise ValueError("uvarint of a negative number")
    while n >= 0x80:
        buf.append((n & 0x7F) | 0x80)
        n >>= 7
    buf.append(n)


def get_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    """Read an unsigned LEB128 varint at ``pos``; return ``(value, new_pos)``."""
    shift = 0
    result = 0
    n = len(data)
    while True:
        if pos >= n:
            raise WireError("truncated varint")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7
        if shift > 70:
            raise WireError("varint too long")


def uvarint_size(n: int) -> int:
    size = 1
    while n >= 0x80:
        n >>= 7
        size += 1
    return size


def _zigzag(n: int) -> int:
    return (n << 1) if n >= 0 else ((-n << 1) - 1)


def _unzigzag(z: int) -> int:
    return (z >> 1) if not (z & 1) else -((z + 1) >> 1)


# ---------------------------------------------------------------- values

def put_value(buf: bytearray, v: Any) -> None:
    """Append the tagged encoding of Buzz value ``v``."""
    t = type(v)
    if v is None or t is Closure or t is HostClosure:
        buf.append(T_NIL)
    elif t is int or t is bool:
        buf.append(T_INT)
        put_uvarint(buf, _zigzag(int(v)))
    elif t is float:
        try:
            packed = _F16.pack(v)
        except OverflowError:
            packed = None
        if packed is not None and (_F16.unpack(packed)[0] == v or v != v):
            buf.append(T_F16)
            buf += packed
            return
        try:
            packed = _F32.pack(v)
        except OverflowError:
            packed = None
        if packed is not None and _F32.unpack(packed)[0] == v:
            buf.append(T_F32)
            buf += packed
        else:
            buf.append(T_F64)
            buf += _F64.pack(v)
    elif t is str:
        raw = v.encode("utf-8", "surrogatepass")
        buf.append(T_STR)
        put_uvarint(buf, len(raw))
        buf += raw
    elif isinstance(v, dict):
        buf.append(T_TABLE)
        put_uvarint(buf, len(v))
        for k, x in v.items():
            put_value(buf, k)
            put_value(buf, x)
    elif isinstance(v, (Closure, HostClosure)):
        buf.append(T_NIL)
    else:
        raise TypeError(f"cannot send a {type(v).__name__} value")


def get_value(data: bytes, pos: int) -> tuple[Any, int]:
    """Decode one tagged value at ``pos``; return ``(value, new_pos)``."""
    if pos >= len(data):
        raise WireError("truncated value")
    tag = data[pos]
    pos += 1
    if tag == T_INT:
        z, pos = get_uvarint(data, pos)
        return _unzigzag(z), pos
    if tag == T_STR:
        n, pos = get_uvarint(data, pos)
        end = pos + n
        if end > len(data):
            raise WireError("truncated string")
        return data[pos:end].decode("utf-8", "surrogatepass"), end
    if tag == T_NIL:
        return None, pos
    if tag == T_F16:
        if pos + 2 > len(data):
            raise WireError("truncated float")
        return _F16.unpack_from(data, pos)[0], pos + 2
    if tag == T_F32:
        if pos + 4 > len(data):
            raise WireError("truncated float")
        return _F32.unpack_from(data, pos)[0], pos + 4
    if tag == T_F64:
        if pos + 8 > len(data):
            raise WireError("truncated float")
        return _F64.unpack_from(data, pos)[0], pos + 8
    if tag == T_TABLE:
        n, pos = get_uvarint(data, pos)
        t = Table()
        for _ in range(n):
            k, pos = get_value(data, pos)
            x, pos = get_value(data, pos)
            if k is not None and x is not None:
                t[k] = x
        return t, pos
    raise WireError(f"unknown value tag {tag}")


def value_size(v: Any) -> int:
    """Bytes that ``put_value(v)`` would append."""
    buf = bytearray()
    put_value(buf, v)
    return len(buf)


# ---------------------------------------------------------------- messages
# Decoded messages are plain tuples (cheap to build, easy to compare in tests):
#   (BROADCAST, topic, value)
#   (SWARM_LIST, (id, ...))
#   (VSTIG_PUT | VSTIG_QUERY, vstig_id, key, value, timestamp, robot)
#   (SWARM_JOIN | SWARM_LEAVE, swarm_id)

def encode_broadcast(topic: str, value: Any) -> bytes:
    buf = bytearray((BROADCAST,))
    raw = topic.encode("utf-8", "surrogatepass")
    put_uvarint(buf, len(raw))
    buf += raw
    put_value(buf, value)
    return bytes(buf)


def encode_swarm_list(ids) -> bytes:
    ids = list(ids)
    buf = bytearray((SWARM_LIST,))
    put_uvarint(buf, len(ids))
    for i in ids:
        put_uvarint(buf, i)
    return bytes(buf)


def encode_swarm_joinleave(kind: int, swarm_id: int) -> bytes:
    if kind not in (SWARM_JOIN, SWARM_LEAVE):
        raise ValueError("kind must be SWARM_JOIN or SWARM_LEAVE")
    buf = bytearray((kind,))
    put_uvarint(buf, swarm_id)
    return bytes(buf)


def encode_vstig(kind: int, vstig_id: int, key: Any, value: Any, timestamp: int, robot: int) -> bytes:
    if kind not in (VSTIG_PUT, VSTIG_QUERY):
        raise ValueError("kind must be VSTIG_PUT or VSTIG_QUERY")
    buf = bytearray((kind,))
    put_uvarint(buf, vstig_id)
    put_value(buf, key)
    put_value(buf, value)
    put_uvarint(buf, timestamp)
    put_uvarint(buf, robot)
    return bytes(buf)


def encode_message(msg: tuple) -> bytes:
    """Encode a decoded-message tuple (see above) back to bytes."""
    kind = msg[0]
    if kind == BROADCAST:
        return encode_broadcast(msg[1], msg[2])
    if kind == SWARM_LIST:
        return encode_swarm_list(msg[1])
    if kind in (VSTIG_PUT, VSTIG_QUERY):
        return encode_vstig(*msg)
    if kind in (SWARM_JOIN, SWARM_LEAVE):
        return encode_swarm_joinleave(kind, msg[1])
    raise ValueError(f"unknown message kind {kind}")


def decode_message(data: bytes) -> tuple:
    """Decode one message; raise :class:`WireError` if malformed or if bytes are left over."""
    if not data:
        raise WireError("empty message")
    kind = data[0]
    pos = 1
    if kind == BROADCAST:
        n, pos = get_uvarint(data, pos)
        end = pos + n
        if end > len(data):
            raise WireError("truncated topic")
        topic = data[pos:end].decode("utf-8", "surrogatepass")
        value, pos = get_value(data, end)
        msg = (BROADCAST, topic, value)
    elif kind == SWARM_LIST:
        n, pos = get_uvarint(data, pos)
        ids = []
        for _ in range(n):
            i, pos = get_uvarint(data, pos)
            ids.append(i)
        msg = (SWARM_LIST, tuple(ids))
    elif kind == VSTIG_PUT or kind == VSTIG_QUERY:
        vid, pos = get_uvarint(data, pos)
        key, pos = get_value(data, pos)
        value, pos = get_value(data, pos)
        ts, pos = get_uvarint(data, pos)
        robot, pos = get_uvarint(data, pos)
        msg = (kind, vid, key, value, ts, robot)
    elif kind == SWARM_JOIN or kind == SWARM_LEAVE:
        sid, pos = get_uvarint(data, pos)
        msg = (kind, sid)
    else:
        raise WireError(f"unknown message kind {kind}")
    if pos != len(data):
        raise WireError("trailing bytes after message")
    return msg


# ---------------------------------------------------------------- frames

def frame_record_size(msg: bytes) -> int:
    """Bytes a message takes inside a frame (its length prefix included)."""
    return uvarint_size(len(msg)) + len(msg)


def pack_frame(messages) -> bytes:
    """Concatenate encoded messages into one frame (no cap applied here)."""
    buf = bytearray()
    for m in messages:
        put_uvarint(buf, len(m))
        buf += m
    return bytes(buf)


def unpack_frame(frame: bytes) -> list[bytes]:
    """Split a frame into its encoded messages; raise :class:`WireError` if truncated."""
    out = []
    pos = 0
    n = len(frame)
    while pos < n:
        size, pos = get_uvarint(frame, pos)
        end = pos + size
        if end > n or size == 0:
            raise WireError("truncated frame")
        out.append(frame[pos:end])
        pos = end
    return out


def decode_frame(frame: bytes) -> tuple[list[tuple], bool]:
    """Decode every message of a frame.

    Returns ``(messages, mutable)`` where ``mutable`` says whether any message carries a
    table: callers that hand one decoded frame to several receivers must copy it then.
    """
    msgs = [decode_message(m) for m in unpack_frame(frame)]
    mutable = False
    for m in msgs:
        k = m[0]
        if (k == BROADCAST and isinstance(m[2], dict)) or (
            (k == VSTIG_PUT or k == VSTIG_QUERY) and (isinstance(m[2], dict) or isinstance(m[3], dict))
        ):
            mutable = True
            break
    return msgs, mutable


def copy_value(v: Any) -> Any:
    """Deep copy of a decoded value (only tables are mutable)."""
    if isinstance(v, dict):
        t = Table()
        for k, x in v.items():
            t[k] = copy_value(x)
        return t
    return v


def copy_message(m: tuple) -> tuple:
    k = m[0]
    if k == BROADCAST:
        return (k, m[1], copy_value(m[2]))
    if k == VSTIG_PUT or k == VSTIG_QUERY:
        return (k, m[1], copy_value(m[2]), copy_value(m[3]), m[4], m[5])
    return m
