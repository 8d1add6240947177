"""rmw_zenoh's wire format, as plain functions: data key expressions, liveliness tokens for
graph discovery, QoS strings and the per-sample attachment.

Checked against ros2/rmw_zenoh's source (zenoh 1.x port; files and commits in
docs/real-robots.md, "How the expected bytes were derived"):

- data: ``<domain>/<topic without outer slashes>/<DDS type name>/<RIHS01 hash>``
  (``TopicInfo`` in liveliness_utils.cpp);
- liveliness: ``@ros2_lv/<domain>/<zid>/<node id>/<entity id>/<NN|MP|MS|SS|SC>/<enclave>/
  <namespace>/<node>[/<topic>/<type>/<hash>/<qos>]``, each name with ``/`` replaced by ``%``
  (liveliness_utils.cpp). rcl hands rmw_zenoh ``/`` for the root namespace and the default
  enclave, so both are written ``%``; here the root is ``""`` and :func:`mangle` writes it ``%``
  too;
- QoS: ``reliability:durability:history,depth:deadline s,ns:lifespan s,ns:liveliness,s,ns``,
  a field left empty when it has rmw_zenoh's default value (qos.cpp: reliable, volatile, keep
  last, depth 42, infinite durations, automatic liveliness);
- a node's token repeats its id in the entity-id chunk (rmw_node_data.cpp);
- attachment (33 bytes): zenoh-ext serialisation of ``int64 sequence number`` (from 1 per
  publisher), ``int64 source timestamp (ns)`` and the 16-byte GID, a ``std::array`` that
  zenoh-cpp serialises as a sequence: a LEB128 length byte 0x10, then the bytes
  (attachment_helpers.cpp, zenoh-cpp's serialization.hxx);
- GID: XXH3-128 (default seed and secret) of the entity's liveliness key, the low 64 bits then
  the high 64 bits, each copied in host order (little-endian on every ROS 2 tier-1 platform).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Optional

ADMIN_SPACE = "@ros2_lv"
NODE, PUBLISHER, SUBSCRIPTION, SERVICE, CLIENT = "NN", "MP", "MS", "SS", "SC"
ENTITY_KINDS = (NODE, PUBLISHER, SUBSCRIPTION, SERVICE, CLIENT)
GID_BYTES = 16
# rmw's QoS enums (rmw/types.h)
RELIABLE, BEST_EFFORT = 1, 2
TRANSIENT_LOCAL, VOLATILE = 1, 2
KEEP_LAST, KEEP_ALL = 1, 2
KEY_DEFAULT_DEPTH = 42     # rmw_zenoh's default depth: left out of QoS strings
DEFAULT_DEPTH = 10         # ROS 2's default profile (rclcpp, rclpy): what our entities use


def mangle(name: str) -> str:
    """A name inside one key chunk: ``/`` → ``%``; the empty name is ``%``."""
    return name.replace("/", "%") if name else "%"


def demangle(chunk: str) -> str:
    return chunk.replace("%", "/")


def topic_key(domain: int, topic: str, dds_type: str, type_hash: str) -> str:
    """The key expression samples of ``topic`` are put on."""
    return f"{int(domain)}/{topic.strip('/')}/{dds_type}/{type_hash}"


@dataclass(frozen=True)
class QoS:
    reliable: bool = True
    transient_local: bool = False
    depth: int = DEFAULT_DEPTH
    keep_all: bool = False

    def key(self) -> str:
        rel = "" if self.reliable else str(BEST_EFFORT)
        dur = str(TRANSIENT_LOCAL) if self.transient_local else ""
        hist = str(KEEP_ALL) if self.keep_all else ""
        depth = "" if self.depth == KEY_DEFAULT_DEPTH else str(int(self.depth))
        return f"{rel}:{dur}:{hist},{depth}:,:,:,,"

    @staticmethod
    def parse(text: str) -> "QoS":
        parts = text.split(":")
        hist = parts[2].split(",") if len(parts) == 6 else ()
        if len(hist) != 2:
            raise ValueError(f"not an rmw_zenoh QoS string: {text!r}")
        return QoS(reliable=parts[0] != str(BEST_EFFORT),
                   transient_local=parts[1] == str(TRANSIENT_LOCAL),
                   depth=int(hist[1]) if hist[1] else KEY_DEFAULT_DEPTH,
                   keep_all=hist[0] == str(KEEP_ALL))


@dataclass(frozen=True)
class Entity:
    """One node, publisher or subscription of the ROS graph, as its liveliness token says."""

    domain: int
    zid: str
    node_id: int
    entity_id: int
    kind: str
    namespace: str
    node: str
    enclave: str = ""
    topic: Optional[str] = None
    dds_type: Optional[str] = None
    type_hash: Optional[str] = None
    qos: Optional[QoS] = None

    @property
    def node_path(self) -> str:
        """Fully qualified node name, e.g. ``/rvr_1/rvr_driver``."""
        ns = self.namespace.rstrip("/")
        return f"{ns}/{self.node}"

    def key(self) -> str:
        parts = [ADMIN_SPACE, str(self.domain), self.zid, str(self.node_id),
                 str(self.entity_id), self.kind, mangle(self.enclave), mangle(self.namespace),
                 mangle(self.node)]
        if self.topic is not None:
            parts += [mangle(self.topic), mangle(self.dds_type or ""),
                      mangle(self.type_hash or ""), (self.qos or QoS()).key()]
        return "/".join(parts)


def parse_liveliness(key: str) -> Entity:
    """The entity a liveliness key announces; ValueError if it is not one."""
    parts = key.split("/")
    if len(parts) not in (9, 13) or parts[0] != ADMIN_SPACE or parts[5] not in ENTITY_KINDS:
        raise ValueError(f"not an rmw_zenoh liveliness token: {key!r}")
    try:
        domain, node_id, entity_id = int(parts[1]), int(parts[3]), int(parts[4])
    except ValueError:
        raise ValueError(f"not an rmw_zenoh liveliness token: {key!r}") from None
    ns = demangle(parts[7]).rstrip("/")   # rcl's root namespace "/" is our ""
    common = dict(domain=domain, zid=parts[2], node_id=node_id, entity_id=entity_id,
                  kind=parts[5], enclave=demangle(parts[6]) if parts[6] != "%" else "",
                  namespace=ns, node=demangle(parts[8]))
    if len(parts) == 9:
        return Entity(**common)
    return Entity(**common, topic=demangle(parts[9]), dds_type=demangle(parts[10]),
                  type_hash=demangle(parts[11]), qos=QoS.parse(parts[12]))


def gid_of(entity_key: str) -> bytes:
    """An entity's 16-byte GID as rmw_zenoh computes it from its liveliness key."""
    import xxhash

    v = xxhash.xxh3_128_intdigest(entity_key.encode())
    return (v & 0xFFFF_FFFF_FFFF_FFFF).to_bytes(8, "little") + (v >> 64).to_bytes(8, "little")


@dataclass(frozen=True)
class Attachment:
    sequence_number: int
    source_timestamp_ns: int
    source_gid: bytes

    def encode(self) -> bytes:
        if len(self.source_gid) != GID_BYTES:
            raise ValueError("a GID has 16 bytes")
        return struct.pack("<qqB", self.sequence_number, self.source_timestamp_ns, GID_BYTES) + \
            bytes(self.source_gid)

    @staticmethod
    def decode(data: bytes) -> "Attachment":
        """ValueError unless ``data`` is the 33-byte attachment. rmw_zenoh always writes the
        GID's length byte; 32 bytes (the GID without it, as a fixed-array serialiser would
        write it) are read too, for peers that are not rmw_zenoh."""
        if len(data) == 17 + GID_BYTES:
            if data[16] != GID_BYTES:
                raise ValueError(f"the attachment's GID length byte is {data[16]}, not 16")
            data = data[:16] + data[17:]
        elif len(data) != 16 + GID_BYTES:
            raise ValueError(f"an rmw_zenoh attachment has 33 bytes, not {len(data)}")
        seq, stamp = struct.unpack_from("<qq", data)
        return Attachment(seq, stamp, bytes(data[16:]))
