"""The embedding API the swarm layer and the simulator use."""

from swarmstack.buzz.values import Closure, HostClosure, Table
from swarmstack.buzz.vm import BuzzVM


def mk(src, **kw):
    out = []
    vm = BuzzVM(src, "emb.bzz", log=out.append, **kw)
    return vm, out


def test_register_host_closure_and_globals():
    vm, out = mk("x = add(2, 3)\nlog(x, ' ', greeting)")
    vm.register("add", lambda vm_, a, b: a + b)
    vm.set_global("greeting", "hi")
    vm.run_top_level()
    assert out == ["5 hi"] and vm.get_global("x") == 5 and vm.globals["x"] == 5


def test_init_step_reset_destroy_called_if_defined():
    src = ("n = 0\nfunction init() { n = 10 }\nfunction step() { n = n + 1 }\n"
           "function reset() { n = 0 }\n")
    vm, _ = mk(src)
    vm.init()           # runs the top level first
    vm.step()
    vm.step()
    assert vm.get_global("n") == 12
    vm.reset()
    vm.destroy()        # not defined: nothing happens
    assert vm.get_global("n") == 0 and not vm.failed


def test_call_by_name_and_closure():
    vm, _ = mk("function f(a, b) { return a * b }\ng = function(t) { return t.x }")
    vm.run_top_level()
    assert vm.call("f", 6, 7) == 42
    assert vm.call(vm.get_global("g"), {"x": 3}) == 3


def test_to_buzz_and_from_buzz():
    vm, _ = mk("")
    t = vm.to_buzz({"a": [1, 2.5, "s"], "b": True, "c": None})
    assert isinstance(t, Table) and isinstance(t["a"], Table) and t["a"][1] == 2.5 and t["b"] == 1
    assert "c" not in t
    assert BuzzVM.from_buzz(t) == {"a": {0: 1, 1: 2.5, 2: "s"}, "b": 1}


def test_host_closures_in_tables_receive_self():
    seen = []

    def join(vm_):
        seen.append(vm_.self)
        return 1

    vm, out = mk("s = mkswarm()\nlog(s.join(), ' ', s.id)")
    vm.register("mkswarm", lambda vm_: vm_.make_table({"id": 4, "join": HostClosure(join, "join")}))
    vm.run_top_level()
    assert out == ["1 4"]
    assert isinstance(seen[0], Table) and seen[0]["id"] == 4


def test_hooks_install_tables_before_the_top_level():
    vm, out = mk("log(neighbors.count())")
    vm.hooks.append(lambda v: v.set_global("neighbors", {"count": lambda vm_: 0}))
    vm.run_top_level()
    assert out == ["0"]


def test_host_calls_back_into_buzz():
    vm, out = mk("apply(function(x) { log('got ', x) }, 5)")
    vm.register("apply", lambda vm_, f, x: vm_.call_value(f, x))
    vm.run_top_level()
    assert out == ["got 5"]


def test_one_failing_vm_does_not_affect_another():
    src = "function step() { if (id == 1) { x = nil + 1 } else { log('ok') } }"
    vms = []
    outs = []
    for rid in range(3):
        out = []
        vms.append(BuzzVM(src, "r.bzz", robot_id=rid, log=out.append))
        outs.append(out)
    for vm in vms:
        vm.step()
    assert [vm.failed for vm in vms] == [False, True, False]
    assert outs[0] == ["ok"] and outs[2] == ["ok"]


def test_closures_from_the_script_are_closure_values():
    vm, _ = mk("function f() {}\n")
    vm.run_top_level()
    assert isinstance(vm.get_global("f"), Closure)


def test_location_inside_a_host_closure():
    where = []
    vm, _ = mk("x = 1\nprobe()\n")
    vm.register("probe", lambda vm_: where.append(vm_.location()))
    vm.run_top_level()
    assert where == ["emb.bzz:2:1"]
