"""Bytecode -> Python: the loader that makes Buzz fast.

Each Buzz function becomes one Python function ``_f<N>(_cl, L<k>...)``; activation-record
slots become Python locals ``L0, L1, …`` (slot 0 is ``self``). Stack code is turned back
into nested Python expressions by simulating the operand stack symbolically; structured
control flow (``IF``/``ELSE``/``END``, ``LOOP``/``EXITZ``/``ENDLOOP``) maps to ``if`` and
``while``. Operators inline the common cases — two integers (with the wrap-around check),
two floats, a number with a numeric constant — with float results rounded to the profile's
format in place (for two non-constant operands the operation is emitted as statements, so
the buzz profile's rounding is a store to and a load from a one-slot binary32 buffer); the
profile's helpers (see ``runtime``) take everything else, keeping Buzz semantics exact.

In the buzz profile, three more things spare tests at run time, each with its fallback:

* arithmetic is kept as a tree until its value is needed; a tree of two or more operators
  becomes a *float block*, one test that every variable operand is a float and then plain
  float operations and roundings (see ``_FnGen.tree_node``);
* what an access proves is remembered: a local read or written as a table is a table until
  it is stored to or control flow merges, and a table being built by a constructor holds
  only the keys stored so far (``_FnGen.tables``, ``_E.vt``);
* ``math.sin/cos/sqrt(x)`` of a float call the single-precision libm function directly when
  the callee is the standard library's function (``_FnGen.inline_math``).

Functions are shared by every VM running the program: what belongs to one VM (its globals,
its closure and table makers, its host-call wrapper) is reached through the running
closure, ``_cl.env`` (``_cl.gget`` is the globals' ``get``), never through Python globals,
which hold only the profile's helpers.

Locations: every statement, and every helper call inside an expression, is preceded by a
``#@<n>`` comment naming entry ``n`` of the location table. A Python traceback's line
numbers therefore map back to Buzz ``file:line:col`` for error reports and stack traces —
at no run-time cost.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from swarmstack.buzz import bytecode as B
from swarmstack.buzz.errors import BuzzSyntaxError, source_line
from swarmstack.buzz.runtime import Profile
from swarmstack.buzz.stdlib import INLINE_MATH

_MARK = re.compile(r"#@(\d+|-)$")  # "#@-": the lines that follow are no Buzz code
MAX_NEST = 8  # operators nested in one Python expression before spilling to a temporary
# Python allows 100 levels of indentation and 20 nested loops (and ``try`` blocks) in a
# function; the code of one Buzz statement adds up to 5 levels and a ``try``, the BittyBuzz
# profile one of each: a Buzz function may nest this many blocks (and loops among them)
MAX_BLOCKS = 80
MAX_LOOPS = 16
MAX_LISTED_CAPTURES = 32  # a lambda capturing more locals reads them from ``locals()``
# A top level of more than CHUNK_INSTRS instructions is cut into functions of about
# CHUNK_LINES lines run in turn (its code outside loops runs once: it calls the runtime's
# helpers rather than inlining fast paths), and the functions are compiled by Python in units
# of about UNIT_LINES lines: Python's compiler needs memory in proportion to what it compiles
# at once (some 4 kB a line), and is slower on one huge function than on many small ones.
CHUNK_INSTRS = 4000
CHUNK_LINES = 2000
UNIT_LINES = 20000
_CONTROL = frozenset((B.IF, B.ELSE, B.END, B.LOOP, B.EXITZ, B.ENDLOOP))
MAX_TREE = 16  # operators in one float block
_TREE_OPS = frozenset((B.ADD, B.SUB, B.MUL, B.DIV, B.POW, B.UNM))
_PURE_PUSHES = frozenset((B.LLOAD, B.PUSHI, B.PUSHF))  # they don't need pending trees emitted


def _elif_ifs(code: list) -> set[int]:
    """Indices of the ``IF`` instructions that are the whole else-branch of an enclosing
    ``if`` (``else if``): generated as ``elif``, so that a chain of them does not nest."""
    out: set[int] = set()
    open_ifs: list[list] = []  # [IF index, ELSE index or None]
    spans: dict[int, tuple] = {}  # IF index -> (ELSE index, END index)
    for i, ins in enumerate(code):
        op = ins.op
        if op == B.IF:
            open_ifs.append([i, None])
        elif op == B.ELSE and open_ifs:
            open_ifs[-1][1] = i
        elif op == B.END and open_ifs:
            fi, el = open_ifs.pop()
            spans[fi] = (el, i)
    if_of_end = {end: fi for fi, (_el, end) in spans.items()}
    for el, end in spans.values():
        inner = if_of_end.get(end - 1)
        if el is None or inner is None or inner < el:
            continue
        if not any(code[k].op in _CONTROL for k in range(el + 1, inner)):
            out.add(inner)
    return out


def _tree_size(e) -> int:
    return 0 if e.kind != "tree" else 1 + sum(_tree_size(x) for x in e.tree[2:])


def _tree_leaves(e, out: list) -> None:
    """Names of the tree's variable operands, each once, in evaluation order."""
    if e.kind == "tree":
        for x in e.tree[2:]:
            _tree_leaves(x, out)
    elif e.kind != "const" and e.py not in out:
        out.append(e.py)


@dataclass
class Loc:
    file: str
    line: int
    col: int
    fid: int


class _E:
    """A symbolic stack entry: Python source for the value, and optionally a bool form.

    ``vt`` is what the value is known to be, whatever the operands: ``"num"`` (an integer or
    a float: every operator's result) or ``"table"`` (a table just made by a constructor,
    whose constant keys stored so far are ``keys``); None when unknown."""

    __slots__ = ("py", "kind", "slot", "cond", "const", "depth", "vt", "keys", "origin", "tree")

    def __init__(self, py: str, kind: str, slot: int = -1, cond: str | None = None, const=None,
                 vt: str | None = None):
        self.py, self.kind, self.slot, self.cond, self.const, self.vt = py, kind, slot, cond, const, vt
        self.depth = 0
        self.keys: set | None = set() if vt == "table" else None
        self.origin: str | None = None  # "math.<name>" for a read of a math library field
        # kind "tree": arithmetic not emitted yet, ``(opcode, instr, operand entries...)``
        self.tree: tuple | None = None

    @property
    def simple(self) -> bool:
        return self.kind in ("const", "local", "temp")


