"""The swarm service and harness driven by a Python stand-in VM (no compiler needed)."""

import pytest

from fakevm import FakeVM, factory, fn
from swarmstack.buzz.swarm import Harness
from swarmstack.buzz.swarm._vmapi import SwarmRuntimeError
from swarmstack.buzz.swarm.radio import Reception
from swarmstack.buzz.swarm.service import SwarmService
from swarmstack.buzz.values import Table


def service(robot_id=0, profile="buzz"):
    vm = FakeVM(robot_id=robot_id, profile=profile)
    svc = SwarmService(vm, robot_id, profile)
    svc.install()
    return vm, svc


def test_neighbors_api_on_python_values():
    vm, svc = service()
    assert vm.invoke("neighbors.count") == 0
    svc.receive([Reception(3, b"", 1.0, 0.5, 0.0), Reception(7, b"", 2.0, -0.5, 0.1)])
    assert vm.invoke("neighbors.count") == 2
    assert vm.invoke("neighbors.get", 7)["distance"] == 2.0
    assert vm.invoke("neighbors.get", 4) is None
    seen = []
    vm.invoke("neighbors.foreach", fn(lambda vm, rid, d: seen.append((rid, d["azimuth"]))))
    assert seen == [(3, 0.5), (7, -0.5)]
    m = vm.invoke("neighbors.map", fn(lambda vm, rid, d: d["distance"] * 10))
    assert m["poses"] == {3: 10.0, 7: 20.0}
    assert vm.call(m["reduce"], fn(lambda vm, rid, x, acc: acc + x), 0) == 30.0
    f = vm.invoke("neighbors.filter", fn(lambda vm, rid, d: 1 if d["distance"] > 1.5 else 0))
    assert vm.call(f["count"]) == 1 and list(f["poses"]) == [7]
    assert vm.call(vm.invoke("neighbors.kin")["count"]) == 2  # outside exec: everyone
    assert vm.call(vm.invoke("neighbors.nonkin")["count"]) == 0
    # the table is rebuilt each step
    svc.receive([])
    assert vm.invoke("neighbors.count") == 0


def test_wrong_arguments_are_runtime_errors():
    vm, svc = service()
    with pytest.raises(SwarmRuntimeError, match="expected closure"):
        vm.invoke("neighbors.foreach", 3)
    with pytest.raises(SwarmRuntimeError, match="expected 1 argument"):
        vm.invoke("neighbors.get")
    with pytest.raises(SwarmRuntimeError, match="expected string"):
        vm.invoke("neighbors.broadcast", 1, 2)


def test_swarm_union_intersection_spec_fact():
    vm, svc = service()
    s1 = vm.invoke("swarm.create", 1)
    s2 = vm.invoke("swarm.create", 2)
    vm.call(s2["join"])
    u = vm.invoke("swarm.union", 3, s1, s2)
    i = vm.invoke("swarm.intersection", 4, s1, s2)
    assert vm.call(u["in"]) == 1
    assert vm.call(i["in"]) == 0
    assert vm.call(s1["in"]) == 0
    d = vm.invoke("swarm.difference", 5, s2, s1)
    assert vm.call(d["in"]) == 1
    o = vm.call(s2["others"], 6)
    assert vm.call(o["in"]) == 0
    ran = []
    vm.call(s1["exec"], fn(lambda vm: ran.append(1)))
    vm.call(s2["exec"], fn(lambda vm: ran.append(vm.invoke("swarm.id"))))
    assert ran == [2]
    assert vm.invoke("swarm.id") is None
    s1["id"] = 42  # a swarm this robot never created
    with pytest.raises(SwarmRuntimeError, match="unknown swarm"):
        vm.call(s1["join"])


def test_swarm_select_leave_and_queue():
    vm, svc = service()
    s = vm.invoke("swarm.create", 1)
    vm.call(s["select"], 1)
    assert vm.call(s["in"]) == 1
    vm.call(s["select"], 0)
    assert vm.call(s["in"]) == 0
    assert svc.out.leave == [1] and svc.out.join == []
    vm.call(s["join"])
    vm.call(s["leave"])
    assert vm.call(s["in"]) == 0


class Chat:
    def top(self, vm):
        vm.set_global("got", Table())
        vm.invoke("neighbors.listen", "hi", fn(lambda vm, t, v, rid: vm.g("got").__setitem__(rid, v)))

    def step(self, vm):
        vm.invoke("neighbors.broadcast", "hi", vm.g("id") * 10)


def test_broadcast_listen_over_harness():
    h = Harness("", 3, topology="line", vm_factory=factory(Chat))
    run = h.run(3)
    assert run.ok
    assert dict(run.robots[1].globals["got"]) == {0: 0, 2: 20}
    assert dict(run.robots[0].globals["got"]) == {1: 10}


