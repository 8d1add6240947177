"""Strings are byte strings, as in the reference: ``string.sub`` may cut a multi-byte
character and keeps its bytes; the pieces join back into the character."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from swarmstack.buzz import bytecode as B
from swarmstack.buzz.compiler import compile_source
from swarmstack.buzz.scanner import decode_source
from swarmstack.buzz.values import bytes_str, canonical, str_bytes
from swarmstack.buzz.vm import BuzzVM
from swarmstack.cli import app


def run(src: str | bytes) -> list[str]:
    if isinstance(src, bytes):
        src = decode_source(src)
    out: list[str] = []
    BuzzVM(src, "s.bzz", log=out.append, raise_errors=True).run_top_level()
    return out


def test_sub_cuts_a_character_into_its_bytes():
    out = run('s = "h\u00e9llo"\n'
              'a = string.sub(s, 0, 2)\nb = string.sub(s, 2, 6)\n'
              'log(string.length(s), " ", string.length(a), " ", string.length(b))\n'
              'log(string.concat(a, b) == s)\n'
              't = {}\nt[s] = 1\nt[string.concat(a, b)] = 2\nlog(size(t), " ", t[s])\n')
    assert out == ["6 2 4", "1", "1 2"]
    assert [str_bytes(x) for x in run('s = "h\u00e9llo"\nlog(string.sub(s, 0, 2))\nlog(string.sub(s, 2))')] \
        == [b"h\xc3", b"\xa9llo"]


def test_log_writes_the_bytes_on_standard_output(tmp_path):
    f = tmp_path / "b.bzz"
    f.write_bytes('s = "\u00e9t\u00e9"\nlog(string.sub(s, 0, 1), "|", string.sub(s, 1))\n'.encode())
    res = CliRunner().invoke(app, ["buzz", "run", str(f), "--steps", "0"])
    assert res.exit_code == 0, res.output
    assert res.stdout_bytes == b"\xc3|\xa9t\xc3\xa9\n"


def test_strings_compare_as_bytes():
    # "\xc3" (one byte) sorts before "é" (c3 a9), whatever the code points say
    out = run(b's = "\xc3\xa9"\nc = string.sub(s, 0, 1)\nlog(c < s, " ", c == "\xc3", " ", s > "z")\n')
    assert out == ["1 1 1"]


def test_bytecode_keeps_bytes_that_are_not_utf8():
    src = decode_source(b'x = "a\xffb"\nlog(x, string.length(x))\n')
    prog = B.decode(B.encode(compile_source(src, "b.bzz")))
    out: list[str] = []
    BuzzVM(None, program=prog, log=out.append).run_top_level()
    assert [str_bytes(x) for x in out] == [b"a\xffb3"]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=12), st.integers(0, 13), st.integers(0, 13))
def test_any_cut_of_any_bytes_joins_back(data, i, j):
    """Every byte string has one ``str`` form: cut anywhere, the pieces join to it."""
    s = bytes_str(data)
    i, j = sorted((min(i, len(data)), min(j, len(data))))
    parts = [bytes_str(data[:i]), bytes_str(data[i:j]), bytes_str(data[j:])]
    assert canonical("".join(parts)) == s
    assert str_bytes(s) == data