class _FnGen:
    def __init__(self, gen: "Generator", fid: int, checked: bool = False):
        self.g = gen
        self.fid = fid
        # the "checked" twin runs when a caller passes fewer arguments than parameters:
        # missing ones hold _MISSING, and reading one is the reference's error
        self.checked = checked
        f = self.f = gen.prog.functions[fid]
        self.lines: list[str] = []
        self.ind = 1
        self.stack: list[_E] = []
        self.ntemp = 0
        # slots stored to so far: the first ``defined_below`` (captures and parameters), then
        # those in ``defined``; ``params``: the checked twin's (each may be missing)
        self.defined_below = f.ncap + f.nparams if fid else 0
        self.defined: set[int] = set()
        self.params = set(range(f.ncap, f.ncap + f.nparams)) if checked else set()
        # local slots known to hold a table at this point of the code: a table access that
        # did not fail proves it until the slot is stored to (or control flow merges)
        self.tables: set[int] = set()
        # per open if: (what held before it, what held at the end of its then-branch)
        self.saved_tables: list[list] = []
        # per open if: whether it is an ``elif`` of the enclosing one (no indentation of its own)
        self.if_kinds: list[bool] = []
        self.else_at: tuple | None = None  # (line count, indentation) just after an ``else:``
        self.elifs = _elif_ifs(f.code)
        self.pc = 0
        self.blocks = 0  # open Python blocks (if/else, while) of the Buzz code
        self.loops = 0
        # the top level cut into chunks (see CHUNK_LINES): each chunk's lines, and the local
        # slots of top-level blocks in use (no cut while there are any)
        self.chunked = False
        self.chunks: list[list[str]] = []
        self.live = 0

    # -------------------------------------------------------------- helpers
    def tmp(self, prefix: str = "_t") -> str:
        self.ntemp += 1
        return f"{prefix}{self.ntemp}"

    def mark(self, ins: B.Instr) -> int:
        return self.g.mark(ins, self.fid)

    def stmt(self, text: str, ins: B.Instr | None = None) -> None:
        pad = "    " * self.ind
        if ins is not None:
            self.lines.append(f"{pad}#@{self.mark(ins)}")
        self.lines.append(pad + text)

    def spill(self, e: _E) -> _E:
        """Evaluate ``e`` into a temporary now; the temporary stands for it from here on."""
        t = self.tmp("_s")
        self.lines.append("    " * self.ind + f"{t} = {e.py}")
        return _E(t, "temp", vt="num" if e.vt == "num" else None)

    def flush(self, slot: int | None = None) -> None:
        """Materialise pending stack values so a statement can't reorder their evaluation."""
        for i, e in enumerate(self.stack):
            if e.kind == "expr" or (e.kind == "local" and (slot is None or e.slot == slot)):
                self.stack[i] = self.spill(e)

    def flush_exprs(self, upto: int | None = None) -> None:
        """Materialise the pending expressions (below ``upto``), not the locals: for code
        whose statements store none."""
        for i, e in enumerate(self.stack[:upto]):
            if e.kind == "expr":
                self.stack[i] = self.spill(e)

    def name_of(self, e: _E) -> tuple[str, str]:
        """(name to reuse, expression that evaluates it first) for an operand."""
        if e.kind == "const":
            return f"({e.py})", f"({e.py})"
        if e.simple:
            return e.py, e.py
        t = self.tmp()
        return t, f"({t} := {e.py})"

    def truth(self, e: _E) -> str:
        if e.cond is not None:
            return e.cond
        if e.kind == "const":
            v = e.const
            return "True" if not (v is None or (type(v) is int and v == 0)) else "False"
        n, ev = self.name_of(e)
        return f"({ev} is not None and ({n}.__class__ is not int or {n} != 0))"

    def const(self, v) -> _E:
        return _E(self._fconst(v) if isinstance(v, float) else repr(v), "const", const=v)

    # -------------------------------------------------------------- operators
    def int_guard(self, a: _E, b: _E) -> tuple[str, str, str] | None:
        """(guard, name_a, name_b) testing that both operands are ints, or None if impossible."""
        if a.kind == "const" and type(a.const) is not int or b.kind == "const" and type(b.const) is not int:
            return None
        na, ea = self.name_of(a)
        nb, eb = self.name_of(b)
        if a.kind == "const" and b.kind == "const":
            return "True", na, nb
        if a.kind == "const":
            return f"{eb}.__class__ is int", na, nb
        if b.kind == "const":
            return f"{ea}.__class__ is int", na, nb
        return f"{ea}.__class__ is {eb}.__class__ is int", na, nb

    def _num_const(self, e: _E):
        """For a constant operand: ``("int", value, value as the profile's float)``,
        ``("float", value, value)``, or None for anything else (and for non-constants)."""
        if e.kind != "const":
            return None
        v = e.const
        if type(v) is int:
            return "int", v, self.g.profile.fround(float(v))
        if type(v) is float:
            return "float", v, v
        return None

    @staticmethod
    def _fconst(x: float) -> str:
        """A float as Python text (NaN and the infinities by name)."""
        return "_NAN" if x != x else "_INF" if x == math.inf else "(-_INF)" if x == -math.inf else repr(x)

    def _int_fast(self, op: str, na: str, nb: str, b: _E, a: _E) -> str:
        """In-range integer result of ``na op nb`` (both known ints), wrapping otherwise."""
        r = self.tmp("_r")
        lo, hi = self.g.profile.imin, self.g.profile.imax
        # adding or subtracting a small constant can only leave the range on one side
        c = b.const if b.kind == "const" and a.kind != "const" and op in "+-" else None
        if c is not None and -(1 << 20) <= c <= 1 << 20:
            up = (c >= 0) == (op == "+")  # the result may leave the range upwards only
            test = f"({r} := {na} {op} {nb}) {'<=' if up else '>='} {hi if up else lo}"
            return f"({r} if {test} else _wrap({r}))"
        return f"({r} if {lo} <= ({r} := {na} {op} {nb}) <= {hi} else _wrap({r}))"

    def arith(self, op: str, helper: str, ins: B.Instr) -> None:
        """``+ - *``: two ints inline (wrapping), two floats (or a float and a numeric
        constant) inline with the profile's float rounding, everything else the helper."""
        b, a = self.stack.pop(), self.stack.pop()
        m = self.mark(ins)
        ka, kb = self._num_const(a), self._num_const(b)
        if (a.kind == "const" and ka is None) or (b.kind == "const" and kb is None):
            self.stack.append(_E(f"(#@{m}\n{helper}({a.py}, {b.py}))", "expr", vt="num"))
            return
        na, ea = self.name_of(a)
        nb, eb = self.name_of(b)
        slow = f"(#@{m}\n{helper}({na}, {nb}))"
        if ka and kb:
            text = slow
            if ka[0] == kb[0] == "int":
                text = f"({self._int_fast(op, na, nb, b, a)})"
        elif kb is not None or ka is not None:
            # one constant operand: the other's class decides
            kind, c, cf = kb if kb is not None else ka
            ev, nv = (ea, na) if kb is not None else (eb, nb)
            fl = f"_fround({na} {op} {self._fconst(cf)})" if kb is not None else \
                f"_fround({self._fconst(cf)} {op} {nb})"
            if kind == "int":
                fast = self._int_fast(op, na, nb, b, a)
                text = f"({fast} if {ev}.__class__ is int else {fl} if {nv}.__class__ is float else {slow})"
            else:
                text = f"({fl} if {ev}.__class__ is float else {slow})"
        else:
            self.stack.extend((a, b))
            self.arith_stmt(op, helper, m)
            return
        self.stack.append(_E(text, "expr", vt="num"))

    def arith_stmt(self, op: str, helper: str, m: int) -> None:
        """Two non-constant operands: the operation as statements, so that the float
        rounding is a store and a load of a one-slot float array rather than a call."""
        b, a = self.stack.pop(), self.stack.pop()
        self.flush_exprs()  # what was pushed before is evaluated before
        na, nb = ((self.spill(e) if e.kind == "expr" else e).py for e in (a, b))
        r = self.tmp("_r")
        lo, hi = self.g.profile.imin, self.g.profile.imax
        div = op == "//"
        fexpr = f"{na} / {nb}" if div else f"{na} {op} {nb}"
        if self.g.profile.name == "buzz":
            fl = [f"_FA[0] = {fexpr}", f"{r} = _FA[0]"]
        else:
            fl = [f"{r} = _fround({fexpr})"]
        slow = [f"#@{m}", f"{r} = {helper}({na}, {nb})"]

        def guarded(test: str, body: list[str]) -> list[str]:  # ``body`` when ``test``, else the helper
            return [f"if {test}:"] + ["    " + x for x in body] + ["else:"] + ["    " + x for x in slow]
        # floats first: robot scripts do most of their arithmetic on floats, and a
        # failed test costs the other path only one more comparison
        code = [f"if {na}.__class__ is {nb}.__class__ is float:"]
        code += ["    " + x for x in (guarded(nb, fl) if div else fl)]
        code.append(f"elif {na}.__class__ is {nb}.__class__ is int:")
        if div:
            code += ["    " + x for x in guarded(f"{na} >= 0 < {nb}", [f"{r} = {na} // {nb}"])]
        else:
            code += [f"    {r} = {na} {op} {nb}", f"    if not {lo} <= {r} <= {hi}: {r} = _wrap({r})"]
        code += ["else:"] + ["    " + x for x in slow]
        pad = "    " * self.ind
        self.lines += [pad + x for x in code]
        self.stack.append(_E(r, "temp", vt="num"))

    def divmod(self, op: str, helper: str, ins: B.Instr) -> None:
        """Integer ``/`` and ``%``: C and Python agree when the dividend is >= 0 and the
        divisor > 0 (and the result is then in range); float ``/`` by a non-zero float is
        inlined with rounding; everything else takes the helper."""
        b, a = self.stack.pop(), self.stack.pop()
        m = self.mark(ins)
        kb = self._num_const(b)
        if a.kind == "const" or (b.kind == "const" and kb is None):
            self.stack.append(_E(f"(#@{m}\n{helper}({a.py}, {b.py}))", "expr", vt="num"))
            return
        na, ea = self.name_of(a)
        nb, eb = self.name_of(b)
        slow = f"(#@{m}\n{helper}({na}, {nb}))"
        div = op == "//"
        if kb is not None:
            kind, c, cf = kb
            if kind == "int" and c > 0:
                fl = f" else _fround({na} / {self._fconst(cf)}) if {na}.__class__ is float" if div else ""
                text = f"({na} {op} {nb} if {ea}.__class__ is int and {na} >= 0{fl} else {slow})"
            elif kind == "float" and div and cf != 0:
                text = f"(_fround({na} / {nb}) if {ea}.__class__ is float else {slow})"
            else:
                text = f"(#@{m}\n{helper}({ea}, {eb}))"
        elif div:
            self.stack.extend((a, b))
            self.arith_stmt("//", helper, m)
            return
        else:  # ``%`` of two variables
            ints = f"({na} {op} {nb} if {na} >= 0 < {nb} else {slow})"
            text = f"({ints} if {ea}.__class__ is {eb}.__class__ is int else {slow})"
        self.stack.append(_E(text, "expr", vt="num"))

    def power(self, _sym: str, _helper: str, ins: B.Instr) -> None:
        """``^`` by a numeric constant: one helper call that rounds inline."""
        b = self.stack[-1]
        kb = self._num_const(b)
        if kb is None or self.stack[-2].kind == "const":
            self.helper("_pow", ins)
            return
        b, a = self.stack.pop(), self.stack.pop()
        m = self.mark(ins)
        kf = kb[2]
        if self.g.profile.name != "buzz" or not (0 <= kf <= 8 and kf == int(kf)):
            self.stack.append(_E(f"(#@{m}\n_powk({a.py}, {self._fconst(kf)}, {b.py}))", "expr", vt="num"))
            return
        # a float to a small non-negative whole power: C's ``powf`` (a VM float is binary32
        # already, and so is what ``powf`` returns)
        self.flush_exprs()
        na = (self.spill(a) if a.kind == "expr" else a).py
        r = self.tmp("_r")
        pad = "    " * self.ind
        self.lines += [f"{pad}if {na}.__class__ is float:",
                       f"{pad}    {r} = _powf({na}, {kf!r})",
                       f"{pad}else:",
                       f"{pad}    #@{m}",
                       f"{pad}    {r} = _powk({na}, {kf!r}, {b.py})"]
        self.stack.append(_E(r, "temp", vt="num"))

    # comparisons as the reference's three-way compare decides them, for two floats (NaN
    # compares neither less nor greater, hence "equal"; two ints compare as in Python)
    _FLOAT_CMP = {"==": "not ({a} < {b} or {a} > {b})", "!=": "({a} < {b} or {a} > {b})",
                  "<": "{a} < {b}", "<=": "not {a} > {b}", ">": "{a} > {b}", ">=": "not {a} < {b}"}

    def compare(self, op: str, helper: str, ins: B.Instr) -> None:
        b, a = self.stack.pop(), self.stack.pop()
        m = self.mark(ins)
        ka, kb = self._num_const(a), self._num_const(b)
        if self.cold or (a.kind == "const" and ka is None) or (b.kind == "const" and kb is None) or (ka and kb):
            g = None if self.cold else self.int_guard(a, b)
            if g is None:
                cond = f"(#@{m}\n{helper}({a.py}, {b.py}))"
            else:
                guard, na, nb = g
                cond = f"({na} {op} {nb} if {guard} else (#@{m}\n{helper}({na}, {nb})))"
        else:
            na, ea = self.name_of(a)
            nb, eb = self.name_of(b)
            slow = f"(#@{m}\n{helper}({na}, {nb}))"
            il, fcmp = f"({na} {op} {nb})", self._FLOAT_CMP[op]
            if kb is not None or ka is not None:
                kind, c, cf = kb if kb is not None else ka
                ev = ea if kb is not None else eb
                fa, fb = (na, self._fconst(cf)) if kb is not None else (self._fconst(cf), nb)
                fl = "(" + fcmp.format(a=fa, b=fb) + ")"
                if kind == "int":
                    nv = na if kb is not None else nb
                    cond = f"({il} if {ev}.__class__ is int else {fl} if {nv}.__class__ is float else {slow})"
                else:
                    cond = f"({fl} if {ev}.__class__ is float else {slow})"
            else:
                fl = "(" + fcmp.format(a=na, b=nb) + ")"
                cond = (f"({il} if {ea}.__class__ is {eb}.__class__ is int else "
                        f"{fl} if {na}.__class__ is {nb}.__class__ is float else {slow})")
        self.push_cond(cond)

    @staticmethod
    def call_expr(n: str, ev: str, argtxt: str, nargs: int, m: int) -> str:
        """A call of the value named ``n`` (evaluated by ``ev``): a Buzz closure with as many
        parameters as arguments directly, a host closure through its direct entry when it
        has one for this many arguments, anything else through the VM's adapter."""
        return (f"(#@{m}\n({n}.fn if {ev}.__class__ is _Closure and {n}.nparams == {nargs} "
                f"else ({n}.direct if {n}.arity == {nargs} else _cl.env.hcall) if {n}.__class__ is _HostClosure "
                f"else (#@{m}\n_cl.env.adapt({n}, {nargs})))({n}{argtxt}))")

    def inline_math(self, name: str, fe: _E, a: _E, m: int) -> None:
        """``math.<name>(x)``: when the callee is the standard library's function and ``x`` a
        float, the single-precision libm function inline; otherwise the call."""
        self.flush_exprs()  # what was pushed before is evaluated before
        pad = "    " * self.ind
        fn = self.tmp("_t")
        x, r = self.tmp("_s"), self.tmp("_r")
        self.lines += [f"{pad}{fn} = {fe.py}",
                       f"{pad}{x} = {a.py}",
                       f"{pad}if {x}.__class__ is float and {fn}.__class__ is _HostClosure "
                       f"and {fn}.direct is _MD_{name}:",
                       f"{pad}    {r} = _libm_{name}({x})",
                       f"{pad}else:",
                       f"{pad}    #@{m}",
                       f"{pad}    {r} = {self.call_expr(fn, fn, ', ' + x, 1, m)}"]
        self.stack.append(_E(r, "temp"))

    # arithmetic opcode -> (its code generator, Python operator, runtime helper)
    _ARITH = {B.ADD: ("arith", "+", "_add"), B.SUB: ("arith", "-", "_sub"),
              B.MUL: ("arith", "*", "_mul"), B.DIV: ("divmod", "//", "_div"),
              B.MOD: ("divmod", "%", "_mod"), B.POW: ("power", "^", "_pow"),
              B.UNM: ("unm", "-", "_unm")}

    @property
    def cold(self) -> bool:
        """Code that runs once (a long top level, outside loops): the runtime's helpers for
        every operation, no inline fast paths, so that Python compiles it quickly."""
        return self.chunked and self.loops == 0

    def operator(self, op: int, ins: B.Instr) -> None:
        """The per-operator code of an arithmetic opcode, on the operands on the stack."""
        gen, sym, helper = self._ARITH[op]
        if self.cold:
            self.helper(helper, ins, unary=op == B.UNM)
        else:
            getattr(self, gen)(sym, helper, ins)

    def unm(self, _sym: str, _helper: str, ins: B.Instr) -> None:
        a = self.stack.pop()
        m = self.mark(ins)
        n, ev = self.name_of(a)
        self.stack.append(_E(f"(-{n} if ({ev}.__class__ is int and {n} != {self.g.profile.imin}) "
                             f"or {n}.__class__ is float else (#@{m}\n_unm({n})))", "expr", vt="num"))

    # -------------------------------------------------------------- float blocks
    # Arithmetic is kept as a tree until its value is needed. A tree of two or more
    # operators becomes one block guarded by a single test that every variable operand is a
    # float: inside it, each operator is a float operation and a rounding, with no further
    # tests. A zero divisor leaves the block for the per-operator code, which then computes
    # the whole tree again (its operands are plain variables, so nothing that could be
    # observed is evaluated twice).
    def tree_node(self, op: int, ins: B.Instr) -> bool:
        """Push ``op`` as a tree node if its operands allow; False if they don't."""
        st = self.stack
        n = 1 if op == B.UNM else 2
        if self.g.profile.name != "buzz" or len(st) < n:
            return False
        operands = st[-n:]
        a, b = operands[0], operands[-1]
        if not all(e.kind in ("tree", "local", "temp") or (
                n == 2 and e.kind == "const" and type(e.const) in (int, float)) for e in operands):
            return False
        if (a.kind == "const" and b.kind == "const") or sum(map(_tree_size, operands)) >= MAX_TREE:
            return False
        if op == B.POW:
            kb = self._num_const(b)
            if kb is None or a.kind == "const" or not (0 <= kb[2] <= 8 and kb[2] == int(kb[2])):
                return False
        del st[-n:]
        node = _E("", "tree", vt="num")
        node.tree = (op, ins, *operands)
        st.append(node)
        return True

    def settle(self) -> None:
        """Emit every pending tree, bottom of the stack first (what was pushed before is
        evaluated before)."""
        st = self.stack
        if not any(e.kind == "tree" for e in st):
            return
        for i, e in enumerate(st):
            if e.kind == "tree":
                self.flush_exprs(i)  # earlier pending expressions are evaluated first
                st[i] = self.emit_tree(e)

    def emit_tree(self, e: _E) -> _E:
        if _tree_size(e) == 1:
            return self.replay(e)
        leaves: list[str] = []
        _tree_leaves(e, leaves)
        r = self.tmp("_r")
        pad = "    " * self.ind
        L = self.lines
        L.append(f"{pad}if {' and '.join(f'{n}.__class__ is float' for n in leaves)}:")
        L.append(f"{pad}    try:")
        body: list[str] = []
        last = self._float_code(e, body)
        L.extend(f"{pad}        {line}" for line in body)
        L.append(f"{pad}        {r} = {last}")
        # the per-operator code twice (after a zero divisor, and for other operands) rather
        # than a flag tested on the fast path
        for header in ("    except ZeroDivisionError:", "else:"):
            L.append(pad + header)
            self.ind += 1 + header.startswith("    ")
            res = self.replay(e, spill=True)
            self.lines.append("    " * self.ind + f"{r} = {res.py}")
            self.ind -= 1 + header.startswith("    ")
        return _E(r, "temp", vt="num")

    def _float_code(self, e: _E, body: list[str]) -> str:
        """Lines computing the tree in binary32 (every operand a float); the result's name."""
        if e.kind != "tree":
            return self._fconst(self._num_const(e)[2]) if e.kind == "const" else e.py
        op = e.tree[0]
        a = self._float_code(e.tree[2], body)
        t = self.tmp("_f")
        if op == B.UNM:
            body.append(f"{t} = -{a}")
        elif op == B.POW:
            body.append(f"{t} = _powf({a}, {self._num_const(e.tree[3])[2]!r})")  # C's powf, as the helper
        else:
            b = self._float_code(e.tree[3], body)
            sym = {B.ADD: "+", B.SUB: "-", B.MUL: "*", B.DIV: "/"}[op]
            body += [f"_FA[0] = {a} {sym} {b}", f"{t} = _FA[0]"]
        return t

    def replay(self, e: _E, spill: bool = False) -> _E:
        """The tree through the per-operator code generators (as if never deferred)."""
        saved, self.stack = self.stack, []
        try:
            self._replay(e, spill)
            return self.stack.pop()
        finally:
            self.stack = saved

    def _replay(self, e: _E, spill: bool) -> None:
        if e.kind != "tree":
            self.stack.append(e)
            return
        for operand in e.tree[2:]:
            self._replay(operand, spill)
        self.operator(e.tree[0], e.tree[1])
        if spill and self.stack[-1].kind == "expr":  # keep nesting shallow in long trees
            self.stack[-1] = self.spill(self.stack[-1])

    def helper(self, helper: str, ins: B.Instr, unary: bool = False) -> None:
        """A call of a runtime helper on the top operand (``unary``) or the top two."""
        n = 1 if unary else 2
        args = self.stack[-n:]
        del self.stack[-n:]
        self.stack.append(_E(f"(#@{self.mark(ins)}\n{helper}({', '.join(a.py for a in args)}))", "expr", vt="num"))

    # -------------------------------------------------------------- main loop
    def run(self) -> list[str]:
        f = self.f
        if self.fid == 0 and not self.checked and len(f.code) > CHUNK_INSTRS:
            return self.run_chunked()
        params = [f"L{f.ncap + i}" for i in range(f.nparams)]
        if self.checked:
            header = f"def _c{self.fid}(_cl{''.join(', ' + p + '=_MISSING' for p in params)}):"
        else:
            header = f"def _f{self.fid}(_cl{''.join(', ' + p for p in params)}):"
        prologue = []
        nested = any(ins.op == B.PUSHL and self.g.prog.functions[ins.arg].ncap > 0 for ins in f.code)
        used = sorted({ins.arg for ins in f.code if ins.op in (B.LLOAD, B.LSTORE) and ins.arg < f.ncap})
        if self.fid and f.ncap and (used or nested):
            if f.ncap == 1:
                prologue.append("    L0 = _cl.upvalues[0]")
            elif f.ncap <= MAX_LISTED_CAPTURES or nested:
                prologue.append("    " + ", ".join(f"L{i}" for i in range(f.ncap)) + " = _cl.upvalues")
            else:  # many captured slots: only those the code reads or writes
                prologue += [f"    L{i} = _cl.upvalues[{i}]" for i in used]
        if self.g.profile.name == "bittybuzz" and f.code:
            prologue.append(f"    #@{self.mark(f.code[0])}")
        for pc, ins in enumerate(f.code):
            self.pc = pc
            self.instr(ins)
        self.stmt("return None")
        self.hoist()
        return [header] + prologue + self.depth_budget(self.lines)

    def run_chunked(self) -> list[str]:
        """The top level as chunk functions ``_f0_<k>`` (in ``self.chunks``), cut between
        statements of the top level, and ``_f0`` running them in turn. A ``return`` of the
        top level ends its chunk with a non-None value, which ends ``_f0``."""
        code = self.f.code
        self.chunked = True

        def close() -> None:
            self.stmt("return None")
            self.hoist()
            self.chunks.append([f"def _f0_{len(self.chunks) + 1}(_cl):"] + self.lines)
            self.lines = []
            self.else_at = None
            self.tables = set()

        for pc, ins in enumerate(code):
            self.pc = pc
            self.instr(ins)
            if (len(self.lines) >= CHUNK_LINES and self.ind == 1 and not self.stack
                    and self.live == 0 and pc < len(code) - 1):
                close()
        close()
        calls = [f"    if _f0_{k}(_cl) is not None: return None" for k in range(1, len(self.chunks) + 1)]
        return ["def _f0(_cl):", "    #@-"] + self.depth_budget(calls + ["    return None"])

    def depth_budget(self, body: list[str]) -> list[str]:
        """A function body's lines, in the BittyBuzz profile within its call-depth budget."""
        if self.g.profile.name != "bittybuzz":
            return body
        return (["    _cl.env.enter()", "    try:"] + ["    " + line for line in body]
                + ["    finally:", "        _cl.env.DEPTH[0] -= 1"])

    _HOISTS = (("_Gg = _cl.gget", "_Gg("), ("G = _cl.env.G", "G["), ("_newt = _cl.env.newt", "_newt()"))

    def hoist(self) -> None:
        """The VM's own helpers come with the closure (``_cl.env``); the hot ones are read into
        locals just before the first statement that needs them (not at all on a path that
        returns earlier)."""
        lines = self.lines

        def stmt_start(l: str) -> bool:  # a statement of the function body's own block
            return l.startswith("    ") and l[4] != " " and not l[4:].startswith(("else:", "elif ", "#@"))
        for assign, use in self._HOISTS:
            i = next((i for i, l in enumerate(lines) if use in l), None)
            if i is None:
                continue
            while i > 0 and not stmt_start(lines[i]):
                i -= 1
            while i > 0 and lines[i - 1].startswith("    #@"):
                i -= 1  # keep the statement's location marker right above it
            lines.insert(i, "    " + assign)

    def open_block(self, ins: B.Instr, loop: bool = False) -> None:
        """Count a Python block about to open; past what Python can nest, a located error."""
        self.blocks += 1
        self.loops += loop
        if self.blocks > MAX_BLOCKS or self.loops > MAX_LOOPS:
            what, limit = ("loops", MAX_LOOPS) if self.loops > MAX_LOOPS else ("blocks", MAX_BLOCKS)
            loc = self.g.locs[self.mark(ins)]
            raise BuzzSyntaxError(loc.file, loc.line, loc.col,
                                  f"Syntax error: {what} nested too deeply (at most {limit} "
                                  f"in a function)", source_line(self.g.sources.get(loc.file), loc.line))

    # -------------------------------------------------------------- instructions
    # ``instr`` does what every instruction shares and hands the rest to its opcode's method,
    # found in ``_TRANSLATE`` (below the class).
    def instr(self, ins: B.Instr) -> None:
        op = ins.op
        st = self.stack
        if op in _TREE_OPS and not self.cold and self.tree_node(op, ins):
            return
        if op not in _PURE_PUSHES:
            self.settle()
        if st and st[-1].depth > MAX_NEST:
            # Python limits how deeply parentheses nest: evaluate long chains into temporaries
            # (the whole pending stack, bottom first, so the evaluation order is unchanged)
            self.flush()
        n0 = len(st)
        d_in = max((e.depth for e in st[-3:]), default=0)
        _TRANSLATE[op](self, ins)
        if st and len(st) <= n0 and st[-1].kind == "expr":
            st[-1].depth = d_in + 1

    # pushes and stores
    # the constant each push opcode pushes, from the generator and the operand
    _PUSHED = {B.PUSHNIL: lambda g, arg: None, B.PUSHI: lambda g, arg: g.profile.wrap(arg),
               B.PUSHF: lambda g, arg: g.profile.fround(float(arg)),
               B.PUSHS: lambda g, arg: g.prog.strings[arg]}

    def op_push(self, ins: B.Instr) -> None:  # PUSHNIL PUSHI PUSHF PUSHS
        self.stack.append(self.const(self._PUSHED[ins.op](self.g, ins.arg)))

    def op_lload(self, ins: B.Instr) -> None:
        arg = ins.arg
        if arg in self.params:  # a parameter of the checked twin: reading a missing one fails
            m = self.mark(ins)
            self.stack.append(_E(f"(L{arg} if L{arg} is not _MISSING else (#@{m}\n_missing()))", "expr"))
        else:
            self.stack.append(_E(f"L{arg}", "local", slot=arg))

    def op_lstore(self, ins: B.Instr) -> None:
        arg = ins.arg
        v = self.stack.pop()
        self.flush(arg)
        self.stmt(f"L{arg} = {v.py}", ins)
        self.defined.add(arg)
        self.tables.discard(arg)
        if arg >= self.live:
            self.live = arg + 1

    def op_lremove(self, ins: B.Instr) -> None:
        self.live -= ins.arg

    def op_gload(self, ins: B.Instr) -> None:
        self.stack.append(_E(f"_Gg({self.g.prog.strings[ins.arg]!r})", "expr"))

    def op_gstore(self, ins: B.Instr) -> None:
        v = self.stack.pop()
        self.flush()
        self.stmt(f"G[{self.g.prog.strings[ins.arg]!r}] = {v.py}", ins)

    def op_dup(self, ins: B.Instr) -> None:
        if not self.stack[-1].simple:
            self.flush()
        self.stack.append(self.stack[-1])

    def op_pop(self, ins: B.Instr) -> None:
        e = self.stack.pop()
        if e.kind == "expr":
            self.flush()
            self.stmt(e.py, ins)

    def op_nop(self, ins: B.Instr) -> None:
        pass

    # tables
    def op_pusht(self, ins: B.Instr) -> None:
        self.flush()
        t = self.tmp("_T")
        self.stmt(f"{t} = _newt()" if self.g.count_heap else f"{t} = {{}}", ins)
        self.stack.append(_E(t, "temp", vt="table"))

    def op_tget(self, ins: B.Instr) -> None:
        st = self.stack
        k, t = st.pop(), st.pop()
        m = self.mark(ins)
        known = t.kind == "local" and t.slot in self.tables
        if not self.cold and known and k.kind == "const" and type(k.const) in (str, int):
            st.append(_E(f"{t.py}.get({k.py})", "expr"))
        elif not self.cold and k.kind == "const" and type(k.const) is str:
            n, ev = self.name_of(t)
            st.append(_E(f"({n}.get({k.py}) if {ev}.__class__ is _Table else (#@{m}\n_tget({n}, {k.py})))", "expr"))
            if t.py == "_Gg('math')":
                st[-1].origin = "math." + k.const
        else:
            st.append(_E(f"(#@{m}\n_tget({t.py}, {k.py}))", "expr"))
        if t.kind == "local":
            self.tables.add(t.slot)  # the code that follows runs only if this access did not fail

    def op_tput(self, ins: B.Instr) -> None:
        st = self.stack
        v, k, t = st.pop(), st.pop(), st.pop()
        self.flush()
        if self.g.profile.name == "buzz" and k.kind == "const" and type(k.const) in (str, int) and not self.cold:
            self.tput_inline(t, k, v, ins)
        else:
            self.stmt(f"_cl.env.tput({t.py}, {k.py}, {v.py})", ins)

    def tput_inline(self, t: _E, k: _E, v: _E, ins: B.Instr) -> None:
        """Inline store of a plain value under a constant key; nil (removal), closures (self
        binding) and non-tables take the helper. A re-set key moves to the end of the table's
        order, as in the reference's buckets."""
        if not t.simple:
            tn = self.tmp("_s")
            self.stmt(f"{tn} = {t.py}", ins)
            t = _E(tn, "temp")
        plain = v.vt is not None or (v.kind == "const" and type(v.const) in (int, float, str))
        fresh, again = t.vt == "table", True
        if fresh:
            # a table being built by a constructor: no other code holds it yet, so
            # a key not stored before is absent, and a number needs no check
            again = k.const in t.keys
            t.keys.add(k.const)
        known = t.kind == "local" and t.slot in self.tables
        if t.kind == "local":
            self.tables.add(t.slot)  # a store into a non-table fails
        if (fresh or known) and plain:
            vp = v.py
            if again:
                if not v.simple:  # the value may read the key: evaluate it first
                    vp = self.tmp("_v")
                    self.stmt(f"{vp} = {v.py}", ins)
                self.stmt(f"if {k.py} in {t.py}: del {t.py}[{k.py}]", ins)
            self.stmt(f"{t.py}[{k.py}] = {vp}", ins)
        else:
            vn = self.tmp("_v")
            self.stmt(f"{vn} = {v.py}", ins)
            check = "" if plain else f" and {vn}.__class__ in _PLAINV"
            self.stmt(f"if {t.py}.__class__ is _Table{check}:", ins)
            self.lines.append("    " * (self.ind + 1) + f"if {k.py} in {t.py}: del {t.py}[{k.py}]")
            self.lines.append("    " * (self.ind + 1) + f"{t.py}[{k.py}] = {vn}")
            self.lines.append("    " * self.ind + "else:")
            self.stmt(f"    _cl.env.tput({t.py}, {k.py}, {vn})", ins)

    # functions
    def op_call(self, ins: B.Instr) -> None:
        st = self.stack
        arg = ins.arg
        args = [st.pop() for _ in range(arg)][::-1]
        fe = st.pop()
        m = self.mark(ins)
        name = (fe.origin or "")[5:]
        if not self.cold and arg == 1 and self.g.profile.name == "buzz" and name in INLINE_MATH:
            return self.inline_math(name, fe, args[0], m)
        n, ev = self.name_of(fe)
        argtxt = "".join(", " + a.py for a in args)
        st.append(_E(f"(#@{m}\n_cl.env.adapt({ev}, {arg})({n}{argtxt}))" if self.cold
                     else self.call_expr(n, ev, argtxt, arg, m), "expr"))

    def op_pushcn(self, ins: B.Instr) -> None:
        self.stack.append(_E(f"_cl.env.mkc({ins.arg}, (None,))", "expr"))

    def op_pushl(self, ins: B.Instr) -> None:
        arg = ins.arg
        nc = self.g.prog.functions[arg].ncap
        if nc > MAX_LISTED_CAPTURES:
            # a lambda captures every visible local: past a few dozen, read them from
            # ``locals()`` rather than list them, so the code stays linear in the script
            # (each is defined by now; one not bound yet reads as nil, as a listed one would)
            self.flush()
            self.stack.append(_E(f"_cl.env.mkc({arg}, _capture(locals(), {nc}))", "expr"))
            return
        slots = ", ".join((f"(L{i} if L{i} is not _MISSING else None)" if i in self.params else f"L{i}")
                          if i < self.defined_below or i in self.defined else "None"
                          for i in range(nc))
        self.stack.append(_E(f"_cl.env.mkc({arg}, ({slots},))" if nc else f"_cl.env.mkc({arg}, ())", "expr"))

    def op_return(self, ins: B.Instr) -> None:  # RET0 RET1 DONE (a chunk returns a tuple)
        v = self.stack.pop().py if ins.op == B.RET1 else None
        self.flush()
        self.stmt((f"return ({v},)" if v else "return ()") if self.chunked else f"return {v}", ins)

    # operators
    def op_arith(self, ins: B.Instr) -> None:  # ADD SUB MUL DIV MOD POW
        self.operator(ins.op, ins)

    def op_unm(self, ins: B.Instr) -> None:
        st = self.stack
        if st[-1].kind == "const" and type(st[-1].const) in (int, float):  # folded
            v = st.pop().const
            st.append(self.const(self.g.profile.wrap(-v) if type(v) is int else -v))
        else:
            self.operator(B.UNM, ins)

    def op_logic(self, ins: B.Instr) -> None:  # LAND LOR
        b, a = self.stack.pop(), self.stack.pop()
        ta = self.truth(a)
        self.push_cond(f"({ta} {'&' if ins.op == B.LAND else '|'} {self.truth(b)})")

    def op_lnot(self, ins: B.Instr) -> None:
        self.push_cond(f"(not {self.truth(self.stack.pop())})")

    def push_cond(self, cond: str) -> None:
        """A Buzz boolean (1 or 0) whose Python condition is ``cond``."""
        self.stack.append(_E(f"(1 if {cond} else 0)", "expr", cond=cond, vt="num"))

    _HELPERS = {B.BAND: "_band", B.BOR: "_bor", B.LSHIFT: "_lshift", B.RSHIFT: "_rshift",
                B.BNOT: "_bnot"}

    def op_helper(self, ins: B.Instr) -> None:  # BAND BOR LSHIFT RSHIFT BNOT
        self.helper(self._HELPERS[ins.op], ins, unary=ins.op == B.BNOT)

    _COMPARISONS = {B.EQ: ("==", "_eqb"), B.NEQ: ("!=", "_neqb"), B.LT: ("<", "_ltb"),
                    B.LTE: ("<=", "_lteb"), B.GT: (">", "_gtb"), B.GTE: (">=", "_gteb")}

    def op_compare(self, ins: B.Instr) -> None:  # EQ NEQ LT LTE GT GTE
        self.compare(*self._COMPARISONS[ins.op], ins)

    # control flow
    def op_if(self, ins: B.Instr) -> None:
        c = self.stack.pop()
        cond = self.truth(c)
        self.flush()
        self.saved_tables.append([set(self.tables), None])
        if self.pc in self.elifs and self.else_at == (len(self.lines), self.ind):
            # the whole else-branch is this if, and its condition needed no statement
            del self.lines[-2:]
            self.ind -= 1
            self.stmt(f"elif {cond}:", ins)
            self.if_kinds.append(True)
        else:
            self.open_block(ins)
            self.stmt(f"if {cond}:", ins)
            self.if_kinds.append(False)
        self.indent()

    def indent(self) -> None:
        """Open the body of the block just started (``pass`` keeps an empty one valid)."""
        self.ind += 1
        self.lines.append("    " * self.ind + "pass")

    def op_else(self, ins: B.Instr) -> None:
        self.flush()
        before = self.saved_tables[-1]
        before[1] = self.tables
        self.tables = set(before[0])  # what the then-branch learnt doesn't hold here
        self.ind -= 1
        self.lines.append("    " * self.ind + "else:")
        self.indent()
        self.else_at = (len(self.lines), self.ind)

    def op_end(self, ins: B.Instr) -> None:
        self.flush()
        before, then_end = self.saved_tables.pop()
        self.tables &= then_end if then_end is not None else before  # what holds on both paths
        if not self.if_kinds.pop():  # an elif ends with the if it continues
            self.ind -= 1
            self.blocks -= 1

    def op_loop(self, ins: B.Instr) -> None:
        self.flush()
        self.tables = set()  # the body runs again after stores later in it
        self.open_block(ins, loop=True)
        self.stmt("while True:", ins)
        self.indent()

    def op_exitz(self, ins: B.Instr) -> None:
        c = self.stack.pop()
        cond = self.truth(c)
        self.flush()
        self.stmt(f"if not {cond}: break", ins)

    def op_endloop(self, ins: B.Instr) -> None:
        self.flush()
        self.tables = set()
        self.ind -= 1
        self.blocks -= 1
        self.loops -= 1


