"""Buzz scanner: source text -> list of tokens with 1-based line and column.

Follows the reference lexer's rules: identifiers start with a letter (not ``_``); numbers
are a digit followed by digits and dots (no exponent: ``1e3`` scans as ``1`` then ``e3``);
strings use ``'`` or ``"`` with the escapes ``\\n``, ``\\t``, ``\\\\`` and ``\\x`` -> ``x`` (decoded
with the reference's quirk, see ``_decode``);
``#`` starts a comment; ``include "file"`` is a directive. Statement ends (newline, ``;``)
are dropped: the reference parser skips them everywhere, so the grammar never sees them.

A script is bytes, as for the reference lexer: :func:`read_source` / :func:`decode_source`
turn them into text once, for every tool alike (``check``, ``run``, ``include`` ...). Valid
UTF-8 reads as characters; any other byte is kept as a lone surrogate (see
``swarmstack.buzz.values``), so that inside a string literal or a comment it is kept or
skipped as the reference does, and anywhere else it is a located error naming the byte.
"""

from __future__ import annotations

import re

from swarmstack.buzz import tokens as T
from swarmstack.buzz.errors import BuzzSyntaxError, source_line
from swarmstack.buzz.values import canonical

_SINGLE = {
    "{": T.BLOCKOPEN, "}": T.BLOCKCLOSE, "(": T.PAROPEN, ")": T.PARCLOSE,
    "[": T.IDXOPEN, "]": T.IDXCLOSE, ",": T.LISTSEP, ".": T.DOT,
    "+": T.ADDSUB, "-": T.ADDSUB, "*": T.MULDIV, "/": T.MULDIV, "%": T.MOD, "^": T.POW,
    "&": T.BANDOR, "|": T.BANDOR, "=": T.ASSIGN, "!": T.BNOT, "<": T.CMP, ">": T.CMP,
}
_DOUBLE = {"==": T.CMP, "!=": T.CMP, "<=": T.CMP, ">=": T.CMP, "<<": T.LRSHIFT, ">>": T.LRSHIFT}
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\"}
_NUMBER = re.compile(r"[0-9][0-9.]*")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


def decode_source(data: bytes) -> str:
    """A script's bytes as the scanner's text (never fails: see the module docstring)."""
    return data.decode("utf-8", "surrogateescape")


def read_source(path) -> str:
    """Read a script file as :func:`decode_source` gives it (``OSError`` if unreadable)."""
    with open(path, "rb") as fh:
        return decode_source(fh.read())


def describe_char(c: str) -> str:
    """How a syntax error names a character it cannot take."""
    o = ord(c)
    if 0xDC80 <= o <= 0xDCFF:  # a byte that is not UTF-8
        return f"'\\x{o - 0xDC00:02x}' (byte 0x{o - 0xDC00:02x}, not valid UTF-8)"
    if o < 128:
        shown = c if c.isprintable() else f"\\x{o:02x}"
        return f"'{shown}' (octal: {o:o}; hex: {o:x})"
    return f"{c!r} (U+{o:04X})"


def _decode(source: str, start: int, end: int) -> str:
    """The string literal ``source[start:end]`` with escapes resolved, as the reference does.

    Reference quirk, kept so logged output matches: the decoder walks as many *characters*
    as the raw literal has, but an escape consumes two, so each escape pulls in one more
    character from after the literal (its closing quote, then what follows): ``"a\\tb"``
    reads as ``a<TAB>b"``. The reference's buffer ends with a newline and a NUL.
    """
    n = len(source)

    def at(k: int) -> str:
        return source[k] if k < n else ("\n" if k == n else "\0")

    out = []
    p = start
    for _ in range(end - start):
        c = at(p)
        if c == "\\":
            p += 1
            c = at(p)
            out.append(_ESCAPES.get(c, c))
        else:
            out.append(c)
        p += 1
    text = "".join(out).split("\0", 1)[0]
    return text if text.isascii() else canonical(text)  # an escape may join a byte pair


def scan(source: str, filename: str = "<script>") -> list[T.Token]:
    """Tokenise ``source``; raises :class:`BuzzSyntaxError` on the first bad character."""
    toks: list[T.Token] = []
    append = toks.append
    i, n = 0, len(source)
    line, line_start = 1, 0

    def err(l: int, c: int, msg: str) -> BuzzSyntaxError:
        return BuzzSyntaxError(filename, l, c, msg, source_line(source, l))

    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            line_start = i + 1
            i += 1
            continue
        if c in " \t\r;":
            i += 1
            continue
        if c == "#":
            while i < n and source[i] != "\n":
                i += 1
            continue
        col = i - line_start + 1
        if c == "i" and source.startswith("include", i):
            j = i + 7
            while j < n and source[j] in " \t\r":
                j += 1
            if j >= n or source[j] not in "'\"":
                raise err(line, j - line_start + 1, "Syntax error: expected string after include")
            q = source[j]
            k = j + 1
            while k < n and source[k] != q and source[k] != "\n":
                k += 1
            if k >= n or source[k] == "\n":
                raise err(line, k - line_start + 1, "Syntax error: expected end of string")
            append(T.Token(T.INCLUDE, source[j + 1:k], line, col, filename))
            i = k + 1
            continue
        if c.isascii() and c.isalnum():  # a number, or a keyword or identifier
            number = c.isdigit()
            m = (_NUMBER if number else _WORD).match(source, i)
            word = m.group()
            append(T.Token(T.CONST if number else T.KEYWORDS.get(word, T.ID), word, line, col, filename))
            i = m.end()
            continue
        kind = _SINGLE.get(c)
        if kind is not None:
            if c in "=!<>" and source[i:i + 2] in _DOUBLE:
                c = source[i:i + 2]
                kind = _DOUBLE[c]
            append(T.Token(kind, c, line, col, filename))
            i += len(c)
            continue
        if c in "'\"":
            # a quote closes the string unless preceded by a backslash that is not itself
            # preceded by a backslash (the reference's rule)
            j = i + 1
            sline, sstart = line, line_start
            last1 = last2 = ""
            while j < n and (source[j] != c or (last1 == "\\" and last2 != "\\")):
                if source[j] == "\n":
                    line += 1
                    line_start = j + 1
                last2, last1 = last1, source[j]
                j += 1
            if j >= n:
                raise err(sline, i - sstart + 1, "Syntax error: string closing quote not found")
            append(T.Token(T.STRING, _decode(source, i + 1, j), sline, col, filename))
            i = j + 1
            continue
        raise err(line, col, f"Syntax error: unknown character {describe_char(c)}")
    append(T.Token(T.EOF, "", line, max(n - line_start + 1, 1), filename))
    return toks
