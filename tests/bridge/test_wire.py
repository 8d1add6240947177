"""rmw_zenoh's wire format and CDR payloads against bytes and strings derived by hand from the
published specifications (OMG CDR / XCDR1 little-endian, REP 2011 type hashes) and from
ros2/rmw_zenoh's source. Each golden test names the source fact it checks; the files and
commits are listed in docs/real-robots.md ("How the expected bytes were derived")."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.bridge import messages, wire

STRING_HASH = "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"


def test_type_hash_of_std_msgs_string_is_the_published_one():
    # the hash every ROS 2 Jazzy `ros2 topic info -v /chatter` prints for std_msgs/msg/String
    assert messages.type_hash("std_msgs/msg/String") == STRING_HASH
    assert messages.type_hash("rvr_ros/msg/Leds").startswith("RIHS01_")


def test_dds_names():
    # type_support_common.cpp, _create_type_name: "<message namespace>::dds_::<Name>_"
    assert messages.dds_name("std_msgs/msg/ColorRGBA") == "std_msgs::msg::dds_::ColorRGBA_"
    with pytest.raises(ValueError):
        messages.dds_name("ColorRGBA")


def test_colour_cdr_bytes():
    c = messages.message_class("std_msgs/msg/ColorRGBA")(r=1.0, g=0.5, b=0.0, a=1.0)
    data = messages.encode(c, "std_msgs/msg/ColorRGBA")
    # encapsulation CDR_LE (00 01) + options, then four float32 little-endian
    assert data == bytes.fromhex("00010000" "0000803f" "0000003f" "00000000" "0000803f")
    assert messages.decode(data, "std_msgs/msg/ColorRGBA").g == 0.5


def test_float32_multiarray_cdr_bytes():
    cls = messages.message_class("std_msgs/msg/Float32MultiArray")
    layout = messages.message_class("std_msgs/msg/MultiArrayLayout")(dim=[], data_offset=0)
    import numpy as np
    msg = cls(layout=layout, data=np.array([0.1, -0.2], dtype=np.float32))
    data = messages.encode(msg, "std_msgs/msg/Float32MultiArray")
    expected = (bytes.fromhex("00010000") + struct.pack("<I", 0)    # no dimensions
                + struct.pack("<I", 0)                               # data_offset
                + struct.pack("<I", 2) + struct.pack("<ff", 0.1, -0.2))
    assert data == expected


def test_a_message_without_fields_is_one_zero_byte():
    # type_support.cpp: a plain type of size 0 writes a dummy 0 byte after the encapsulation
    # header, and reading one expects it
    empty = messages.message_class("std_msgs/msg/Empty")()
    assert messages.encode(empty, "std_msgs/msg/Empty") == bytes.fromhex("0001000000")
    with pytest.raises(ValueError):
        messages.decode(bytes.fromhex("00010000"), "std_msgs/msg/Empty")


def test_topic_key():
    # liveliness_utils.cpp, TopicInfo: domain id, "/", the topic name with its leading and
    # trailing slash stripped, "/", the type name, "/", the stringified RIHS01 hash
    h = messages.type_hash("std_msgs/msg/String")
    assert wire.topic_key(0, "/chatter", "std_msgs::msg::dds_::String_", h) == \
        f"0/chatter/std_msgs::msg::dds_::String_/{STRING_HASH}"
    assert wire.topic_key(3, "/rvr_1/rvr/wheels_speed/", "x::msg::dds_::Y_", "H") == \
        "3/rvr_1/rvr/wheels_speed/x::msg::dds_::Y_/H"


def test_liveliness_tokens():
    # liveliness_utils.cpp, Entity: the 13 chunks AdminSpace … TopicQoS joined by "/", names
    # through mangle_name ("/" -> "%"); qos_to_keyexpr leaves a field empty at qos.cpp's
    # default (reliable, volatile, keep last, depth 42, infinite durations, automatic
    # liveliness), ":" between policies, "," inside one; rmw_node_data.cpp passes the node's
    # id as both node id and entity id
    pub = wire.Entity(0, "aabb", 0, 10, wire.PUBLISHER, "", "talker", topic="/chatter",
                      dds_type="std_msgs::msg::dds_::String_", type_hash=STRING_HASH,
                      qos=wire.QoS(depth=7))
    assert pub.key() == ("@ros2_lv/0/aabb/0/10/MP/%/%/talker/%chatter/"
                         f"std_msgs::msg::dds_::String_/{STRING_HASH}/::,7:,:,:,,")
    node = wire.Entity(2, "aabb", 1, 1, wire.NODE, "/rvr_1", "driver")
    assert node.key() == "@ros2_lv/2/aabb/1/1/NN/%/%rvr_1/driver"
    assert wire.parse_liveliness(node.key()) == node
    assert wire.parse_liveliness(pub.key()) == pub
    latched = wire.QoS(reliable=False, transient_local=True)      # depth 10
    assert latched.key() == "2:1:,10:,:,:,,"
    assert wire.QoS.parse(latched.key()) == latched
    assert wire.QoS.parse("::,:,:,:,,").depth == 42              # rmw_zenoh's default


# the two tokens rmw_zenoh's design document (docs/design.md) shows verbatim
DESIGN_NODE = "@ros2_lv/0/aac3178e146ba6f1fc6e6a4085e77f21/0/0/NN/%/%/listener"
DESIGN_TALKER = ("@ros2_lv/0/8b20917502ee955ac4476e0266340d5c/0/10/MP/%/%/talker/%chatter/"
                 f"std_msgs::msg::dds_::String_/{STRING_HASH}/::,7:,:,:,,")


def test_design_document_tokens_parse_and_rebuild():
    node = wire.parse_liveliness(DESIGN_NODE)
    assert (node.kind, node.node_path, node.node_id, node.entity_id) == \
        (wire.NODE, "/listener", 0, 0)
    assert node.key() == DESIGN_NODE
    talker = wire.parse_liveliness(DESIGN_TALKER)
    assert (talker.topic, talker.dds_type, talker.qos.depth) == \
        ("/chatter", "std_msgs::msg::dds_::String_", 7)
    assert talker.key() == DESIGN_TALKER


def test_gid_is_xxh3_128_of_the_token_low_half_first():
    # liveliness_utils.cpp, Entity: simplified_XXH3_128bits(liveliness key), then memcpy of
    # low64 into bytes 0-7 and high64 into bytes 8-15 (host order: little-endian)
    import xxhash

    canonical = bytes.fromhex(xxhash.xxh3_128_hexdigest(DESIGN_TALKER.encode()))  # big-endian
    gid = wire.gid_of(DESIGN_TALKER)
    assert gid[:8] == canonical[8:][::-1] and gid[8:] == canonical[:8][::-1]


@pytest.mark.parametrize("key", ["", "@ros2_lv", "@ros2_lv/x/z/0/0/NN/%/%/n",
                                 "@ros2_lv/0/z/0/0/XX/%/%/n", "0/chatter/t/h",
                                 "@ros2_lv/0/z/0/1/MP/%/%/n/%t/ty/h/bad"])
def test_bad_liveliness_tokens_are_refused(key):
    with pytest.raises(ValueError):
        wire.parse_liveliness(key)


def test_attachment_bytes_match_zenoh_ext_serialisation():
    # attachment_helpers.cpp, serialize_to_zbytes: int64 sequence number, int64 source
    # timestamp, std::array<uint8_t, 16> GID; zenoh-cpp's serialization.hxx writes a
    # std::array as a sequence (its length, then the elements)
    import zenoh.ext as ze

    gid = bytes(range(16))
    att = wire.Attachment(7, 1_700_000_000_000_000_000, gid)
    # two int64 then the GID as a sequence: LEB128 length 0x10 and the 16 bytes (33 bytes)
    ref = ze.z_serialize((ze.Int64(7), ze.Int64(1_700_000_000_000_000_000), gid)).to_bytes()
    assert len(ref) == 33 and ref[16] == 0x10
    assert att.encode() == ref
    assert wire.Attachment.decode(ref) == att
    # the GID as a fixed array (no length byte) is read too
    fixed = ze.z_serialize((ze.Int64(7), ze.Int64(1_700_000_000_000_000_000),
                            tuple(ze.UInt8(b) for b in gid))).to_bytes()
    assert wire.Attachment.decode(fixed) == att
    with pytest.raises(ValueError, match="length byte"):
        wire.Attachment.decode(ref[:16] + b"\x0f" + ref[17:])


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=80))
def test_any_bytes_decode_or_raise_value_error(data):
    for ros_type in ("std_msgs/msg/Float32MultiArray", "nav_msgs/msg/Odometry",
                     "rvr_ros/msg/Leds", "std_msgs/msg/String"):
        try:
            messages.decode(data, ros_type)
        except ValueError:
            pass
    try:
        wire.Attachment.decode(data)
    except ValueError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(max_size=12), max_size=4))
def test_robot_lists_are_accepted_or_refused_with_a_reason(names):
    from swarmstack.bridge.links import ROBOT_NAME, check_names

    try:
        assert check_names(names) == names
    except ValueError as exc:
        assert str(exc)
        assert not names or len(set(names)) < len(names) or \
            not all(ROBOT_NAME.match(n) for n in names)
    else:
        assert all(ROBOT_NAME.match(n) for n in names)