# The translation of each opcode (as clox's ``rules[]``): ``_TRANSLATE[op](fngen, ins)``, the
# method ``op_<name>`` or, for opcodes that share one, the method named here.
_SHARED = {"DONE": "return", "RET0": "return", "RET1": "return",
           **dict.fromkeys(("PUSHNIL", "PUSHI", "PUSHF", "PUSHS"), "push"), "LAND": "logic", "LOR": "logic",
           **dict.fromkeys(("ADD", "SUB", "MUL", "DIV", "MOD", "POW"), "arith"),
           **dict.fromkeys(("BAND", "BOR", "LSHIFT", "RSHIFT", "BNOT"), "helper"),
           **dict.fromkeys(("EQ", "NEQ", "LT", "LTE", "GT", "GTE"), "compare")}
_TRANSLATE = {op: getattr(_FnGen, "op_" + _SHARED.get(name, name.lower())) for op, name in enumerate(B.NAMES)}


class Generator:
    """Translates a whole program; ``locs`` and ``linemap`` locate generated lines."""

    def __init__(self, prog: B.Program, profile: Profile, count_heap: bool = False,
                 sources: dict | None = None):
        self.prog = prog
        self.profile = profile
        self.sources = sources or {}  # file name -> text, for the source line of an error
        # with a heap model, every table is made through the VM (which charges it); without
        # one a constructor is a dict display
        self.count_heap = count_heap
        self.locs: list[Loc] = []

    def mark(self, ins: B.Instr, fid: int) -> int:
        self.locs.append(Loc(self.prog.files[ins.file] if ins.file < len(self.prog.files) else "?",
                             ins.line, ins.col, fid))
        return len(self.locs) - 1

    def functions(self) -> list[list[str]]:
        """The Python functions of the program, each as its lines (``self.made`` names those
        the loader needs: ``_f<N>`` and the checked twins ``_c<N>``)."""
        out: list[list[str]] = []
        made: list[str] = []
        for fid, f in enumerate(self.prog.functions):
            gen = _FnGen(self, fid)
            out.append(gen.run())
            out.extend(gen.chunks)
            made.append(f"_f{fid}")
            if fid and f.nparams:
                out.append(_FnGen(self, fid, checked=True).run())
                made.append(f"_c{fid}")
        self.made = made
        return out

    def units(self) -> list[tuple[str, list[int]]]:
        """The program as Python texts of module-level functions, each about UNIT_LINES lines
        (compiled one by one, executed into one namespace), with their line maps. (Functions
        nested in one factory function would make Python's compiler take time quadratic in
        their number: it copies the factory's names for each of them.)"""
        units: list[tuple[str, list[int]]] = []
        cur: list[str] = []
        size = 0
        for lines in self.functions():
            n = len(lines) + sum(line.count("\n") for line in lines)  # an item may span lines
            if cur and size + n > UNIT_LINES:
                units.append(self._unit(cur))
                cur, size = [], 0
            cur.extend(lines)
            cur.append("")
            size += n + 1
        if cur or not units:
            units.append(self._unit(cur))
        return units

    @staticmethod
    def _unit(lines: list[str]) -> tuple[str, list[int]]:
        text = "\n".join(lines)
        linemap = [-1, -1]  # index = Python line number (1-based)
        cur = -1
        search = _MARK.search
        for line in text.split("\n"):
            linemap.append(cur)
            if "#@" in line:
                m = search(line)
                if m:
                    cur = -1 if m.group(1) == "-" else int(m.group(1))
        # linemap[i] is the location of line i: the marker that ended line i-1, else inherited
        return text, linemap[1:]

    def source(self) -> tuple[str, list[int]]:
        """The whole program as one Python text and its line map (see ``units``)."""
        return self._unit([line for text, _ in self.units() for line in (text, "")])
