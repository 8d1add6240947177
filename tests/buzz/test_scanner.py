"""Scanner: token kinds, positions, literals, comments and errors."""

import pytest

from swarmstack.buzz import tokens as T
from swarmstack.buzz.errors import BuzzSyntaxError
from swarmstack.buzz.scanner import scan


def kinds(src):
    return [t.kind for t in scan(src)][:-1]


def test_positions_are_one_based_lines_and_columns():
    toks = scan("var x = 1\n  log(x)")
    assert [(t.value, t.line, t.col) for t in toks[:4]] == [("var", 1, 1), ("x", 1, 5), ("=", 1, 7), ("1", 1, 9)]
    log = toks[4]
    assert (log.value, log.line, log.col) == ("log", 2, 3)


def test_keywords_and_operators():
    assert kinds("var if else function return for while and or not nil") == [
        T.VAR, T.IF, T.ELSE, T.FUN, T.RETURN, T.FOR, T.WHILE, T.LANDOR, T.LANDOR, T.LNOT, T.NIL]
    assert kinds("+ - * / % ^ << >> & | ! == != < <= > >= = . , ( ) [ ] { }") == [
        T.ADDSUB, T.ADDSUB, T.MULDIV, T.MULDIV, T.MOD, T.POW, T.LRSHIFT, T.LRSHIFT, T.BANDOR,
        T.BANDOR, T.BNOT, T.CMP, T.CMP, T.CMP, T.CMP, T.CMP, T.CMP, T.ASSIGN, T.DOT, T.LISTSEP,
        T.PAROPEN, T.PARCLOSE, T.IDXOPEN, T.IDXCLOSE, T.BLOCKOPEN, T.BLOCKCLOSE]


def test_statement_ends_and_comments_are_dropped():
    assert kinds("a; b\n# comment ; x\nc") == [T.ID, T.ID, T.ID]


def test_numbers_have_no_exponent_form():
    toks = scan("1e3")
    assert [(t.kind, t.value) for t in toks[:-1]] == [(T.CONST, "1"), (T.ID, "e3")]
    assert [t.value for t in scan("3.25 7")[:-1]] == ["3.25", "7"]


def test_string_escapes_follow_the_reference_decoder():
    # each escape pulls one more character from after the literal, as in the reference
    assert scan(r'"a\tb" x')[0].value == 'a\tb"'
    assert scan(r'"n\\m" x')[0].value == 'n\\m"'
    assert scan(r"'it\'s'")[0].value == "it's'"
    assert scan(r'"q\qr\zs", 1')[0].value == 'qqrzs",'
    assert scan("'plain'")[0].value == "plain"


def test_quote_after_double_backslash_closes_the_string():
    toks = scan(r'"a\\" b')
    assert toks[0].kind == T.STRING and toks[1].value == "b"


def test_identifiers_cannot_start_with_underscore():
    with pytest.raises(BuzzSyntaxError) as e:
        scan("_x = 1", "f.bzz")
    assert e.value.location_message().startswith("f.bzz:1:1: Syntax error: unknown character")


def test_unterminated_string_is_located():
    with pytest.raises(BuzzSyntaxError) as e:
        scan('x = 1\ny = "abc', "f.bzz")
    assert (e.value.line, e.value.col) == (2, 5)
    assert "closing quote" in e.value.message


def test_include_directive():
    toks = scan('include "vec2.bzz"\nx')
    assert (toks[0].kind, toks[0].value) == (T.INCLUDE, "vec2.bzz")
    with pytest.raises(BuzzSyntaxError):
        scan("include x")
