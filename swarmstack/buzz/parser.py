"""Buzz parser: tokens -> AST, hand-written recursive descent following the reference grammar.

Precedence, lowest first: ``not`` (prefix, takes a whole condition), ``and``/``or`` (left,
equal rank), one optional comparison (comparisons do not chain), ``+ -``, ``* /``, ``%``,
``^`` (right-associative), ``<< >>``, ``& |``, ``!`` (prefix), operands. A ``-`` or ``+``
directly before a number makes a signed literal (so ``-2 ^ 2`` is ``(-2) ^ 2``); before
anything else it negates a whole power (``-x ^ 2`` is ``-(x ^ 2)``). Assignments, ``var``
initialisers and table fields take an *expression* (no bare comparison: parenthesise it);
conditions, call arguments and ``return`` take a *condition*. Named functions may only be
defined in the global scope. ``include "f.bzz"`` splices a file's statements in place, once.

Numeric literals are converted as the reference assembler converts them: a float with C's
``strtof`` (so ``1.2.3`` is ``1.2``), an integer with ``strtoul`` into 32 bits (wrapping; a
magnitude past 2^64 - 1 saturates, and reads as -1). Parentheses, calls, indexing, unary
operators, ``^``, tables, lambdas and blocks nest at most ``MAX_NESTING`` levels deep: deeper
is a located syntax error (the reference, recursive in C, has no set limit). Chains
(``a + b + ...``, ``a.b[c](d)...``) are not nesting and may be of any length.
"""

from __future__ import annotations

import gc
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from swarmstack.buzz import ast as A
from swarmstack.buzz import tokens as T
from swarmstack.buzz.errors import BuzzSyntaxError, source_line
from swarmstack.buzz.runtime import strtof
from swarmstack.buzz.scanner import read_source, scan

DEFAULT_INCLUDE_DIR = str(Path(__file__).with_name("include"))
MAX_NESTING = 500  # nested parentheses, calls, blocks ... (see the module docstring)
_FRAMES_PER_LEVEL = 16  # Python frames one nesting level takes at most (parser or compiler)
_ULONG_MAX = 2 ** 64 - 1
# binary operators by precedence, lowest first (below them ``!`` and operands)
_BINARY = (T.ADDSUB, T.MULDIV, T.MOD, T.POW, T.LRSHIFT, T.BANDOR)
_POW = _BINARY.index(T.POW)


def stack_depth() -> int:
    """Frames on the Python stack below the caller."""
    f = sys._getframe(1)
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


@contextmanager
def stack_room(frames: int):
    """At least ``frames`` more Python frames may be used inside the block (the parser
    recurses per nesting level and a Buzz call is a Python call: both raise the interpreter's
    recursion limit to what they may need, and put it back afterwards)."""
    old = sys.getrecursionlimit()
    need = stack_depth() + frames
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if need > old:
            sys.setrecursionlimit(old)


@contextmanager
def front_end():
    """Room on the Python stack for ``MAX_NESTING`` levels, and the cycle collector paused:
    the scanner, parser and compiler make millions of small objects and no cycles, and a
    collection every few thousand allocations (each walking the older objects now and
    then) made big scripts' compile time grow faster than their size."""
    was = gc.isenabled()
    gc.disable()
    try:
        with stack_room(MAX_NESTING * _FRAMES_PER_LEVEL + 200):
            yield
    finally:
        if was:
            gc.enable()


def resolve_include(name: str, from_file: str, include_path: tuple[str, ...] | list[str]) -> str | None:
    """Find an included file: next to the including file, then the working directory, then the
    include path (which ends with the bundled library folder)."""
    candidates = [name]
    if not os.path.isabs(name):
        here = [os.path.dirname(os.path.abspath(from_file))] if from_file and not from_file.startswith("<") else []
        candidates = [os.path.join(d, name) for d in here] + [os.path.abspath(name)] + [
            os.path.join(d, name) for d in (*include_path, DEFAULT_INCLUDE_DIR)]
    return next((os.path.realpath(c) for c in candidates if os.path.isfile(c)), None)


@dataclass
class _State:
    include_path: tuple[str, ...]
    included: set[str] = field(default_factory=set)
    files: list[str] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)


