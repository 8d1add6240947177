import math

import pytest

from swarmstack.buzz.swarm import messages as M
from swarmstack.buzz.swarm.outqueue import OutQueue
from swarmstack.buzz.swarm.radio import NullRadio, Reception
from swarmstack.buzz.swarm.topology import InMemoryRadio, Topology, make_topology


def kinds(frame):
    return [M.decode_message(m)[0] for m in M.unpack_frame(frame)]


def test_priority_order_without_cap():
    q = OutQueue()
    q.append_swarm_joinleave(M.SWARM_JOIN, 1)
    q.append_vstig(M.VSTIG_QUERY, 1, "k", None, 0, 3)
    q.append_vstig(M.VSTIG_PUT, 1, "j", 5, 1, 3)
    q.append_broadcast("b", 1)
    assert kinds(q.pack(None)) == [M.BROADCAST, M.VSTIG_PUT, M.VSTIG_QUERY, M.SWARM_JOIN]
    assert len(q) == 0


def test_cap_keeps_order_and_defers_rest():
    q = OutQueue()
    for i in range(5):
        q.append_broadcast("t", i)  # 5-byte messages, 6 bytes in a frame
    f1 = q.pack(13)
    assert len(f1) == 12 and len(M.unpack_frame(f1)) == 2
    f2 = q.pack(13)
    assert [M.decode_message(m)[2] for m in M.unpack_frame(f2)] == [2, 3]
    assert len(q) == 1


def test_oversize_message_is_discarded():
    q = OutQueue()
    q.append_broadcast("a-long-topic", "and a long value")
    q.append_broadcast("t", 1)
    f = q.pack(10)
    assert [M.decode_message(m)[2] for m in M.unpack_frame(f)] == [1]
    assert q.oversize == 1


def test_vstig_dedup_keeps_newest():
    q = OutQueue()
    q.append_vstig(M.VSTIG_PUT, 1, "k", 1, 3, 0)
    q.append_vstig(M.VSTIG_QUERY, 1, "k", 1, 3, 0)  # not newer: dropped
    q.append_vstig(M.VSTIG_PUT, 1, "k", 2, 2, 0)  # older: dropped
    assert len(q) == 1
    q.append_vstig(M.VSTIG_QUERY, 1, "k", 9, 4, 1)  # newer: replaces
    msgs = [M.decode_message(m) for m in M.unpack_frame(q.pack(None))]
    assert msgs == [(M.VSTIG_QUERY, 1, "k", 9, 4, 1)]
    q.append_vstig(M.VSTIG_PUT, 1, "k", 1, 1, 0)  # queue empty again: accepted
    assert len(q) == 1


def test_swarm_list_invariants():
    q = OutQueue()
    q.append_swarm_joinleave(M.SWARM_JOIN, 1)
    q.append_swarm_joinleave(M.SWARM_JOIN, 1)
    q.append_swarm_joinleave(M.SWARM_LEAVE, 2)
    assert q.join == [1] and q.leave == [2]
    q.append_swarm_joinleave(M.SWARM_JOIN, 2)
    assert q.join == [1, 2] and q.leave == []
    q.append_swarm_list([1])
    assert q.join == [] and q.swarm_list == [1]
    q.append_swarm_joinleave(M.SWARM_JOIN, 3)
    q.append_swarm_joinleave(M.SWARM_LEAVE, 1)
    assert q.swarm_list == [3]
    assert [M.decode_message(m) for m in M.unpack_frame(q.pack(None))] == [(M.SWARM_LIST, (3,))]


def test_line_ring_full_links():
    line = make_topology("line", 5)
    assert [line.neighbours(i) for i in range(5)] == [[1], [0, 2], [1, 3], [2, 4], [3]]
    assert line.hops_from(0) == [0, 1, 2, 3, 4]
    ring = make_topology("ring", 5)
    assert ring.neighbours(0) == [1, 4]
    assert ring.hops_from(0) == [0, 1, 2, 2, 1]
    full = make_topology("full", 4)
    assert full.neighbours(2) == [0, 1, 3]
    star = make_topology("star", 5)
    assert star.hops_from(0) == [0, 1, 1, 1, 1]


def test_distance_and_bearing():
    line = make_topology("line", 3, spacing=0.5)
    rec = line.receivers()
    # robot 1 seen from robot 0: 0.5 m straight ahead; robot 0 seen from robot 1: behind
    (j, d, az, el), = [r for r in rec[1] if r[0] == 0]
    assert d == pytest.approx(0.5) and az == pytest.approx(0.0) and el == 0.0
    (j, d, az, el), = [r for r in rec[0] if r[0] == 1]
    assert abs(az) == pytest.approx(math.pi)
    t = Topology([(0, 0, 0), (0, 1, 1)], range_m=2.0)
    (j, d, az, el), = t.receivers()[1]
    assert d == pytest.approx(math.sqrt(2)) and az == pytest.approx(math.pi / 2) and el == pytest.approx(math.pi / 4)


