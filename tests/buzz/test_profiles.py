"""Profiles: buzz (32-bit ints, single floats) and bittybuzz (16-bit ints, half floats,
heap and call-depth budgets)."""

import pytest

from swarmstack.buzz import heap as H
from tests.buzz.conftest import ev, run_lines, run_vm

BBZ = {"profile": "bittybuzz"}


@pytest.mark.parametrize("expr,buzz,bbz", [
    ("32767 + 1", "32768", "-32768"),
    ("300 * 300", "90000", "24464"),
    ("-7 / 2", "-3", "-3"),
    ("-7 % 3", "2", "2"),
    ("100000 * 100000", "1410065408", "-7168"),   # literal 100000 wraps to -31072 first
    ("2147483647 + 1", "-2147483648", "0"),
    ("0.1 + 0.2", "0.300000", "0.299805"),        # half precision
    ("1000.3", "1000.299988", "1000.500000"),
    ("70000.0", "70000.000000", "inf"),
])
def test_integer_and_float_width(expr, buzz, bbz):
    assert ev(expr) == buzz
    assert ev(expr, **BBZ) == bbz


def test_integer_division_in_both_profiles():
    for kw in ({}, BBZ):
        assert run_lines("log(17 / 5, ' ', -17 / 5, ' ', 17 % -5)", **kw) == ["3 -3 2"]


def test_bittybuzz_call_depth_limit():
    vm, _ = run_vm("function r(n) { return r(n + 1) }\nr(1)\n", "d.bzz", **BBZ)
    assert vm.failed
    assert f"call depth exceeds {H.BBZ_MAX_CALL_DEPTH}" in vm.error.message
    assert "BBZSTACK_SIZE" in vm.error.message and vm.error.file == "d.bzz"


def test_bittybuzz_moderate_recursion_is_fine():
    assert run_lines("function d(n) { if (n == 0) return 0\n return 1 + d(n - 1) }\nlog(d(20))", **BBZ) == ["20"]


def test_bittybuzz_heap_limit_names_the_limit_and_line():
    src = "t = {}\ni = 0\nwhile (i < 2000) {\n  t[i] = {.v = i}\n  i = i + 1\n}\n"
    vm, _ = run_vm(src, "heap.bzz", **BBZ)
    assert vm.failed
    assert "BBZHEAP_SIZE" in vm.error.message
    assert vm.error.file == "heap.bzz" and vm.error.line == 4


def test_bittybuzz_garbage_does_not_count():
    src = "i = 0\nwhile (i < 3000) {\n  t = {.a = i, .b = 2}\n  i = i + 1\n}\nlog(i)"
    vm, out = run_vm(src, **BBZ)
    assert not vm.failed and out == ["3000"]


def test_heap_model_sizes():
    assert H.table_bytes(0) == H.BBZ_OBJ_BYTES
    assert H.table_bytes(5) == H.BBZ_OBJ_BYTES + H.BBZ_TSEG_BYTES
    assert H.table_bytes(6) == H.BBZ_OBJ_BYTES + 2 * H.BBZ_TSEG_BYTES


def test_vm_profile_attribute():
    vm, _ = run_vm("x = 1", **BBZ)
    assert vm.profile == "bittybuzz"
