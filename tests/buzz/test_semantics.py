"""Language semantics, one test per construct, and every fact of buzz-spec.md."""

import pytest

from tests.buzz.conftest import ev, run_lines, run_vm


# ---------------------------------------------------------------- arithmetic facts
@pytest.mark.parametrize("expr,out", [
    ("100000 * 100000", "1410065408"),      # 32-bit wrap
    ("2147483647 + 1", "-2147483648"),
    ("-2147483648 - 1", "2147483647"),
    ("-7 / 2", "-3"),                        # truncation toward zero
    ("7 / -2", "-3"),
    ("-7 % 3", "2"),                         # negative left -> non-negative
    ("7 % 3", "1"),
    ("2 ^ 10", "1024.000000"),               # ^ always float
    ("1 + 2.5", "3.500000"),                 # mixed -> float
    ("7 / 2.0", "3.500000"),
    ("1.0 == 1", "1"),
    ("3 > 2", "1"),
    ("3 < 2", "0"),
    ("1 and 0", "0"),
    ("nil or 2", "1"),
    ("not nil", "1"),
    ("not 0.0", "0"),                        # only nil and integer 0 are false
    ("-2 ^ 2", "4.000000"),
    ("2 ^ 3 ^ 2", "512.000000"),
    ("6 & 3", "2"), ("6 | 3", "7"), ("!0", "-1"), ("1 << 4", "16"), ("-16 >> 2", "-4"),
    ("0.1 + 0.2", "0.300000"),
])
def test_arithmetic_and_logic_facts(expr, out):
    assert ev(expr) == out


def test_floats_are_single_precision_like_the_reference():
    assert ev("16777216.0 + 1.0") == "16777216.000000"
    assert ev("1234567.89") == "1234567.875000"


def test_unary_minus_wraps():
    assert run_lines("x = -2147483648\nlog(-x)") == ["-2147483648"]


def test_division_by_zero_is_an_error_for_integers_inf_for_floats():
    assert ev("1.0 / 0") == "inf"
    vm, _ = run_vm("log(1 / 0)")
    assert vm.failed and "division by zero" in vm.error.message


def test_arithmetic_type_errors():
    vm, _ = run_vm('x = "a" + 1')
    assert vm.failed and vm.error.message.startswith("type mismatch")
    vm, _ = run_vm("x = nil * 2")
    assert vm.failed


# ---------------------------------------------------------------- comparisons
@pytest.mark.parametrize("expr,out", [
    ('"abc" < "abd"', "1"), ('"b" > "abc"', "1"), ('"x" == "x"', "1"),
    ('1 == "1"', "1"),               # numbers compare with strings as their printed form
    ('"10" < 9', "1"),               # "10" < "9" as strings
    ('2.5 == "2.500000"', "1"),
    ("nil == nil", "1"), ("nil < 0", "1"), ("0 > nil", "1"),
    ("1 < 1.5", "1"), ("2 != 2.0", "0"),
])
def test_comparisons(expr, out):
    assert ev(expr) == out


def test_table_comparison_is_identity():
    assert run_lines("a = {}\nb = {}\nlog(a == a, a == b, a != b)") == ["101"]


# ---------------------------------------------------------------- nil and tables
def test_nil_in_tables_and_size():
    out = run_lines("t = {.a = 1, .b = 2}\nt.c = nil\nlog(size(t))\nt.a = nil\nlog(size(t), t.a)")
    assert out == ["2", "1[nil]"]


def test_table_keys_numbers_and_strings():
    out = run_lines('t = {}\nt[1] = "i"\nt[1.0] = "f"\nt["k"] = 3\nlog(size(t), t[1], t.k)')
    assert out == ["2f3"]


def test_nil_key_is_an_error():
    vm, _ = run_vm("t = {}\nt[nil] = 1")
    assert vm.failed and "can't be used as table key" in vm.error.message


def test_indexing_nil_is_an_error():
    vm, _ = run_vm("x = nil\ny = x.f")
    assert vm.error.message == "type mismatch: expected table, got nil"


def test_unknown_global_is_nil():
    assert ev("undefined_thing") == "[nil]"


# ---------------------------------------------------------------- variables and scope
def test_var_inside_function_is_local():
    src = "x = 1\nfunction f() { var x = 2 return x }\nlog(f(), x)"
    assert run_lines(src) == ["21"]


def test_assignment_without_var_in_function_is_global():
    assert run_lines("function f() { y = 5 }\nf()\nlog(y)") == ["5"]


def test_block_locals_are_removed_at_block_end():
    src = "function f() {\n if (1) { var a = 3 }\n return a\n}\na = 9\nlog(f())"
    assert run_lines(src) == ["9"]


def test_duplicated_local_is_a_compile_error():
    from swarmstack.buzz.compiler import compile_source
    from swarmstack.buzz.errors import BuzzSyntaxError
    with pytest.raises(BuzzSyntaxError) as e:
        compile_source("function f() { var a = 1\n var a = 2 }", "d.bzz")
    assert e.value.location_message() == "d.bzz:2:6: Duplicated symbol 'a'"


def test_functions_are_registered_before_the_top_level_runs():
    assert run_lines("log(later())\nfunction later() { return 7 }") == ["7"]


# ---------------------------------------------------------------- control flow
def test_if_else():
    assert run_lines("if (0) { log(1) } else { log(2) }\nif (nil) log(3)\nif (0.0) log(4)") == ["2", "4"]


def test_while_and_for():
    out = run_lines("s = 0\nfor (i = 0, i < 5, i = i + 1) { s = s + i }\nlog(s, i)\n"
                    "n = 3\nwhile (n > 0) { n = n - 1 }\nlog(n)")
    assert out == ["105", "0"]


