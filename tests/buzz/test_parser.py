"""Parser: the reference grammar's precedence and its syntax errors (file:line:col)."""

import pytest

from swarmstack.buzz.errors import BuzzSyntaxError
from swarmstack.buzz.parser import parse
from tests.buzz.conftest import ev, run_lines


def err(src: str) -> BuzzSyntaxError:
    with pytest.raises(BuzzSyntaxError) as e:
        parse(src, "p.bzz")
    return e.value


def test_unary_minus_binds_tighter_than_pow_on_literals():
    assert ev("-2 ^ 2") == "4.000000"


def test_unary_minus_on_a_name_negates_the_whole_power():
    assert run_lines("x = 2\nlog(-x ^ 2)")[0] == "-4.000000"


def test_pow_is_right_associative():
    assert ev("2 ^ 3 ^ 2") == "512.000000"


def test_comparisons_do_not_chain():
    e = err("log(1 < 2 == 1)")
    assert e.location_message() == "p.bzz:1:11: Syntax error: expected ), found == != < <= > >="


def test_exponent_literal_is_a_syntax_error():
    e = err("x = 1e3\n")
    assert e.location_message() == "p.bzz:1:6: Syntax error: expected function call or assignment"


def test_mod_binds_tighter_than_mul_and_bitwise_tighter_than_shift():
    assert ev("2 * 7 % 4") == "6"      # 2 * (7 % 4)
    assert ev("1 << 1 | 2") == "8"     # 1 << (1 | 2); (1 << 1) | 2 would be 2
    assert ev("10 - 2 - 3") == "5"


def test_not_takes_a_whole_condition():
    # not (0 or 1) -> 0 ; (not 0) or 1 would be 1 as well, so use and
    assert ev("not 1 and 0") == "1"  # not (1 and 0)


def test_assignment_takes_an_expression_not_a_comparison():
    e = err("x = 1 < 2")
    assert "expected identifier" in e.message
    assert run_lines("x = (1 < 2)\nlog(x)") == ["1"]


def test_newlines_are_not_significant():
    assert run_lines("x = 1\n+ 2\nlog(x)") == ["3"]


def test_nested_named_function_is_an_error():
    e = err("function f() {\n  function g() {}\n}")
    assert e.line == 2 and "nested within another scope" in e.message


def test_call_cannot_be_assigned():
    assert "function call as lvalue" in err("f() = 3").message


def test_bare_expression_statement_is_an_error():
    assert "expected function call or assignment" in err("x\ny = 1\nx y").message


def test_table_literal_syntax():
    assert run_lines("t = {.a = 1, .2 = 3, .1.5 = 4}\nlog(t.a, t[2], t[1.5])") == ["134"]
    assert "expected .id = expression" in err("t = {a = 1}").message


def test_docstring_after_function_header():
    assert run_lines('function f() "does f" { return 1 }\nlog(f())') == ["1"]


def test_if_else_and_loops_without_braces():
    assert run_lines("x = 0\nwhile (x < 3) x = x + 1\nif (x == 3) log(1) else log(2)") == ["1"]


def test_error_carries_source_line_and_caret():
    e = err("x = 1\ny = (2 + 3\n")
    text = e.pretty()
    assert text.splitlines()[0].startswith("p.bzz:")
    assert "^" in text.splitlines()[-1]


def test_unexpected_eof():
    assert "found end of file" in err("f(").message
