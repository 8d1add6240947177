"""Bad input never gives a Python traceback: every tool reports a located error or works.

Invalid UTF-8, nesting deeper than the limits, chains of any length, huge numeric literals,
and a fuzz of mutated scripts through ``swarmstack buzz check`` and ``swarmstack buzz run``.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from swarmstack.buzz.codegen import MAX_BLOCKS, MAX_LOOPS
from swarmstack.buzz.compiler import compile_source
from swarmstack.buzz.errors import BuzzSyntaxError
from swarmstack.buzz.parser import MAX_NESTING
from swarmstack.buzz.vm import BuzzVM
from swarmstack.cli import app

ROOT = Path(__file__).resolve().parents[2]
LOCATED = re.compile(r"\S+:\d+:\d+ ?: ")


def cli(*args: str):
    return CliRunner().invoke(app, ["buzz", *args])


def write(tmp_path: Path, data: bytes, name: str = "s.bzz") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


# ---------------------------------------------------------------- invalid UTF-8
def test_a_bad_byte_outside_strings_is_a_located_error_in_every_tool(tmp_path):
    f = write(tmp_path, b"x = 1\ny = 2 \xff 3\n")
    expected = f"{f}:2:7: Syntax error: unknown character '\\xff' (byte 0xff, not valid UTF-8)"
    for args in (["check", str(f)], ["run", str(f)], ["compile", str(f), "-o", str(tmp_path / "o.bbo")],
                 ["size", str(f)], ["disasm", str(f)]):
        res = cli(*args)
        assert res.exit_code == 1, (args, res.output)
        assert res.exception is None or isinstance(res.exception, SystemExit)
        assert expected in res.output, (args, res.output)
        assert "Traceback" not in res.output


def test_a_bad_byte_in_an_included_file_is_located_there(tmp_path):
    write(tmp_path, b"a = 1\nb = \xc3(\n", "lib.bzz")
    f = write(tmp_path, b'include "lib.bzz"\nlog(a)\n')
    for cmd in ("check", "run"):
        res = cli(cmd, str(f))
        assert res.exit_code == 1
        assert re.search(r"lib\.bzz:2:5: Syntax error: unknown character '\\xc3' \(byte 0xc3", res.output)


def test_bad_bytes_in_strings_and_comments_are_kept_and_skipped_as_the_reference_does(tmp_path):
    # the reference lexer copies a string's bytes and skips a comment's, whatever they are
    f = write(tmp_path, b'# caf\xe9 \xff\nlog("a\xffb", string.length("\xc3\xa9\xff"))\n')
    res = cli("check", str(f))
    assert res.exit_code == 0, res.output
    res = cli("run", str(f), "--steps", "0")
    assert res.exit_code == 0, res.output
    assert res.stdout_bytes == b"a\xffb3\n"


def test_a_valid_non_ascii_character_outside_strings_is_named():
    with pytest.raises(BuzzSyntaxError, match=r"unknown character 'é' \(U\+00E9\)"):
        compile_source("x = \u00e9\n", "u.bzz")
    with pytest.raises(BuzzSyntaxError, match=r"unknown character '\$' \(octal: 44; hex: 24\)"):
        compile_source("x = $\n", "u.bzz")


def test_a_source_line_with_a_bad_byte_prints_escaped_with_the_caret_under_the_error():
    from swarmstack.buzz.scanner import decode_source
    try:
        compile_source(decode_source(b'x = "\xff" $\n'), "c.bzz")
    except BuzzSyntaxError as e:
        text = e.pretty()
    line, caret = text.splitlines()[1:3]
    assert line == 'x = "\\xff" $'
    assert caret.index("^") == line.index("$")


# ---------------------------------------------------------------- nesting and chains
@pytest.mark.parametrize("make", [
    lambda n: "x = " + "(" * n + "1" + ")" * n,
    lambda n: "function f(a) { return a }\nx = " + "f(" * n + "1" + ")" * n,
    lambda n: "t = {}\nt[0] = 0\nx = " + "t[" * n + "0" + "]" * n,
    lambda n: "x = " + "-" * n + "1",
    lambda n: "x = " + "!" * n + "1",
    lambda n: "y = 2\nx = " + "^".join(["y"] * (n + 1)),
    lambda n: "if (" + "not " * n + "1) { x = 1 }",
    lambda n: "x = " + "{.a = " * n + "1" + "}" * n,
    lambda n: "x = " + "function() { return " * n + "1" + "}" * n,
], ids=["parens", "calls", "index", "minus", "bnot", "power", "not", "tables", "lambdas"])
def test_nesting_past_the_limit_is_a_located_error_and_below_it_works(make):
    ok = make(MAX_NESTING // 2 - 5)
    vm = BuzzVM(ok, "n.bzz", log=lambda s: None)
    vm.run_top_level()
    assert vm.error is None or vm.error.message.startswith("type mismatch")
    with pytest.raises(BuzzSyntaxError, match=r"nested too deeply") as e:
        compile_source(make(MAX_NESTING + 5), "n.bzz")
    assert e.value.file == "n.bzz" and e.value.line >= 1 and e.value.col >= 1


@pytest.mark.parametrize("src,expect", [
    ("x = " + " + ".join(["1"] * 20000) + "\nlog(x)", "20000"),
    ("y = 1.5\nx = " + " * ".join(["y"] * 3000) + "\nlog(x)", "inf"),
    ("t = {}\nt.a = t\nx = t" + ".a" * 5000 + "\nlog(size(x))", "1"),
    ("t = {}\nt[0] = t\nx = t" + "[0]" * 5000 + "\nlog(size(x))", "1"),
    ("function f() { return f }\nx = f" + "()" * 5000 + "\nlog(x == f)", "1"),
    ("y = 1\nif (" + " and ".join(["y"] * 5000) + ") { log(7) }", "7"),
])
def test_chains_of_any_length_compile_and_run(src, expect):
    out: list[str] = []
    vm = BuzzVM(src, "c.bzz", log=out.append)
    vm.run_top_level()
    assert vm.error is None and out == [expect]


def test_blocks_and_loops_nested_past_the_code_generator_limits_are_located_errors(tmp_path):
    deep_ifs = "if (1) {\n" * (MAX_BLOCKS + 1) + "x = 1\n" + "}\n" * (MAX_BLOCKS + 1)
    deep_loops = "".join(f"i{k} = 0\nwhile (i{k} < 1) {{\ni{k} = i{k} + 1\n" for k in range(MAX_LOOPS + 1)) \
        + "}\n" * (MAX_LOOPS + 1)
    for src, what, line in ((deep_ifs, "blocks", MAX_BLOCKS + 1), (deep_loops, "loops", 3 * MAX_LOOPS + 2)):
        f = write(tmp_path, src.encode())
        for cmd in ("check", "run"):
            res = cli(cmd, str(f))
            assert res.exit_code == 1, res.output
            assert f"{f}:{line}:1: Syntax error: {what} nested too deeply" in res.output
        with pytest.raises(BuzzSyntaxError, match=f"{what} nested too deeply"):
            BuzzVM(src, "d.bzz")
    # as deep as allowed runs
    ok = "if (1) {\n" * MAX_BLOCKS + "log(1)\n" + "}\n" * MAX_BLOCKS
    assert cli("run", str(write(tmp_path, ok.encode()))).stdout == "1\n"


def test_a_long_else_if_chain_is_not_nesting():
    n = 3 * MAX_BLOCKS
    src = ("function f(s) {\n  if (s == 0) { return 0 }\n"
           + "".join(f"  else if (s == {k}) {{ return {k * 10} }}\n" for k in range(1, n))
           + "  else { return -1 }\n}\nlog(f(1), ' ', f(%d), ' ', f(%d))\n" % (n - 1, n))
    out: list[str] = []
    vm = BuzzVM(src, "e.bzz", log=out.append)
    vm.run_top_level()
    assert vm.error is None and out == [f"10 {(n - 1) * 10} -1"]


def test_an_else_holding_more_than_an_if_keeps_its_statements_in_the_else():
    out: list[str] = []
    BuzzVM("function h(x) { if (x) { y = 1 } else { if (x == nil) { y = 2 } z = 3 } }\n"
           "h(0)\nlog(y, ' ', z)\nh(1)\nlog(y)\n", "e.bzz", log=out.append).run_top_level()
    assert out == ["[nil] 3", "1"]


# ---------------------------------------------------------------- numeric literals
@pytest.mark.parametrize("literal,expect", [
    ("4294967295", "-1"), ("4294967296", "0"), ("2147483648", "-2147483648"),
    ("-2147483648", "-2147483648"), ("18446744073709551615", "-1"),
    ("18446744073709551616", "-1"),   # strtoul saturates at ULONG_MAX
    ("-18446744073709551615", "1"),    # a negative literal wraps modulo 2^64
    ("9" * 5000, "-1"), ("-" + "9" * 5000, "-1"), ("0" * 5000 + "7", "7"),
    ("1" * 5000 + ".5", "inf"), ("0." + "0" * 5000 + "1", "0.000000"), ("1.2.3", "1.200000"),
])
def test_numeric_literals_convert_as_the_reference_assembler_does(literal, expect):
    out: list[str] = []
    BuzzVM(f"log({literal})\n", "l.bzz", log=out.append).run_top_level()
    assert out == [expect]


def test_a_table_key_literal_converts_the_same_way():
    out: list[str] = []
    BuzzVM("t = {.4294967296 = 5}\nlog(t[0])\n", "l.bzz", log=out.append).run_top_level()
    assert out == ["5"]


# ---------------------------------------------------------------- fuzz
def _seed_scripts(loop_free: bool) -> list[bytes]:
    paths = sorted((ROOT / "tests" / "buzz" / "reference").glob("*.bzz")) + \
        sorted((ROOT / "examples" / "buzz").glob("*.bzz"))
    out = []
    for p in paths:
        data = p.read_bytes()
        if loop_free and (re.search(rb"\b(while|for|include)\b", data) or b"fib" in data):
            continue
        out.append(data)
    return out


CHECK_SEEDS = _seed_scripts(loop_free=False)
# run executes the script: seeds with no loops (a mutation cannot write a `while` into them),
# so that every mutant ends
RUN_SEEDS = _seed_scripts(loop_free=True)
TOKENS = [b"(", b")", b"{", b"}", b"[", b"]", b",", b".", b"=", b"==", b"+", b"-", b"*", b"/",
          b"^", b"!", b"not ", b"and", b"var ", b"function", b"return", b"if", b"else", b"nil",
          b'"', b"'", b"#", b"\n", b"\\", b"include \"x.bzz\"", b"\xff", b"\xc3", b"\xe9\x80",
          b"\x00", b"9" * 40, b"1" * 6000, b"0.5e3", b"x", b"log(", b"math.sin(", b";"]


@st.composite
def mutants(draw, seeds: list[bytes]):
    data = bytearray(draw(st.sampled_from(seeds)))
    rng = random.Random(draw(st.integers(0, 2 ** 32 - 1)))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "truncate", "shuffle", "nest", "huge"]))
        pos = rng.randrange(len(data) + 1)
        if kind == "flip" and data:
            data[min(pos, len(data) - 1)] ^= 1 << rng.randrange(8)
        elif kind == "insert":
            data[pos:pos] = rng.choice(TOKENS)
        elif kind == "delete":
            del data[pos:pos + rng.randrange(1, 12)]
        elif kind == "truncate":
            del data[pos:]
        elif kind == "shuffle":
            parts = re.split(rb"(\s+)", bytes(data))
            words = parts[0::2]
            rng.shuffle(words)
            parts[0::2] = words
            data = bytearray(b"".join(parts))
        elif kind == "nest":
            depth = rng.choice([MAX_NESTING - 2, MAX_NESTING + 3, MAX_BLOCKS + 2, MAX_LOOPS + 1, 3000])
            opener, closer = rng.choice([(b"(", b")"), (b"f(", b")"), (b"t[", b"]"), (b"-", b""),
                                         (b"{.a=", b"}"), (b"if(1){", b"}"), (b"1+", b"")])
            data[pos:pos] = b"\nx = " + opener * depth + b"1" + closer * depth + b"\n"
        else:
            huge = rng.choice([b"9" * 5000, b"1" * 5000 + b".5", b"-" + b"7" * 400])
            data[pos:pos] = b"\nx = " + huge + b"\n"
    return bytes(data)


def _assert_clean(res, path: Path) -> None:
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.output
    assert res.exit_code in (0, 1), res.output
    if res.exit_code:
        assert LOCATED.search(res.output), res.output


def fuzz(n: int):
    return settings(max_examples=n, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.data_too_large])


@fuzz(250)
@given(mutants(CHECK_SEEDS))
def test_fuzz_check_reports_located_errors_only(tmp_path, data):
    f = write(tmp_path, data, "fuzz.bzz")
    _assert_clean(cli("check", str(f)), f)


@fuzz(150)
@given(mutants(RUN_SEEDS))
def test_fuzz_run_reports_located_errors_only(tmp_path, data):
    f = write(tmp_path, data, "fuzz.bzz")
    _assert_clean(cli("run", str(f), "--robots", "2", "--steps", "2"), f)