class Parser:
    """Parses one file's token list; ``include`` recurses into a new Parser sharing ``_State``."""

    def __init__(self, toks: list[T.Token], source: str, filename: str, state: _State, depth: int = 1):
        self.toks = toks
        self.pos = 0
        self.tok = toks[0]
        self.source = source
        self.file = filename
        self.state = state
        self.depth = depth  # 1 = global scope, as the reference's symbol-table stack size
        self.nest = 0  # open nesting levels (see MAX_NESTING)

    # ------------------------------------------------------------- helpers
    def error(self, tok: T.Token, message: str) -> BuzzSyntaxError:
        return BuzzSyntaxError(tok.file or self.file, tok.line, tok.col, message,
                               source_line(self.source, tok.line))

    def advance(self) -> T.Token:
        t = self.tok
        self.pos += 1
        self.tok = self.toks[self.pos] if self.pos < len(self.toks) else self.toks[-1]
        return t

    def expect(self, kind: str) -> T.Token:
        if self.tok.kind != kind:
            if self.tok.kind == T.EOF:
                raise self.error(self.tok, f"Syntax error: expected {T.DESC[kind]}, found end of file")
            raise self.error(self.tok, f"Syntax error: expected {T.DESC[kind]}, found {T.DESC[self.tok.kind]}")
        return self.advance()

    def at(self, kind: str) -> bool:
        return self.tok.kind == kind

    def enter(self) -> None:
        """One more nesting level (left again with ``self.nest -= 1``; an error ends the
        parse, so no clean-up is needed on that path)."""
        self.nest += 1
        if self.nest > MAX_NESTING:
            raise self.error(self.tok, f"Syntax error: expression or block nested too deeply "
                                       f"(at most {MAX_NESTING} levels)")

    def nested(self, parse, *args, close: str | None = None):
        """``parse(*args)`` one nesting level deeper, then the ``close`` token if given."""
        self.enter()
        node = parse(*args)
        if close is not None:
            self.expect(close)
        self.nest -= 1
        return node

    # ------------------------------------------------------------- statements
    def statlist(self, until_close: bool) -> list[A.Node]:
        out: list[A.Node] = []
        while not self.at(T.EOF) and not (until_close and self.at(T.BLOCKCLOSE)):
            if self.at(T.BLOCKCLOSE):
                raise self.error(self.tok, "Syntax error: unexpected }")
            self.stat(out)
        return out

    def stat(self, out: list[A.Node]) -> None:
        k = self.tok.kind
        if k == T.INCLUDE:
            self.include(out)
        else:  # a statement its keyword names (``_KEYWORD_STATEMENTS``), else a command
            out.append(self._KEYWORD_STATEMENTS.get(k, Parser.command)(self))

    def include(self, out: list[A.Node]) -> None:
        tok = self.advance()
        path = resolve_include(tok.value, self.file, self.state.include_path)
        if path is None:
            raise self.error(tok, f"Can't read '{tok.value}'")
        if path in self.state.included:
            return
        self.state.included.add(path)
        try:
            src = read_source(path)
        except OSError:
            raise self.error(tok, f"Can't read '{tok.value}'") from None
        self.state.files.append(path)
        self.state.sources[path] = src
        sub = Parser(scan(src, path), src, path, self.state, self.depth)
        sub.nest = self.nest
        out.extend(sub.statlist(until_close=False))

    def blockstat(self) -> A.Node:
        if self.at(T.BLOCKOPEN):
            return self.block(new_scope=True)
        out: list[A.Node] = []
        if self.at(T.BLOCKCLOSE) or self.at(T.EOF):
            raise self.error(self.tok, f"Syntax error: expected a statement, found {T.DESC[self.tok.kind]}")
        self.nested(self.stat, out)
        return out[0] if len(out) == 1 else A.Block(self.tok.line, self.tok.col, self.file, out)

    def block(self, new_scope: bool) -> A.Block:
        t = self.expect(T.BLOCKOPEN)
        self.enter()
        if new_scope:
            self.depth += 1
        body = self.statlist(until_close=True)
        self.expect(T.BLOCKCLOSE)
        if new_scope:
            self.depth -= 1
        self.nest -= 1
        return A.Block(t.line, t.col, t.file, body)

    def var(self) -> A.VarDecl:
        t = self.expect(T.VAR)
        name = self.expect(T.ID)
        value = None
        if self.at(T.ASSIGN):
            self.advance()
            value = self.expression()
        return A.VarDecl(name.line, name.col, t.file, name.value, value)

    def comma_list(self, item) -> list:
        """``item (, item)*`` up to a ``)``, or nothing before one."""
        out = []
        if not self.at(T.PARCLOSE):
            out.append(item())
            while self.at(T.LISTSEP):
                self.advance()
                out.append(item())
        return out

    def fundef(self) -> A.FunDef:
        t = self.expect(T.FUN)
        name = self.expect(T.ID)
        if self.depth > 1:
            raise self.error(name, f"Syntax error: the definition of function {name.value}() is nested "
                                   f"within another scope. To define local functions, use the lambda "
                                   f"syntax {name.value} = function() {{ ... }}.")
        params, body = self.function(docstring=True)
        return A.FunDef(name.line, name.col, t.file, name.value, params, body)

    def function(self, docstring: bool = False) -> tuple[list[str], list[A.Node]]:
        """``(params) {body}`` of a function or lambda (a named one may have a docstring)."""
        self.expect(T.PAROPEN)
        params = self.comma_list(lambda: self.expect(T.ID).value)
        self.expect(T.PARCLOSE)
        if docstring and self.at(T.STRING):
            self.advance()
        self.depth += 1
        body = self.block(new_scope=False)
        self.depth -= 1
        return params, body.body

    def paren_condition(self, kind: str) -> tuple[T.Token, A.Node]:
        """``kind (condition)``: the keyword's token and the condition."""
        t = self.expect(kind)
        self.expect(T.PAROPEN)
        cond = self.condition()
        self.expect(T.PARCLOSE)
        return t, cond

    def if_(self) -> A.If:
        t, cond = self.paren_condition(T.IF)
        then = self.blockstat()
        orelse = None
        if self.at(T.ELSE):
            self.advance()
            orelse = self.blockstat()
        return A.If(t.line, t.col, t.file, cond, then, orelse)

    def while_(self) -> A.While:
        t, cond = self.paren_condition(T.WHILE)
        return A.While(t.line, t.col, t.file, cond, self.blockstat())

    def for_(self) -> A.For:
        t = self.expect(T.FOR)
        self.expect(T.PAROPEN)
        init = self.command()
        self.expect(T.LISTSEP)
        cond = self.condition()
        self.expect(T.LISTSEP)
        update = self.command()
        self.expect(T.PARCLOSE)
        return A.For(t.line, t.col, t.file, init, cond, update, self.blockstat())

    _KEYWORD_STATEMENTS = {T.VAR: var, T.FUN: fundef, T.IF: if_, T.FOR: for_, T.WHILE: while_}

    def command(self) -> A.Node:
        if self.at(T.RETURN):
            t = self.advance()
            if self.at(T.BLOCKCLOSE) or self.at(T.EOF):
                return A.Return(t.line, t.col, t.file, None)
            return A.Return(t.line, t.col, t.file, self.condition())
        start = self.tok
        ref = self.idref()
        if self.at(T.ASSIGN):
            if isinstance(ref, A.Call):
                raise self.error(self.tok, "Syntax error: can't have a function call as lvalue")
            self.advance()
            return A.Assign(start.line, start.col, start.file, ref, self.expression())
        if isinstance(ref, A.Call):
            return A.ExprStat(start.line, start.col, start.file, ref)
        raise self.error(start, "Syntax error: expected function call or assignment")

    # ------------------------------------------------------------ expressions
    def condition(self) -> A.Node:
        if self.at(T.LNOT):
            t = self.advance()
            return A.Unary(t.line, t.col, t.file, "not", self.nested(self.condition))
        left = self.comparison()
        while self.at(T.LANDOR):
            t = self.advance()
            right = self.comparison()
            left = A.Binary(t.line, t.col, t.file, t.value, left, right)
        return left

    def comparison(self) -> A.Node:
        left = self.expression()
        if self.at(T.CMP):
            t = self.advance()
            right = self.expression()
            return A.Binary(t.line, t.col, t.file, t.value, left, right)
        return left

    def expression(self) -> A.Node:
        if self.at(T.BLOCKOPEN):
            return self.tabledef()
        return self.binary(0)

    def binary(self, level: int) -> A.Node:
        """Operators of ``_BINARY[level]`` and tighter ones: left-associative, except ``^``."""
        if level == len(_BINARY):
            return self.bitwisenot()
        kind = _BINARY[level]
        left = self.binary(level + 1)
        if kind == T.POW:
            if not self.at(T.POW):
                return left
            t = self.advance()
            return A.Binary(t.line, t.col, t.file, "^", left, self.nested(self.binary, level))
        while self.at(kind):
            t = self.advance()
            left = A.Binary(t.line, t.col, t.file, t.value, left, self.binary(level + 1))
        return left

    def tabledef(self) -> A.TableLit:
        t = self.advance()
        self.enter()
        entries: list[tuple[A.Node, A.Node]] = []
        if not self.at(T.DOT) and not self.at(T.BLOCKCLOSE):
            raise self.error(self.tok, f"Syntax error: expected .id = expression or }}, found {T.DESC[self.tok.kind]}")
        if self.at(T.DOT):
            entries.append(self.tablefield())
            while self.at(T.LISTSEP):
                self.advance()
                if not self.at(T.DOT):
                    self.expect(T.DOT)
                entries.append(self.tablefield())
        self.expect(T.BLOCKCLOSE)
        self.nest -= 1
        return A.TableLit(t.line, t.col, t.file, entries)

    def tablefield(self) -> tuple[A.Node, A.Node]:
        self.advance()  # the dot
        k = self.tok
        if k.kind == T.ID:
            key: A.Node = A.Str(k.line, k.col, k.file, k.value)
        elif k.kind == T.CONST:
            key = self.number(k)
        else:
            raise self.error(k, f"Syntax error: expected id or numeric constant, found {T.DESC[k.kind]}")
        self.advance()
        self.expect(T.ASSIGN)
        return key, self.expression()

    def bitwisenot(self) -> A.Node:
        if self.at(T.BNOT):
            t = self.advance()
            return A.Unary(t.line, t.col, t.file, "!", self.nested(self.bitwisenot))
        return self.operand()

    def number(self, t: T.Token, sign: str = "") -> A.Node:
        text = t.value
        if "." in text:
            # the reference assembler's strtof: a binary32 value, stopping at a second dot
            return A.Float(t.line, t.col, t.file, strtof(sign + text)[0])
        # the reference assembler's strtoul (64-bit) stored into 32 bits: a negative literal
        # wraps modulo 2^64 and a magnitude past 2^64 - 1 saturates
        digits = text.lstrip("0")
        mag = int(digits) if 0 < len(digits) <= 20 else (0 if not digits else _ULONG_MAX + 1)
        value = _ULONG_MAX if mag > _ULONG_MAX else (-mag if sign == "-" else mag) % (_ULONG_MAX + 1)
        return A.Int(t.line, t.col, t.file, value)

    def operand(self) -> A.Node:
        t = self.tok
        k = t.kind
        if k == T.FUN:
            return self.lambda_()
        if k == T.NIL:
            self.advance()
            return A.Nil(t.line, t.col, t.file)
        if k == T.CONST:
            self.advance()
            return self.number(t)
        if k == T.STRING:
            self.advance()
            return A.Str(t.line, t.col, t.file, t.value)
        if k == T.PAROPEN:
            self.advance()
            return self.nested(self.condition, close=T.PARCLOSE)
        if k == T.ADDSUB:
            self.advance()
            if self.at(T.CONST):
                c = self.advance()
                node = self.number(c, "-" if t.value == "-" else "")
                node.line, node.col = t.line, t.col
                return node
            inner = self.nested(self.binary, _POW)
            return A.Unary(t.line, t.col, t.file, "-", inner) if t.value == "-" else inner
        return self.idref()

    def lambda_(self) -> A.Lambda:
        t = self.expect(T.FUN)
        return A.Lambda(t.line, t.col, t.file, *self.function())

    def idref(self) -> A.Node:
        t = self.expect(T.ID)
        node: A.Node = A.Name(t.line, t.col, t.file, t.value)
        while True:
            k = self.tok.kind
            if k == T.DOT:
                d = self.advance()
                name = self.expect(T.ID)
                node = A.Field(name.line, name.col, d.file, node, name.value)
            elif k == T.IDXOPEN:
                b = self.advance()
                node = A.Index(b.line, b.col, b.file, node, self.nested(self.expression, close=T.IDXCLOSE))
            elif k == T.PAROPEN:
                p = self.advance()
                node = A.Call(t.line, t.col, p.file, node, self.nested(self.comma_list, self.condition, close=T.PARCLOSE))
            else:
                return node


def parse(source: str, filename: str = "<script>", include_path: tuple[str, ...] | list[str] = ()) -> A.Script:
    """Parse a whole script (with its includes). Raises :class:`BuzzSyntaxError` only."""
    state = _State(tuple(include_path))
    if not filename.startswith("<") and os.path.isfile(filename):
        state.included.add(os.path.realpath(filename))
    state.files.append(filename)
    state.sources[filename] = source
    with front_end():
        toks = scan(source, filename)
        p = Parser(toks, source, filename, state)
        try:
            body = p.statlist(until_close=False)
        except RecursionError:  # a safety net: MAX_NESTING keeps well below the limit
            raise p.error(p.tok, "Syntax error: expression nested too deeply") from None
    return A.Script(body, state.files, state.sources)
