import math

import pytest
from hypothesis import given, settings, strategies as st

from swarmstack.buzz.swarm import messages as M
from swarmstack.buzz.values import Table

ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
scalars = st.one_of(st.none(), ints, st.floats(allow_nan=False), st.text(max_size=20))
keys = st.one_of(ints, st.text(max_size=8))


def tables(children):
    return st.dictionaries(keys, children, max_size=4).map(lambda d: Table(d))


values = st.recursive(st.one_of(ints, st.floats(allow_nan=False), st.text(max_size=20)), tables, max_leaves=10)


def roundtrip(v):
    buf = bytearray()
    M.put_value(buf, v)
    out, pos = M.get_value(bytes(buf), 0)
    assert pos == len(buf)
    return out


@given(st.one_of(st.none(), values))
def test_value_roundtrip(v):
    assert roundtrip(v) == v


def test_nan_and_tables_are_fresh():
    assert math.isnan(roundtrip(float("nan")))
    t = Table({1: Table({"a": 2})})
    out = roundtrip(t)
    assert isinstance(out, Table) and isinstance(out[1], Table) and out == t and out is not t


def test_sizes_are_compact():
    assert M.value_size(None) == 1
    assert M.value_size(5) == 2
    assert M.value_size(-64) == 2
    assert M.value_size(1.5) == 3  # exact in binary16
    assert M.value_size(0.3) == 9  # needs binary64
    assert M.value_size(1.0000001192092896) == 5  # exact in binary32 only
    assert M.value_size(-0.0) == 3 and str(roundtrip(-0.0)) == "-0.0"
    assert M.value_size(float("inf")) == 3 and roundtrip(float("-inf")) == float("-inf")
    assert M.value_size("ab") == 4
    assert len(M.encode_broadcast("key", 1)) == 7
    assert len(M.encode_swarm_joinleave(M.SWARM_JOIN, 3)) == 2


@given(st.text(max_size=10), st.one_of(st.none(), values))
def test_broadcast_roundtrip(topic, v):
    assert M.decode_message(M.encode_broadcast(topic, v)) == (M.BROADCAST, topic, v)


@given(st.sampled_from([M.VSTIG_PUT, M.VSTIG_QUERY]), st.integers(0, 2**16 - 1), keys,
       st.one_of(st.none(), values), st.integers(0, 2**16 - 1), st.integers(0, 2**16 - 1))
def test_vstig_roundtrip(kind, vid, key, value, ts, robot):
    msg = (kind, vid, key, value, ts, robot)
    assert M.decode_message(M.encode_message(msg)) == msg


@given(st.lists(st.integers(0, 2**16 - 1), max_size=10), st.integers(0, 2**16 - 1))
def test_swarm_roundtrip(ids, sid):
    assert M.decode_message(M.encode_swarm_list(ids)) == (M.SWARM_LIST, tuple(ids))
    for k in (M.SWARM_JOIN, M.SWARM_LEAVE):
        assert M.decode_message(M.encode_swarm_joinleave(k, sid)) == (k, sid)


@settings(max_examples=50)
@given(st.lists(st.tuples(st.text(max_size=5), st.one_of(ints, st.text(max_size=5))), max_size=6))
def test_frame_roundtrip(items):
    msgs = [M.encode_broadcast(t, v) for t, v in items]
    frame = M.pack_frame(msgs)
    assert M.unpack_frame(frame) == msgs
    decoded, mutable = M.decode_frame(frame)
    assert decoded == [(M.BROADCAST, t, v) for t, v in items]
    assert not mutable


def test_malformed_inputs_raise_wire_error():
    with pytest.raises(M.WireError):
        M.decode_message(b"")
    with pytest.raises(M.WireError):
        M.decode_message(bytes([9]))
    with pytest.raises(M.WireError):
        M.decode_message(M.encode_broadcast("abc", 1)[:-1])
    with pytest.raises(M.WireError):
        M.unpack_frame(bytes([5, 0, 1]))
    with pytest.raises(M.WireError):
        M.decode_message(M.encode_broadcast("a", 1) + b"x")


def test_closures_travel_as_nil():
    from swarmstack.buzz.values import Closure

    assert roundtrip(Closure(code=None)) is None


def test_mutable_flag_and_copy():
    frame = M.pack_frame([M.encode_broadcast("t", Table({1: 2}))])
    msgs, mutable = M.decode_frame(frame)
    assert mutable
    c = M.copy_message(msgs[0])
    assert c == msgs[0] and c[2] is not msgs[0][2]
