from swarmstack.buzz.swarm import messages as M
from swarmstack.buzz.swarm.stigmergy import Entry, VStig, default_resolve
from swarmstack.buzz.swarm.swarms import MEMBERSHIP_AGE_MAX, SwarmError, SwarmState

import pytest


def test_put_get_local():
    vs = VStig(1)
    assert vs.put("k", 5, me=3) == (M.VSTIG_PUT, "k", Entry(5, 1, 3))
    assert vs.put("k", 6, me=3) == (M.VSTIG_PUT, "k", Entry(6, 2, 3))
    v, q = vs.get("k", me=3)
    assert v == 6 and q == (M.VSTIG_QUERY, "k", Entry(6, 2, 3))
    v, q = vs.get("nope", me=3)
    assert v is None and q == (M.VSTIG_QUERY, "nope", Entry(None, 0, 3))
    assert vs.put("k", None, me=3) == (M.VSTIG_PUT, "k", Entry(None, 3, 3))
    assert vs.size() == 0
    assert vs.put("k", None, me=3) is None


def test_receive_put_rules():
    vs = VStig(1)
    assert vs.receive(M.VSTIG_PUT, "k", Entry(1, 1, 4), me=0) == (M.VSTIG_PUT, "k", Entry(1, 1, 4))
    assert vs.receive(M.VSTIG_PUT, "k", Entry(1, 1, 4), me=0) is None  # same version
    assert vs.receive(M.VSTIG_PUT, "k", Entry(0, 0, 4), me=0) is None  # older
    assert vs.receive(M.VSTIG_PUT, "k", Entry(2, 2, 5), me=0) == (M.VSTIG_PUT, "k", Entry(2, 2, 5))
    # conflict: same ts, different robot -> higher robot id wins
    assert vs.receive(M.VSTIG_PUT, "k", Entry(9, 2, 3), me=0) == (M.VSTIG_PUT, "k", Entry(2, 2, 5))
    assert vs.fetch("k") == Entry(2, 2, 5)
    assert vs.receive(M.VSTIG_PUT, "k", Entry(7, 2, 8), me=0) == (M.VSTIG_PUT, "k", Entry(7, 2, 8))


def test_receive_query_rules():
    vs = VStig(1)
    q = Entry(None, 0, 2)
    assert vs.receive(M.VSTIG_QUERY, "k", q, me=0) == (M.VSTIG_QUERY, "k", q)  # unknown, forward
    assert vs.receive(M.VSTIG_QUERY, "k", Entry(3, 1, 2), me=0) == (M.VSTIG_PUT, "k", Entry(3, 1, 2))
    vs.put("k", 4, me=0)  # ts 2
    assert vs.receive(M.VSTIG_QUERY, "k", Entry(3, 1, 2), me=0) == (M.VSTIG_PUT, "k", Entry(4, 2, 0))
    assert vs.receive(M.VSTIG_QUERY, "k", Entry(5, 3, 2), me=0) == (M.VSTIG_PUT, "k", Entry(5, 3, 2))
    assert vs.receive(M.VSTIG_QUERY, "k", Entry(5, 3, 2), me=0) is None


def test_conflict_lost_hook_and_custom_resolver():
    lost = []
    vs = VStig(1)
    vs.put("k", "mine", me=1)
    out = vs.receive(M.VSTIG_PUT, "k", Entry("theirs", 1, 7), 1, default_resolve, lambda k, e: lost.append((k, e)))
    assert out == (M.VSTIG_PUT, "k", Entry("theirs", 1, 7))
    assert lost == [("k", Entry("mine", 1, 1))]
    # a resolver that keeps the lower id
    vs2 = VStig(1)
    vs2.put("k", "mine", me=1)
    low = lambda k, l, r: (l if l.robot < r.robot else r).copy()
    assert vs2.receive(M.VSTIG_PUT, "k", Entry("theirs", 1, 7), 1, low, lambda k, e: lost.append(k)) == \
        (M.VSTIG_PUT, "k", Entry("mine", 1, 1))
    assert len(lost) == 1


def test_default_resolve_prefers_non_nil():
    assert default_resolve("k", Entry(None, 1, 9), Entry(3, 1, 2)) == Entry(3, 1, 2)
    assert default_resolve("k", Entry(3, 1, 2), Entry(None, 1, 9)) == Entry(3, 1, 2)
    assert default_resolve("k", Entry(None, 1, 9), Entry(None, 1, 2)) == Entry(None, 1, 9)


def test_swarm_state_and_set_ops():
    s = SwarmState()
    s.create(1)
    s.create(2)
    assert s.join(2) == M.SWARM_JOIN
    assert s.set_op("union", 3, 1, 2) == M.SWARM_JOIN and s.is_in(3)
    assert s.set_op("intersection", 4, 1, 2) is None and not s.is_in(4)
    assert s.set_op("difference", 5, 2, 1) == M.SWARM_JOIN
    assert s.others(2, 6) is None and not s.is_in(6)
    with pytest.raises(SwarmError):
        s.join(99)
    assert s.member_ids() == [2, 3, 5]


def test_swarm_gossip_and_aging():
    s = SwarmState()
    s.on_join(4, 1)
    s.on_join(4, 2)
    assert s.robot_in(4, 2)
    s.on_leave(4, 2)
    assert not s.robot_in(4, 2) and s.robot_in(4, 1)
    s.on_list(5, [3])
    s.on_list(5, [])  # empty lists are ignored
    assert s.robot_in(5, 3)
    for _ in range(MEMBERSHIP_AGE_MAX):
        s.age()
    assert s.robot_in(5, 3)
    s.age()
    assert not s.robot_in(5, 3)


def test_swarm_list_every_ten_steps():
    s = SwarmState()
    assert [s.due_list() for _ in range(10)] == [None] * 10  # nothing known: no list
    s.create(1)
    s.join(1)
    due = [s.due_list() for _ in range(20)]
    assert due.count([1]) == 2
