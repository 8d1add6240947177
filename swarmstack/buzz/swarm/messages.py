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

T_NIL, T_INT, T_F32, T_F64, T_STR, T_TABLE, T_F16 = range(7)

_F16, _F32, _F64 = struct.Struct("<e"), struct.Struct("<f"), struct.Struct("<d")
_FLOATS = {T_F16: _F16, T_F32: _F32, T_F64: _F64}


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


# ---------------------------------------------------------------- values

def _put_str(buf: bytearray, s: str) -> None:
    raw = s.encode("utf-8", "surrogatepass")
    put_uvarint(buf, len(raw))
    buf += raw


def _get_str(data: bytes, pos: int, what: str) -> tuple[str, int]:
    n, pos = get_uvarint(data, pos)
    end = pos + n
    if end > len(data):
        raise WireError(f"truncated {what}")
    return data[pos:end].decode("utf-8", "surrogatepass"), end


def put_value(buf: bytearray, v: Any) -> None:
    """Append the tagged encoding of Buzz value ``v``."""
    t = type(v)
    if v is None or t is Closure or t is HostClosure:
        buf.append(T_NIL)
    elif t is int or t is bool:
        buf.append(T_INT)
        n = int(v)
        put_uvarint(buf, n << 1 if n >= 0 else (-n << 1) - 1)  # zig-zag
    elif t is float:
        for tag, fmt in ((T_F16, _F16), (T_F32, _F32)):  # the narrowest that keeps the value
            try:
                packed = fmt.pack(v)
            except OverflowError:
                continue
            if fmt.unpack(packed)[0] == v or (tag == T_F16 and v != v):
                buf.append(tag)
                buf += packed
                return
        buf.append(T_F64)
        buf += _F64.pack(v)
    elif t is str:
        buf.append(T_STR)
        _put_str(buf, v)
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
        return (z >> 1 if not z & 1 else -((z + 1) >> 1)), pos
    if tag == T_STR:
        return _get_str(data, pos, "string")
    if tag == T_NIL:
        return None, pos
    fmt = _FLOATS.get(tag)
    if fmt is not None:
        if pos + fmt.size > len(data):
            raise WireError("truncated float")
        return fmt.unpack_from(data, pos)[0], pos + fmt.size
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
# so the Buzz values a message carries are ``m[2:4]`` (none for the swarm messages).

def _put_ids(buf: bytearray, ids) -> None:
    ids = list(ids)
    put_uvarint(buf, len(ids))
    for i in ids:
        put_uvarint(buf, i)


def _get_ids(data: bytes, pos: int) -> tuple[tuple, int]:
    n, pos = get_uvarint(data, pos)
    ids = []
    for _ in range(n):
        i, pos = get_uvarint(data, pos)
        ids.append(i)
    return tuple(ids), pos


_UVARINT, _VALUE = (put_uvarint, get_uvarint), (put_value, get_value)
# per kind, the (writer, reader) of each field of the tuple after the kind (see the table above)
_FIELDS = {BROADCAST: ((_put_str, lambda data, pos: _get_str(data, pos, "topic")), _VALUE),
           SWARM_LIST: ((_put_ids, _get_ids),),
           VSTIG_PUT: (_UVARINT, _VALUE, _VALUE, _UVARINT, _UVARINT),
           VSTIG_QUERY: (_UVARINT, _VALUE, _VALUE, _UVARINT, _UVARINT),
           SWARM_JOIN: (_UVARINT,), SWARM_LEAVE: (_UVARINT,)}


def encode_message(msg: tuple) -> bytes:
    """Encode a decoded-message tuple (see above) back to bytes."""
    fields = _FIELDS.get(msg[0])
    if fields is None:
        raise ValueError(f"unknown message kind {msg[0]}")
    buf = bytearray((msg[0],))
    for (put, _get), x in zip(fields, msg[1:]):
        put(buf, x)
    return bytes(buf)


def decode_message(data: bytes) -> tuple:
    """Decode one message; raise :class:`WireError` if malformed or if bytes are left over."""
    if not data:
        raise WireError("empty message")
    fields = _FIELDS.get(data[0])
    if fields is None:
        raise WireError(f"unknown message kind {data[0]}")
    msg, pos = [data[0]], 1
    for _put, get in fields:
        x, pos = get(data, pos)
        msg.append(x)
    if pos != len(data):
        raise WireError("trailing bytes after message")
    return tuple(msg)


def encode_broadcast(topic: str, value: Any) -> bytes:
    return encode_message((BROADCAST, topic, value))


def encode_swarm_list(ids) -> bytes:
    return encode_message((SWARM_LIST, ids))


def encode_swarm_joinleave(kind: int, swarm_id: int) -> bytes:
    if kind not in (SWARM_JOIN, SWARM_LEAVE):
        raise ValueError("kind must be SWARM_JOIN or SWARM_LEAVE")
    return encode_message((kind, swarm_id))


def encode_vstig(kind: int, vstig_id: int, key: Any, value: Any, timestamp: int, robot: int) -> bytes:
    if kind not in (VSTIG_PUT, VSTIG_QUERY):
        raise ValueError("kind must be VSTIG_PUT or VSTIG_QUERY")
    return encode_message((kind, vstig_id, key, value, timestamp, robot))


# ---------------------------------------------------------------- frames

def frame_record_size(msg: bytes) -> int:
    """Bytes a message takes inside a frame (its length prefix included)."""
    return len(msg) + max(1, -(-len(msg).bit_length() // 7))


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
    return msgs, any(isinstance(x, dict) for m in msgs for x in m[2:4])


def copy_value(v: Any) -> Any:
    """Deep copy of a decoded value (only tables are mutable)."""
    if isinstance(v, dict):
        return Table((k, copy_value(x)) for k, x in v.items())
    return v


def copy_message(m: tuple) -> tuple:
    """``m`` with its values (``m[2:4]``) copied."""
    return m[:2] + tuple(copy_value(x) for x in m[2:4]) + m[4:]