def test_return_without_value_and_default_return():
    assert run_lines("function f() { return }\nfunction g() { }\nlog(f(), g())") == ["[nil][nil]"]


def test_recursion():
    src = "function fact(n) { if (n <= 1) return 1\n return n * fact(n - 1) }\nlog(fact(10))"
    assert run_lines(src) == ["3628800"]


def test_logic_operators_evaluate_both_sides():
    src = "c = 0\nfunction f() { c = c + 1 return 1 }\nx = (0 and f())\ny = (1 or f())\nlog(c)"
    assert run_lines(src) == ["2"]


# ---------------------------------------------------------------- closures
def test_counter_closure_returns_one_every_call():
    src = ("function mk() { var n = 0\n return function() { n = n + 1 return n } }\n"
           "c = mk()\nlog(c(), c(), c())")
    assert run_lines(src) == ["111"]


def test_closure_sees_value_at_creation():
    src = ("function mk() { var v = 1\n var f = function() { return v }\n v = 2\n return f }\n"
           "log(mk()())")
    assert run_lines(src) == ["1"]


def test_closures_capture_loop_variable_values():
    src = ("function mk() {\n var fs = {}\n var i = 0\n while (i < 3) { fs[i] = function() { return i }\n"
           " i = i + 1 }\n return fs }\nfs = mk()\nlog(fs[0](), fs[1](), fs[2]())")
    assert run_lines(src) == ["012"]


def test_globals_are_shared_with_closures():
    src = "g = 1\nf = function() { return g }\ng = 2\nlog(f())"
    assert run_lines(src) == ["2"]


def test_lambda_arguments_and_extra_arguments_are_ignored():
    assert run_lines("f = function(a, b) { return a + b }\nlog(f(1, 2, 3))") == ["3"]


def test_missing_arguments_are_an_error_only_when_read():
    # as in the reference: a call may pass fewer arguments; reading a missing one fails
    vm, out = run_vm("f = function(a, b) { return a }\nlog(f(1))\ng = function(a, b) { return b }\nlog(g(1))")
    assert out == ["1"]
    assert vm.failed and vm.error.message.startswith("wrong number of local variables: not enough local symbols")
    assert vm.error.line == 3


def test_missing_argument_can_be_assigned_before_use():
    assert run_lines("function f(a, b) { b = 2 return a + b }\nlog(f(1))") == ["3"]


# ---------------------------------------------------------------- self
def test_self_is_bound_when_a_closure_is_stored_in_a_table():
    src = ("t = {.v = 5, .get = function() { return self.v }}\nlog(t.get())\n"
           "u = {.v = 7}\nu.get = t.get\nlog(u.get())\ng = t.get\nlog(g())")
    assert run_lines(src) == ["5", "7", "5"]


def test_named_function_self_is_nil_until_stored():
    src = "function f() { return self }\nlog(f())\nt = {}\nt.f = f\nlog(t.f() == t)"
    assert run_lines(src) == ["[nil]", "1"]


def test_calling_nil_reports_the_reference_message():
    vm, out = run_vm('log("before")\nnothing()', "e.bzz")
    assert out == ["before"]
    # the reference prints runtime errors as FILE:LINE:COL : message
    assert str(vm.error) == "e.bzz:2:1 : type mismatch: expected closure, got nil"


def test_long_and_deeply_nested_expressions():
    src = ("function f(a) { return a }\nx = 1\ny = " + " + ".join(["x"] * 300) + "\nlog(y)\n"
           "log(" + "(" * 60 + "1" + " + 1)" * 60 + ")\n"
           "z = " + "f(" * 40 + "1" + ")" * 40 + "\nlog(z)\n")
    assert run_lines(src) == ["300", "61", "1"]


def test_absurdly_deep_nesting_is_a_syntax_error_not_a_crash():
    from swarmstack.buzz.errors import BuzzSyntaxError
    with pytest.raises(BuzzSyntaxError):
        run_lines("x = " + "(" * 3000 + "1" + ")" * 3000)


def test_wrap_at_both_ends_with_constant_operands():
    src = ("x = 2147483647\ny = -2147483648\n"
           "log(x + 1, ' ', x - -1, ' ', y - 1, ' ', y + -1, ' ', x + 0, ' ', y - 0, ' ', x - 5, ' ', y + 5)")
    assert run_lines(src) == ["-2147483648 -2147483648 2147483647 2147483647 2147483647 -2147483648 "
                              "2147483642 -2147483643"]
    assert run_lines("x = 32767\ny = -32768\nlog(x + 1, ' ', y - 1)", profile="bittybuzz") == ["-32768 32767"]


def test_lambda_parameter_named_like_an_enclosing_local_reuses_its_slot():
    # As in the reference: the parameter shares the captured local's slot, so the captured
    # value is what the body sees.
    src = "function f(x) {\n  var g = function(x) { return x }\n  return g(5)\n}\nlog(f(1))"
    assert run_lines(src) == ["1"]


def test_local_lambda_cannot_call_itself_through_its_own_variable():
    src = "function f() {\n  var r = function(n) { return r }\n  return r(1)\n}\nlog(f())"
    assert run_lines(src) == ["[nil]"]


def test_lambda_redeclaring_an_enclosing_local_is_a_compile_error():
    from swarmstack.buzz.compiler import compile_source
    from swarmstack.buzz.errors import BuzzSyntaxError
    with pytest.raises(BuzzSyntaxError, match="Duplicated symbol 'i'"):
        compile_source("function f() { var i = 0\n g = function() { var i = 1 } }")


def test_top_level_block_variables_are_block_local():
    src = "if (1) {\n  var a = 4\n  f = function() { return a }\n}\nlog(a, f())"
    assert run_lines(src) == ["[nil]4"]