class Ignorer(Chat):
    def step(self, vm):
        super().step(vm)
        vm.invoke("neighbors.ignore", "hi")
        vm.set_global("got", Table())


def test_ignore_removes_listener():
    run = Harness("", 2, vm_factory=factory(Ignorer)).run(3)
    assert dict(run.robots[0].globals["got"]) == {}


class Kin:
    def top(self, vm):
        s = vm.invoke("swarm.create", 1)
        vm.set_global("s", s)
        vm.call(s["select"], 1 if vm.g("id") % 2 == 0 else 0)
        vm.set_global("kin", -1)

    def step(self, vm):
        def body(vm):
            vm.set_global("kin", vm.call(vm.invoke("neighbors.kin")["count"]))
            vm.set_global("nonkin", vm.call(vm.invoke("neighbors.nonkin")["count"]))
        vm.call(vm.g("s")["exec"], fn(body))


def test_kin_nonkin_from_gossip():
    run = Harness("", 6, topology="full", vm_factory=factory(Kin)).run(3)
    r0 = run.robots[0].globals
    assert r0["kin"] == 2 and r0["nonkin"] == 3
    assert run.robots[1].globals["kin"] == -1  # odd robots never exec


class Conflict:
    def top(self, vm):
        vs = vm.invoke("stigmergy.create", 1)
        vm.set_global("vs", vs)
        vm.set_global("lost", 0)
        vm.call(vs["onconflictlost"], fn(lambda vm, k, e: vm.set_global("lost", vm.g("lost") + 1)))
        vm.set_global("t", 0)

    def step(self, vm):
        vm.set_global("t", vm.g("t") + 1)
        if vm.g("t") == 1 and vm.g("id") in (1, 3):
            vm.call(vm.g("vs")["put"], "k", "v%d" % vm.g("id"))
        vm.set_global("k", vm.call(vm.g("vs")["get"], "k"))


def test_simultaneous_put_higher_id_wins_everywhere():
    run = Harness("", 5, topology="line", vm_factory=factory(Conflict)).run(12)
    assert run.ok
    assert [r.globals["k"] for r in run.robots] == ["v3"] * 5
    assert [r.stigmergy[1]["k"] for r in run.robots] == ["v3"] * 5
    assert run.robots[1].globals["lost"] == 1
    assert run.robots[3].globals["lost"] == 0


class CustomConflict(Conflict):
    def top(self, vm):
        super().top(vm)
        vm.set_global("calls", 0)

        def lower_wins(vm, k, l, r):
            vm.set_global("calls", vm.g("calls") + 1)
            return l if l["robot"] < r["robot"] else r
        vm.call(vm.g("vs")["onconflict"], fn(lower_wins))


def test_onconflict_overrides_winner():
    run = Harness("", 5, topology="line", vm_factory=factory(CustomConflict)).run(12)
    assert [r.globals["k"] for r in run.robots] == ["v1"] * 5
    assert sum(r.globals["calls"] for r in run.robots) >= 1
    assert run.robots[3].globals["lost"] == 1


class Writer:
    def top(self, vm):
        vm.set_global("vs", vm.invoke("stigmergy.create", 7))
        vm.set_global("t", 0)

    def step(self, vm):
        vm.set_global("t", vm.g("t") + 1)
        if vm.g("id") == 0 and vm.g("t") == 1:
            vm.call(vm.g("vs")["put"], "x", 42)
        vm.set_global("x", vm.call(vm.g("vs")["get"], "x"))


def test_propagation_chain_hop_by_hop():
    h = Harness("", 6, topology="line", vm_factory=factory(Writer)).load()
    first = {}
    for step in range(1, 15):
        h.step()
        for i in range(6):
            if i not in first and h.get_global(i, "x") == 42:
                first[i] = step
    assert [first[i] - first[0] for i in range(6)] == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize("seed", range(3))
def test_propagation_with_loss(seed):
    run = Harness("", 8, topology="ring", drop=0.5, seed=seed, vm_factory=factory(Writer)).run(60)
    assert [r.globals["x"] for r in run.robots] == [42] * 8


class Crash:
    def step(self, vm):
        vm.set_global("n", (vm.get_global("n") or 0) + 1)
        if vm.g("id") == 1 and vm.g("n") == 3:
            vm.call(None)


def test_failure_isolated():
    run = Harness("", 3, vm_factory=factory(Crash)).run(5)
    assert [r.id for r in run.failed] == [1]
    assert run.robots[1].failed_at == "step 3"
    assert "expected closure" in run.robots[1].error
    assert run.robots[0].globals["n"] == 5 and run.robots[2].globals["n"] == 5


