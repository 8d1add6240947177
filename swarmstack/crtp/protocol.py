"""CRTP, the Crazyflie's packet protocol: headers, ports, channels and value types.

A packet is one header byte — port in bits 7–4, two reserved bits (both set by every sender),
channel in bits 1–0 — and at most :data:`MAX_PAYLOAD` bytes of payload. Over UDP (cflib's
``udp://`` driver, the one it uses for simulated drones) a datagram carries exactly one packet,
nothing else. Facts are from the public protocol description of Bitcraze's firmware and cflib;
what a port's payloads mean is decoded in ``crtp.drone``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

MAX_PAYLOAD = 30

# ports
CONSOLE, PARAM, COMMANDER, MEM, LOG, LOCALIZATION, GENERIC_COMMANDER, HIGH_LEVEL = (
    0x0, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8)
SUPERVISOR, PLATFORM, LINK = 0x9, 0xD, 0xF

# the protocol version this endpoint speaks (what a 2024–2025 firmware answers): cflib then
# uses the 16-bit TOC ids, the current set-point types and go-to with its ``linear`` flag
PROTOCOL_VERSION = 10
LINK_MAGIC = b"Bitcraze Crazyflie"   # the link service's answer that version queries follow


@dataclass(frozen=True)
class Packet:
    port: int
    channel: int
    data: bytes


class Malformed(ValueError):
    """A datagram that is no CRTP packet, or a payload too short or invalid for its command."""


def header(port: int, channel: int) -> int:
    return ((port & 0x0F) << 4) | 0x0C | (channel & 0x03)


def decode(datagram: bytes) -> Packet:
    """One datagram → its packet; :class:`Malformed` when empty or longer than a packet."""
    if not datagram:
        raise Malformed("empty datagram")
    if len(datagram) > MAX_PAYLOAD + 1:
        raise Malformed(f"{len(datagram)} bytes: a CRTP packet has at most {MAX_PAYLOAD + 1}")
    h = datagram[0]
    return Packet((h >> 4) & 0x0F, h & 0x03, bytes(datagram[1:]))


def encode(port: int, channel: int, data: bytes = b"") -> bytes:
    if len(data) > MAX_PAYLOAD:
        raise ValueError(f"a CRTP payload has at most {MAX_PAYLOAD} bytes, not {len(data)}")
    return bytes((header(port, channel),)) + bytes(data)


def unpack(fmt: str, data: bytes, offset: int = 0) -> tuple:
    """``struct.unpack_from`` that raises :class:`Malformed` on a short payload."""
    try:
        return struct.unpack_from(fmt, data, offset)
    except struct.error:
        raise Malformed(f"payload of {len(data)} bytes too short for {fmt!r}") from None


# value types of the log TOC (id → struct code) and of the parameter TOC
LOG_TYPES = {0x01: "<B", 0x02: "<H", 0x03: "<L", 0x04: "<b", 0x05: "<h", 0x06: "<i",
             0x07: "<f", 0x08: "<e"}
PARAM_TYPES = {0x08: "<B", 0x09: "<H", 0x0A: "<L", 0x0B: "<Q", 0x00: "<b", 0x01: "<h",
               0x02: "<i", 0x03: "<q", 0x05: "<e", 0x06: "<f", 0x07: "<d"}
LOG_TYPE_ID = {"uint8": 0x01, "uint16": 0x02, "uint32": 0x03, "int8": 0x04, "int16": 0x05,
               "int32": 0x06, "float": 0x07, "fp16": 0x08}
PARAM_TYPE_ID = {"uint8": 0x08, "uint16": 0x09, "uint32": 0x0A, "int8": 0x00, "int16": 0x01,
                 "int32": 0x02, "float": 0x06}
PARAM_READ_ONLY = 0x40


def pack_value(code: str, value: float) -> bytes:
    """``value`` in the struct type ``code``: integers rounded and saturated, as a firmware
    casting its variable to the type a client asked for."""
    if code in ("<f", "<e", "<d"):
        if code == "<e":
            value = max(-65504.0, min(65504.0, value))
        return struct.pack(code, value)
    size = struct.calcsize(code)
    signed = code[1].islower()
    bits = 8 * size
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    v = 0 if value != value else int(round(max(lo, min(hi, value))))
    return struct.pack(code, v)
