"""Runtime errors: file:line:col, reference messages, Buzz stack traces, failure isolation."""

from swarmstack.buzz.vm import MAX_CALL_DEPTH, BuzzVM
from swarmstack.buzz.errors import BuzzRuntimeError
from tests.buzz.conftest import run_vm

import pytest


def test_error_location_and_trace():
    src = 'log("start")\nfunction g(x) {\n  return x.y + 1\n}\nfunction f() {\n  return g(nil)\n}\nf()\n'
    vm, out = run_vm(src, "e.bzz")
    assert out == ["start"]
    e = vm.error
    assert (e.file, e.line, e.col, e.message) == ("e.bzz", 3, 12, "type mismatch: expected table, got nil")
    assert [(fr.function, fr.line) for fr in e.trace] == [("g", 3), ("f", 6), ("<main>", 8)]
    text = e.pretty()
    assert "  return x.y + 1" in text and "Buzz stack trace" in text


def test_arithmetic_error_location_inside_a_long_expression():
    vm, _ = run_vm("a = 1\nb = nil\nc = a + 2 * (a -\n   b)\n", "e.bzz")
    assert (vm.error.line, vm.error.col) == (3, 16)


def test_stack_overflow_from_deep_recursion():
    vm, _ = run_vm("function r(n) { return r(n + 1) }\nr(1)\n", "so.bzz")
    assert vm.error.message == f"stack overflow: call depth exceeds {MAX_CALL_DEPTH}"
    assert vm.error.line == 1


def test_recursion_within_the_limit_works():
    vm, out = run_vm("function d(n) { if (n == 0) return 0\n return 1 + d(n - 1) }\nlog(d(1500))")
    assert not vm.failed and out == ["1500"]


def test_step_never_raises_and_marks_the_vm_failed():
    vm = BuzzVM("function step() { x = nil + 1 }", "s.bzz", log=lambda s: None)
    vm.run_top_level()
    vm.step()
    assert vm.failed and vm.error.line == 1
    vm.step()  # a failed VM stays failed and quiet
    assert vm.failed


def test_raise_errors_option():
    vm = BuzzVM("x = nil + 1", "r.bzz", log=lambda s: None, raise_errors=True)
    with pytest.raises(BuzzRuntimeError) as e:
        vm.run_top_level()
    assert str(e.value) == "r.bzz:1:9 : type mismatch: expected numeric operands, got nil and integer"


def test_host_exception_becomes_a_located_error():
    vm = BuzzVM("x = 1\nboom()", "h.bzz", log=lambda s: None)

    def boom(vm_):
        raise ValueError("bad")
    vm.register("boom", boom)
    vm.run_top_level()
    assert (vm.error.line, vm.error.message) == (2, "host error: ValueError: bad")


def test_errors_in_callbacks_from_builtins_are_located():
    vm, _ = run_vm("foreach({.a = 1}, function(k, v) {\n  log(v.z)\n})", "cb.bzz")
    assert (vm.error.line, vm.error.message) == (2, "type mismatch: expected table, got integer")
    assert len(vm.error.trace) == 2


def test_same_code_in_two_files_reports_each_files_location():
    a, _ = run_vm("x = nil + 1", "one.bzz")
    b, _ = run_vm("\n\nx = nil + 1", "two.bzz")
    assert (a.error.file, a.error.line) == ("one.bzz", 1)
    assert (b.error.file, b.error.line) == ("two.bzz", 3)


def test_recursion_through_builtins_counts_buzz_calls():
    src = ("function r(n) {\n  if (n == 0) return 0\n  var s = 0\n"
           "  foreach({.a = 1}, function(k, v) { s = r(n - 1) })\n  return n\n}\nlog(r(800))\n"
           "function deep(n) { return map({.x = 1}, function(k, v) { return deep(n + 1) }) }\ndeep(0)\n")
    vm, out = run_vm(src)
    assert out == ["800"]
    assert vm.error.message == f"stack overflow: call depth exceeds {MAX_CALL_DEPTH}"


def test_recursion_limit_is_the_same_inside_the_swarm_harness():
    # the harness makes the Python stack room once per step for every robot
    from swarmstack.buzz.swarm import Harness

    src = ("function d(n) { if (n == 0) return 0\n return 1 + d(n - 1) }\n"
           "function step() { if (id == 0) { log(d(1990)) } else { d(id * 10000) } }\n")
    h = Harness(src, 2, filename="deep.bzz")
    run = h.run(1)
    assert run.robots[0].logs == ["1990"] and not run.robots[0].failed
    assert run.robots[1].failed
    assert run.robots[1].error.endswith(f"stack overflow: call depth exceeds {MAX_CALL_DEPTH}")