def test_random_geometric_graph():
    t = make_topology("random:0.3", 30, seed=4)
    pos = t.positions
    for i in range(30):
        for j in range(30):
            if i != j:
                d = math.dist(pos[i], pos[j])
                assert (j in t.neighbours(i)) == (d <= 0.3)
    assert make_topology("random:0.3", 30, seed=4).positions == pos
    with pytest.raises(ValueError):
        make_topology("random:x", 3)
    with pytest.raises(ValueError):
        make_topology("hexagon", 3)


def test_radio_delivers_and_drops():
    t = make_topology("full", 3)
    r = InMemoryRadio(t)
    inb = [[Reception(*x) for x in box] for box in r.exchange([b"a", None, b""])]
    assert sorted(x.sender_id for x in inb[1]) == [0, 2]
    assert [x.sender_id for x in inb[0]] == [2]
    assert inb[1][0].payload in (b"a", b"")
    lossy = InMemoryRadio(make_topology("full", 10), drop=0.3, seed=1)
    for _ in range(200):
        lossy.exchange([b""] * 10)
    assert lossy.sent == 200 * 90
    assert lossy.dropped / lossy.sent == pytest.approx(0.3, abs=0.02)
    all_lost = InMemoryRadio(t, drop=1.0)
    assert all_lost.exchange([b"x"] * 3) == [[], [], []]
    assert NullRadio().exchange([b"x"]) == [[]]


def test_radio_truncates_to_cap():
    r = InMemoryRadio(make_topology("full", 2), payload_cap=2)
    assert r.exchange([b"abcd", None])[1][0][1] == b"ab"


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["b", "p", "q", "j", "l"]), st.integers(0, 5), st.integers(0, 300)),
                max_size=30),
       st.integers(4, 40))
def test_pack_respects_cap_and_priority(ops, cap):
    q = OutQueue()
    ts = {}
    for op, k, v in ops:
        if op == "b":
            q.append_broadcast("t", v)
        elif op in "pq":
            ts[k] = ts.get(k, 0) + 1
            q.append_vstig(M.VSTIG_PUT if op == "p" else M.VSTIG_QUERY, 1, k, v, ts[k], 0)
        else:
            q.append_swarm_joinleave(M.SWARM_JOIN if op == "j" else M.SWARM_LEAVE, k)
    expected = [m for m in q.pending() if M.frame_record_size(m) <= cap]
    sent = []
    for _ in range(len(expected) + 2):
        frame = q.pack(cap)
        assert len(frame) <= cap
        sent += M.unpack_frame(frame)
    assert sent == expected  # nothing lost but oversize, order kept
    assert len(q) == 0
    prio = [M.decode_message(m)[0] for m in sent]
    order = [M.BROADCAST, M.SWARM_LIST, M.VSTIG_PUT, M.VSTIG_QUERY, M.SWARM_JOIN, M.SWARM_LEAVE]
    assert [order.index(k) for k in prio] == sorted(order.index(k) for k in prio)


def test_radio_receptions_follow_packets_and_moves_across_steps():
    topo = make_topology("line", 3)
    radio = InMemoryRadio(topo)
    quiet = [b"", b"", b""]
    first = radio.exchange(quiet)
    again = radio.exchange(list(quiet))
    assert again == first and radio.sent == 8  # 4 links, twice
    talk = radio.exchange([b"", b"x", b""])
    assert sorted(r[1] for r in talk[0]) == [b"x"] and sorted(r[1] for r in talk[2]) == [b"x"]
    assert radio.exchange(quiet) == first
    x, y, z = topo.positions[0]
    topo.positions[0] = (x - 1.0, y, z)
    topo.moved()
    moved = radio.exchange(quiet)
    assert [round(r[2], 6) for r in moved[1]] != [round(r[2], 6) for r in first[1]]
    assert radio.sent == 20


@pytest.mark.parametrize("planar", [True, False])
def test_range_links_match_a_pairwise_computation(planar):
    import random

    rng = random.Random(3)
    pos = [(rng.random(), rng.random(), 0.0 if planar else rng.random() * 0.2) for _ in range(40)]
    r = 0.25
    fast = Topology(list(pos), range_m=r).receivers()
    links = [[j for j in range(40) if j != i and math.dist(pos[i], pos[j]) <= r] for i in range(40)]
    slow = Topology(list(pos), links=links).receivers()
    assert [[j for j, *_ in row] for row in fast] == [[j for j, *_ in row] for row in slow]
    for a, b in zip(fast, slow):
        for (_, d1, az1, el1), (_, d2, az2, el2) in zip(a, b):
            assert d1 == pytest.approx(d2, abs=1e-12) and az1 == pytest.approx(az2, abs=1e-12)
            assert el1 == pytest.approx(el2, abs=1e-12)