class Bitty:
    what = None

    def top(self, vm):
        if self.what == "swarms":
            vm.invoke("swarm.create", 7)
            vm.invoke("swarm.create", 8)
        elif self.what == "vstig":
            vm.invoke("stigmergy.create", 1)
            vm.invoke("stigmergy.create", 1)
            vm.invoke("stigmergy.create", 2)
        elif self.what == "table":
            vm.invoke("neighbors.broadcast", "t", 3)
            vm.invoke("neighbors.broadcast", "t", Table({1: 2}))


@pytest.mark.parametrize("what,needle", [
    ("swarms", "at most 8 swarms"), ("vstig", "single virtual stigmergy"), ("table", "cannot send a table")])
def test_bittybuzz_limits(what, needle):
    cls = type("B", (Bitty,), {"what": what})
    run = Harness("", 1, profile="bittybuzz", vm_factory=factory(cls)).run(1)
    assert run.robots[0].failed and needle in run.robots[0].error and "bittybuzz limit" in run.robots[0].error
    ok = Harness("", 1, profile="buzz", vm_factory=factory(cls)).run(1)
    assert ok.ok


def test_payload_cap_limits_bytes_per_step():
    class Spam:
        def step(self, vm):
            for i in range(10):
                vm.invoke("neighbors.broadcast", "t", i)

    h = Harness("", 2, payload_cap=20, vm_factory=factory(Spam)).load()
    for _ in range(3):
        h.step()
        assert all(len(p) <= 20 for p in h.packets)
    assert len(h.services[0].out) > 0  # backlog builds up


def test_malformed_frames_are_skipped_not_fatal():
    from swarmstack.buzz.swarm import messages as M

    vm, svc = service()
    good = M.encode_broadcast("t", 1)
    got = []
    vm.invoke("neighbors.listen", "t", fn(lambda vm, t, v, rid: got.append(v)))
    frame = M.pack_frame([good, b"\x09junk"]) + b"\x05ab"  # unknown kind, then truncated record
    svc.receive([Reception(1, frame, 1.0, 0.0, 0.0)])
    assert got == [] or got == [1]
    assert svc.malformed >= 1 and not vm.failed
    assert vm.invoke("neighbors.count") == 1


def test_shared_decoded_tables_are_copied_per_receiver():
    class TableChat:
        def top(self, vm):
            vm.set_global("got", None)

            def listener(vm, t, v, rid):
                v["mine"] = vm.g("id")  # mutate the received table
                vm.set_global("got", v)
            vm.invoke("neighbors.listen", "t", fn(listener))

        def step(self, vm):
            if vm.g("id") == 0:
                vm.invoke("neighbors.broadcast", "t", Table({"a": 1}))

    run = Harness("", 3, vm_factory=factory(TableChat)).run(2)
    assert run.robots[1].globals["got"] == {"a": 1, "mine": 1}
    assert run.robots[2].globals["got"] == {"a": 1, "mine": 2}


def test_nil_put_deletes_and_propagates_as_nil():
    class Deleter:
        def top(self, vm):
            vm.set_global("vs", vm.invoke("stigmergy.create", 1))
            vm.set_global("t", 0)

        def step(self, vm):
            vm.set_global("t", vm.g("t") + 1)
            if vm.g("id") == 0 and vm.g("t") == 1:
                vm.call(vm.g("vs")["put"], "k", 5)
            if vm.g("id") == 0 and vm.g("t") == 4:
                vm.call(vm.g("vs")["put"], "k", None)
            vm.set_global("k", vm.call(vm.g("vs")["get"], "k"))

    h = Harness("", 2, vm_factory=factory(Deleter)).load()
    for _ in range(3):
        h.step()
    assert h.get_global(1, "k") == 5
    for _ in range(3):
        h.step()
    assert h.get_global(0, "k") is None and h.get_global(1, "k") is None
    # as in the reference, the nil PUT comes back to the writer and is stored as a nil entry
    assert h.services[0].vstigs[1].fetch("k").value is None


def test_control_step_order_and_null_radio():
    from swarmstack.buzz.swarm import NullRadio
    from swarmstack.buzz.swarm.service import control_step

    order = []

    class Script:
        def step(self, vm):
            order.append(("step", vm.invoke("neighbors.count")))
            vm.invoke("neighbors.broadcast", "t", 1)

    vm = FakeVM(Script())
    svc = SwarmService(vm, 0)
    svc.install()
    frame = control_step(svc, [Reception(5, b"", 1.0, 0.0, 0.0)], cap=None)
    assert order == [("step", 1)]  # incoming messages were handled before step()
    from swarmstack.buzz.swarm import messages as M

    assert M.decode_frame(frame)[0] == [(M.BROADCAST, "t", 1)]
    assert NullRadio(1).exchange([frame]) == [[]]
