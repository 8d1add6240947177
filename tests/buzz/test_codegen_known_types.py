"""What generated code assumes about a value's type must hold on every path.

The code generator drops a table check after an access to the same local has proved it a
table, and stores numbers into a table being built without checks. These tests run scripts
where such a proof stops holding (a store in a branch, in a loop, an error half-way) and
where a store reads the key it replaces; each must behave as if every check were made.
"""

from __future__ import annotations

import pytest

from swarmstack.buzz.vm import BuzzVM

PROFILES = ("buzz", "bittybuzz")


def run(src: str, profile: str = "buzz"):
    lines: list[str] = []
    vm = BuzzVM(src, filename="t.bzz", log=lines.append, profile=profile)
    vm.run_top_level()
    return lines, vm


@pytest.mark.parametrize("profile", PROFILES)
def test_store_in_then_branch_invalidates(profile):
    src = """
function f(t, c) {
  var a = t.x
  if (c) { t = 5 }
  return t.y
}
log(f({.x = 1, .y = 2}, 0))
log(f({.x = 1, .y = 2}, 1))
"""
    lines, vm = run(src, profile)
    assert lines == ["2"]
    assert vm.failed and "expected table, got integer" in vm.error.message
    assert (vm.error.line, vm.error.col) == (5, 12)


@pytest.mark.parametrize("profile", PROFILES)
def test_store_in_else_branch_invalidates(profile):
    src = """
function g(t, c) {
  var a = t.x
  if (c) { a = 1 } else { t = 7 }
  return t.y
}
log(g({.x = 1, .y = 3}, 1))
log(g({.x = 1, .y = 3}, 0))
"""
    lines, vm = run(src, profile)
    assert lines == ["3"]
    assert vm.failed and "expected table, got integer" in vm.error.message


@pytest.mark.parametrize("profile", PROFILES)
def test_access_in_one_branch_proves_nothing_after_it(profile):
    src = """
function h(t, c) {
  if (c) { var a = t.x }
  return t.y
}
log(h({.y = 4}, 1))
log(h(3, 0))
"""
    lines, vm = run(src, profile)
    assert lines == ["4"]
    assert vm.failed and "expected table, got integer" in vm.error.message


@pytest.mark.parametrize("profile", PROFILES)
def test_store_later_in_loop_body_invalidates_next_iteration(profile):
    src = """
function k(t) {
  var i = 0
  while (i < 3) {
    log(t.v)
    t = 9
    i = i + 1
  }
}
k({.v = 8})
"""
    lines, vm = run(src, profile)
    assert lines == ["8"]
    assert vm.failed and "expected table, got integer" in vm.error.message


@pytest.mark.parametrize("profile", PROFILES)
def test_store_reading_the_key_it_replaces(profile):
    src = """
function bump(q) {
  var first = q.n
  q.n = q.n + 1
  q.n = q.n * 2
  return q.n
}
log(bump({.n = 3}))
t = {.a = 1, .b = 2}
t.a = t.a + t.b
foreach(t, function(k, v) { log(k, " ", v) })
"""
    lines, _ = run(src, profile)
    assert lines[0] == "8"
    assert sorted(lines[1:]) == ["a 3", "b 2"]


@pytest.mark.parametrize("profile", PROFILES)
def test_constructor_with_repeated_and_nil_keys(profile):
    src = """
t = {.x = 1, .y = nil, .x = 2.5, .z = "s"}
log(size(t), " ", t.x, " ", t.y, " ", t.z)
u = {.x = nil}
log(size(u))
"""
    lines, _ = run(src, profile)
    assert lines == ["2 2.500000 [nil] s", "0"]


def test_inline_stores_keep_the_generic_store_order():
    # the buzz profile stores inline, bittybuzz through the generic helper: same order
    src = """
t = {.k1 = 1, .k2 = 2, .k11 = 3, .k1 = 4, .k21 = 5}
t.k2 = t.k2 + 10
t.k11 = 1.5 * 2
foreach(t, function(k, v) { log(k, "=", v) })
"""
    assert run(src, "buzz")[0] == run(src, "bittybuzz")[0]
    assert len(run(src, "buzz")[0]) == 4


MATH_ARGS = ("0.0", "-0.0", "0.5", "-2.5", "1000.0", "3", "-7", "1.0 / 0.0", "-1.0 / 0.0",
             "0.0 / 0.0", "-(0.0 / 0.0)", "0.00001 * 0.00001 * 0.00001 * 0.00001 * 0.00001 * 0.00001 * 0.00001 * 0.00001", '"s"', "nil", "{}")


@pytest.mark.parametrize("fn", ["sin", "cos", "sqrt"])
def test_inline_math_calls_equal_plain_calls(fn):
    # ``math.f(x)`` is computed inline; calling the same closure through a variable is not
    cases = "\n".join(
        f"t = {x}\nlog(math.{fn}(t))\nlog(call1(math.{fn}, t))" for x in MATH_ARGS
        if x not in ('"s"', "nil", "{}"))
    lines, vm = run(f"function call1(f, x) {{ return f(x) }}\n{cases}\n")
    assert not vm.failed, vm.error
    assert lines[0::2] == lines[1::2] and len(lines) == 2 * (len(MATH_ARGS) - 3)
    for bad in ('"s"', "nil", "{}"):
        a, _ = run(f"math.{fn}({bad})")
        b, _ = run(f"function call1(f, x) {{ return f(x) }}\ncall1(math.{fn}, {bad})")
        _, va = run(f"math.{fn}({bad})")
        _, vb = run(f"function call1(f, x) {{ return f(x) }}\ncall1(math.{fn}, {bad})")
        assert va.failed and vb.failed and va.error.message == vb.error.message


def test_standard_math_functions_are_the_ones_generated_code_inlines():
    from swarmstack.buzz.vm import _profile

    _, vm = run("x = 1")
    helpers = _profile("buzz")[1]
    for name in ("sin", "cos", "sqrt"):
        assert vm.globals["math"][name].direct is helpers[f"_MD_{name}"]


def test_inline_math_respects_a_replaced_function():
    lines, vm = run("""
math.cos = function(x) { return 42 }
log(math.cos(0.5))
math = {.sin = function(x) { return x * 2 }}
log(math.sin(1.5))
""")
    assert lines == ["42", "3.000000"]
