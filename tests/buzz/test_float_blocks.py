"""Arithmetic trees over variables equal the operators applied one by one.

Generated code of the buzz profile computes a tree of two or more operators in one block
guarded by a single "every variable is a float" test (see ``codegen``); a zero divisor or a
NaN power hands over to the per-operator code. Here random trees over four variables (and
numeric constants) run as Buzz functions and must give, bit for bit, what the runtime's
operator helpers give when applied one operator at a time -- or the same error.
"""

from __future__ import annotations

import math
import struct

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarmstack.buzz.errors import BuzzRaise, BuzzRuntimeError
from swarmstack.buzz.runtime import Profile, make_helpers
from swarmstack.buzz.vm import BuzzVM

PROF = Profile("buzz")
H = make_helpers(PROF)
OPS = {"+": "_add", "-": "_sub", "*": "_mul", "/": "_div"}
VARS = ("a", "b", "c", "d")
CONSTS = (0, 1, 2, 3, 0.5, 2.0, 0.0, 100.0)

values = st.one_of(
    st.sampled_from((0.0, -0.0, math.inf, -math.inf, math.nan, -math.nan, 1.5, -2.25, 3.4e38,
                     1e-45, 0.1, 7, 0, -3, 2147483647, -2147483648)),
    st.floats(width=32, allow_nan=True, allow_infinity=True),
    st.integers(-50, 50),
)


def leaves():
    return st.one_of(st.sampled_from(VARS).map(lambda v: ("var", v)),
                     st.sampled_from(CONSTS).map(lambda c: ("const", c)))


def trees():
    return st.recursive(leaves(), lambda sub: st.one_of(
        st.tuples(st.just("bin"), st.sampled_from(sorted(OPS)), sub, sub),
        st.tuples(st.just("pow"), sub, st.sampled_from((0, 1, 2, 3, 4, 8, 2.0, 0.5))),
        st.tuples(st.just("neg"), sub)), max_leaves=10)


def render(t) -> str:
    if t[0] == "var":
        return t[1]
    if t[0] == "const":
        return repr(t[1]) if isinstance(t[1], float) else str(t[1])
    if t[0] == "neg":
        return f"(-{render(t[1])})"
    if t[0] == "pow":
        k = t[2]
        return f"({render(t[1])} ^ {repr(k) if isinstance(k, float) else k})"
    return f"({render(t[2])} {t[1]} {render(t[3])})"


def evaluate(t, env):
    if t[0] == "var":
        return env[t[1]]
    if t[0] == "const":
        c = t[1]
        return PROF.fround(c) if isinstance(c, float) else c
    if t[0] == "neg":
        return H["_unm"](evaluate(t[1], env))
    if t[0] == "pow":
        k = t[2]
        return H["_pow"](evaluate(t[1], env), PROF.fround(k) if isinstance(k, float) else k)
    a = evaluate(t[2], env)
    b = evaluate(t[3], env)
    return H[OPS[t[1]]](a, b)


def key(v):
    # Which NaN an operation on two NaNs returns is the machine's choice, and CPython's
    # specialised float operations may make the other one than its generic ones: NaNs
    # compare as NaN here (test_fast_paths checks NaN signs operator by operator)
    if v.__class__ is float and v != v:
        return ("f", "nan")
    return ("f", struct.pack("<d", v)) if v.__class__ is float else (type(v).__name__, v)


def as_value(v):
    return PROF.wrap(v) if v.__class__ is int else PROF.fround(v)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(trees(), min_size=1, max_size=6), st.lists(values, min_size=4, max_size=4))
def test_trees_match_operators_one_by_one(exprs, vals):
    env = dict(zip(VARS, (as_value(v) for v in vals)))
    src = "\n".join(f"function e{i}(a, b, c, d) {{ return {render(e)} }}" for i, e in enumerate(exprs))
    vm = BuzzVM(src, filename="trees.bzz", log=lambda s: None, raise_errors=True)
    vm.run_top_level()
    for i, e in enumerate(exprs):
        try:
            want = ("ok", key(evaluate(e, env)))
        except BuzzRaise as err:
            want = ("err", err.message)
        try:
            got = ("ok", key(vm.call(f"e{i}", *(env[v] for v in VARS))))
        except BuzzRuntimeError as err:
            got = ("err", err.message)
            vm = BuzzVM(src, filename="trees.bzz", log=lambda s: None, raise_errors=True)
            vm.run_top_level()
        assert got == want, (render(e), env)


def test_float_block_errors_point_at_the_failing_operator():
    # a string operand fails the float test: the per-operator code reports the operator
    src = "function f(a, b) {\n  return a * 2.0 + -(b / a)\n}\n"
    vm = BuzzVM(src, filename="t.bzz", log=lambda s: None)
    vm.run_top_level()
    assert vm.call("f", 2.0, 1.0) == -0.5 + 4.0
    vm.call("f", "s", 1.0)
    assert vm.failed and "expected numeric operands, got string and float" in vm.error.message
    assert (vm.error.line, vm.error.col) == (2, 12)


def test_a_nan_operand_keeps_its_sign_through_a_float_block():
    # one NaN variable among finite ones (no operator meets two NaNs, whose pick is the
    # machine's): the result is that NaN, negated where the tree negates it, bit for bit
    # what the operators give one by one
    src = ("function f(a, b) { return -(a ^ 2) * b + b ^ 4 }\n"
           "function g(a, b) { return (b - a) / (b * 2.0) ^ 3 }\n")
    vm = BuzzVM(src, filename="nan.bzz", log=lambda s: None, raise_errors=True)
    vm.run_top_level()
    for a in (math.nan, -math.nan):
        env = {"a": as_value(a), "b": as_value(1.5)}
        for name, tree in (("f", ("bin", "+", ("bin", "*", ("neg", ("pow", ("var", "a"), 2)), ("var", "b")),
                                  ("pow", ("var", "b"), 4))),
                           ("g", ("bin", "/", ("bin", "-", ("var", "b"), ("var", "a")),
                                  ("pow", ("bin", "*", ("var", "b"), ("const", 2.0)), 3)))):
            want = struct.pack("<d", evaluate(tree, env))
            got = struct.pack("<d", vm.call(name, env["a"], env["b"]))
            assert got == want, (name, a)
