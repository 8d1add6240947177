"""Buzz compiler: AST -> bytecode :class:`~swarmstack.buzz.bytecode.Program`.

Scoping follows the reference parser's symbol tables exactly, because observable behaviour
depends on it:

* the global scope's ``var`` and every unknown name are globals (looked up by string id);
* a named function starts a fresh activation record: slot 0 is ``self``, then parameters,
  then its ``var`` locals; a braced block inside a function adds locals that are removed at
  its end (``LREMOVE``);
* a lambda inside a function starts from a *copy* of the enclosing locals (same slots) —
  the closure captures their values when it is created — and appends its own parameters
  (a parameter named like an enclosing local reuses that local's slot, as in the reference);
* ``var`` re-declaring a visible local is a compile error ("Duplicated symbol").

The string table lists global names, string literals and field names in source order, as
the reference does; the runtime uses these ids to reproduce the reference's table order.
"""

from __future__ import annotations

from dataclasses import dataclass

from swarmstack.buzz import ast as A
from swarmstack.buzz import bytecode as B
from swarmstack.buzz.errors import BuzzSyntaxError, source_line
from swarmstack.buzz.parser import front_end, parse
from swarmstack.buzz.values import byte_len, wrap_int


@dataclass
class Sym:
    pos: int
    is_global: bool


class _Fn:
    """Compilation state of one function: its bytecode being emitted, and the size the
    reference assembler would give the same function (``refsize``, see ``ref``)."""

    def __init__(self, proto: B.Function):
        self.proto = proto
        self.code = proto.code
        self.refsize = 0


class Compiler:
    def __init__(self, script: A.Script):
        self.script = script
        self.strings: list[str] = []
        self.sindex: dict[str, int] = {}
        self.files: list[str] = []
        self.findex: dict[str, int] = {}
        self.functions: list[B.Function] = []
        self.symstack: list[dict[str, Sym]] = []
        # per table of the stack: how many local slots lie below it (a lambda's table holds
        # only its own symbols and sees the enclosing function's through the stack, as if it
        # had a copy of them: the reference copies them; a copy per lambda would make
        # compile time quadratic in a function with many locals and lambdas)
        self.bases: list[int] = []
        # what blocks added to the table they share with their function, to take back at
        # their end: (table, name, the entry it hid or None). A block of a function works
        # on the function's table (as if on a copy of it, as the reference does), so that
        # opening one costs nothing however many locals are visible.
        self.undo: list[tuple[dict, str, Sym | None]] = []
        self.fn: _Fn | None = None
        self.registrations: list[tuple[int, int, A.Node]] = []  # (fid, sid, node)
        self.fns: list[_Fn] = []
        # ifs and loops open in the function being compiled, and the most seen (the code
        # generator has limits on both: see ``Program.nesting``)
        self.blocks = self.loops = 0
        self.max_blocks = self.max_loops = 0

    # ------------------------------------------------------------ utilities
    def sid(self, s: str) -> int:
        return B.sid_of(self.strings, self.sindex, s)

    def fileno(self, f: str) -> int:
        return B.sid_of(self.files, self.findex, f)

    def emit(self, node: A.Node, op: int, arg=None, ref: int = 0) -> None:
        """Append an instruction; ``ref``: the bytes the reference tool chain emits here (1 per
        opcode, 4 per argument), only counted to place each function where the reference
        would, because ``log`` prints a closure as ``[n-closure @<its bytecode offset>]``."""
        self.fn.code.append(B.Instr(op, arg, self.fileno(node.file), node.line, node.col))
        self.fn.refsize += ref

    def error(self, node: A.Node, msg: str) -> BuzzSyntaxError:
        return BuzzSyntaxError(node.file, node.line, node.col, msg,
                               source_line(self.script.sources.get(node.file), node.line))

    def nvisible(self) -> int:
        """Local slots visible here (the next local's slot)."""
        return self.bases[-1] + len(self.symstack[-1])

    def push_table(self, table: dict, base: int = 0) -> None:
        self.symstack.append(table)
        self.bases.append(base)

    def pop_table(self) -> None:
        self.symstack.pop()
        self.bases.pop()

    def lookup(self, name: str) -> Sym | None:
        for table in reversed(self.symstack):
            s = table.get(name)
            if s is not None:
                return s
        return None

    def add(self, name: str, scope: str) -> Sym:
        is_global = scope == "global" or (scope == "auto" and len(self.symstack) == 1)
        if is_global:
            s = Sym(self.sid(name), True)
            self.symstack[0][name] = s
        else:
            syms = self.symstack[-1]
            s = Sym(self.nvisible(), False)
            self.undo.append((syms, name, syms.get(name)))
            syms[name] = s
        return s

    def new_function(self, name: str) -> tuple[_Fn, int]:
        proto = B.Function(name, 0, 0)
        self.functions.append(proto)
        fn = _Fn(proto)
        self.fns.append(fn)
        return fn, len(self.functions) - 1

    # ------------------------------------------------------------ top level
    def compile(self) -> B.Program:
        for f in self.script.files:
            self.fileno(f)
        main, _ = self.new_function("<main>")
        self.fn = main
        self.push_table({})
        for st in self.script.body:
            self.stat(st)
        self.emit(self.script.body[-1] if self.script.body else A.Nil(1, 1, self.script.files[0]), B.DONE, ref=1)
        prologue: list[B.Instr] = []
        for fid, sid, node in self.registrations:
            fi = self.fileno(node.file)
            prologue.append(B.Instr(B.PUSHCN, fid, fi, node.line, node.col))
            prologue.append(B.Instr(B.GSTORE, sid, fi, node.line, node.col))
        main.proto.code = prologue + main.code
        # the reference layout: string count and strings, function registrations (push the
        # name, push the closure, store: 11 bytes each), a nop, then every function in order
        addr = 2 + sum(byte_len(s) + 1 for s in self.strings) + 11 * len(self.registrations) + 1
        for fn in self.fns:
            fn.proto.addr = addr
            addr += fn.refsize
        return B.Program(self.strings, self.files, self.functions,
                         nesting=(self.max_blocks, self.max_loops))

    def nested(self, node: A.Node, loop: bool = False) -> None:
        """The body of an if (its then or else part) or of a loop: a block one level deeper."""
        self.blocks += 1
        self.loops += loop
        self.max_blocks = max(self.max_blocks, self.blocks)
        self.max_loops = max(self.max_loops, self.loops)
        self.block(node)
        self.blocks -= 1
        self.loops -= loop

    # ------------------------------------------------------------ statements
    def block(self, node: A.Node) -> None:
        """Compile a braced block (it opens a scope) or a single statement."""
        if not isinstance(node, A.Block):
            self.stat(node)
            return
        if not node.body:
            return
        fresh = len(self.symstack) == 1  # a block of the top level has its own table
        if fresh:
            self.push_table({})
        numvars = self.nvisible()
        mark = len(self.undo)
        for st in node.body:
            self.stat(st)
        extra = self.nvisible() - numvars
        if extra:
            self.emit(node, B.LREMOVE, extra, ref=5)
        undo = self.undo
        while len(undo) > mark:  # the block's locals go out of scope
            table, name, hidden = undo.pop()
            if hidden is None:
                del table[name]
            else:
                table[name] = hidden
        if fresh:
            self.pop_table()

    def stat(self, st: A.Node) -> None:
        getattr(self, "st_" + type(st).__name__)(st)

    st_Block = block

    def st_VarDecl(self, st: A.VarDecl) -> None:
        s = self.lookup(st.name)
        if s is not None and not s.is_global:
            raise self.error(st, f"Duplicated symbol '{st.name}'")
        s = self.add(st.name, "auto")
        if s.is_global:
            if st.value is not None:
                self.expr(st.value)
            else:
                self.emit(st, B.PUSHNIL, ref=1)
            self.emit(st, B.GSTORE, s.pos, ref=6)
        else:
            self.emit(st, B.PUSHNIL)
            self.emit(st, B.LSTORE, s.pos, ref=6)
            if st.value is not None:
                self.expr(st.value)
                self.emit(st, B.LSTORE, s.pos, ref=5)

    def st_FunDef(self, st: A.FunDef) -> None:
        s = self.lookup(st.name)
        if s is None:
            s = self.add(st.name, "auto")
        fid = self.function(st, st.name, st.params, st.body, {"self": Sym(0, False)})
        if s.is_global:
            self.registrations.append((fid, s.pos, st))
        else:  # only reachable in odd nestings; keep the reference's local store
            self.emit(st, B.PUSHCN, fid)
            self.emit(st, B.LSTORE, s.pos)

    def function(self, node: A.Node, name: str, params: list[str], body: list[A.Node],
                 table: dict, base: int = 0) -> int:
        """Compile a function or lambda into a new function, its symbols starting from
        ``table`` (and ``base`` slots below it); returns the function's id."""
        fn, fid = self.new_function(name)
        saved, mark, nesting = self.fn, len(self.undo), (self.blocks, self.loops)
        self.fn, self.blocks, self.loops = fn, 0, 0
        self.push_table(table, base)
        fn.proto.ncap = self.nvisible()
        for p in params:
            s = self.lookup(p)
            if s is None or s.is_global:
                self.add(p, "local")
        fn.proto.nparams = len(params)
        numvars = self.nvisible()
        for b in body:
            self.stat(b)
        # the closing return of nil (the reference drops the body's locals before it)
        self.emit(node, B.RET0, ref=6 if self.nvisible() > numvars else 1)
        self.pop_table()
        del self.undo[mark:]
        self.fn, (self.blocks, self.loops) = saved, nesting
        return fid

    def st_If(self, st: A.If) -> None:
        self.expr(st.cond)
        self.emit(st, B.IF, ref=5)
        self.nested(st.then)
        if st.orelse is not None:
            self.emit(st.orelse, B.ELSE, ref=5)
            self.nested(st.orelse)
        self.emit(st, B.END)

    def st_While(self, st: A.While) -> None:
        self.emit(st, B.LOOP)
        self.expr(st.cond)
        self.emit(st, B.EXITZ)
        self.nested(st.body, loop=True)
        self.emit(st, B.ENDLOOP, ref=10)

    def st_For(self, st: A.For) -> None:
        self.stat(st.init)
        self.emit(st, B.LOOP)
        self.expr(st.cond)
        self.emit(st, B.EXITZ)
        # the reference parses the update before the body: keep its symbol/string order
        saved = self.fn.code
        self.fn.code = []
        self.stat(st.update)
        update = self.fn.code
        self.fn.code = saved
        self.nested(st.body, loop=True)
        self.fn.code.extend(update)
        self.emit(st, B.ENDLOOP, ref=20)

    def st_Return(self, st: A.Return) -> None:
        if st.value is None:
            self.emit(st, B.RET0, ref=1)
        else:
            self.expr(st.value)
            self.emit(st, B.RET1, ref=1)

    def st_Assign(self, st: A.Assign) -> None:
        t = st.target
        if isinstance(t, A.Name):
            s = self.lookup(t.name)
            if s is None:
                s = self.add(t.name, "global")
            self.expr(st.value)
            self.emit(t, B.GSTORE if s.is_global else B.LSTORE, s.pos, ref=6 if s.is_global else 5)
        elif isinstance(t, A.Field):
            self.expr(t.obj)
            self.emit(t, B.PUSHS, self.sid(t.name))
            self.expr(st.value)
            self.emit(t, B.TPUT, ref=6)
        else:  # A.Index
            self.expr(t.obj)
            self.expr(t.key)
            self.expr(st.value)
            self.emit(t, B.TPUT, ref=1)

    def st_ExprStat(self, st: A.ExprStat) -> None:
        self.expr(st.call)
        self.emit(st, B.POP, ref=1)

    # ------------------------------------------------------------ expressions
    def expr(self, e: A.Node, callee: bool = False) -> None:
        """Compile an expression; ``callee``: it is the function part of a call (the
        reference then emits one more instruction, which only matters to ``ref``)."""
        compile_expr = getattr(self, "ex_" + e.__class__.__name__)
        compile_expr(e, True) if callee else compile_expr(e)

    def ex_Nil(self, e: A.Nil) -> None:
        self.emit(e, B.PUSHNIL, ref=1)

    def ex_Int(self, e: A.Int) -> None:
        self.emit(e, B.PUSHI, wrap_int(e.value, 32), ref=5)

    def ex_Float(self, e: A.Float) -> None:
        self.emit(e, B.PUSHF, e.value, ref=5)

    def ex_Str(self, e: A.Str) -> None:
        self.emit(e, B.PUSHS, self.sid(e.value), ref=5)

    def ex_Name(self, e: A.Name, callee: bool = False) -> None:
        s = self.lookup(e.name)
        if s is None:
            s = self.add(e.name, "global")
        self.emit(e, B.GLOAD if s.is_global else B.LLOAD, s.pos, ref=(6 if s.is_global else 5) + callee)

    def ex_Field(self, e: A.Node, callee: bool = False) -> None:
        """A chain of ``.name``, ``[key]`` and ``(args)`` (``ex_Index`` and ``ex_Call`` too):
        its base first, then each link, without recursing along the chain (it may be of
        any length)."""
        links = []
        while True:
            c = e.__class__
            if c is A.Field or c is A.Index:
                links.append((e, callee))
                e, callee = e.obj, False
            elif c is A.Call:
                links.append((e, callee))
                e, callee = e.callee, True
            else:
                break
        self.expr(e, callee=callee)
        for e, callee in reversed(links):
            c = e.__class__
            if c is A.Field:
                self.emit(e, B.PUSHS, self.sid(e.name))
                self.emit(e, B.TGET, ref=6 + callee)
            elif c is A.Index:
                self.expr(e.key)
                self.emit(e, B.TGET, ref=1 + callee)
            else:
                for a in e.args:
                    self.expr(a)
                self.emit(e, B.CALL, len(e.args), ref=6 + callee)

    ex_Index = ex_Call = ex_Field

    def ex_Unary(self, e: A.Unary) -> None:
        self.expr(e.operand)
        self.emit(e, {"-": B.UNM, "not": B.LNOT, "!": B.BNOT}[e.op], ref=1)

    def ex_Binary(self, e: A.Binary) -> None:
        # left operands first, down a left-leaning chain (``a + b + c ...``, of any length)
        # without recursing along it
        chain = []
        while e.__class__ is A.Binary:
            chain.append(e)
            e = e.left
        self.expr(e)
        for e in reversed(chain):
            self.expr(e.right)
            self.emit(e, B.OP[B.BINOPS[e.op]], ref=1)

    def ex_Lambda(self, e: A.Lambda) -> None:
        # inside a function: the enclosing locals, same slots (see ``bases``)
        nvis = 0 if len(self.symstack) == 1 else self.nvisible()
        fid = self.function(e, "<lambda>", e.params, e.body, {} if nvis else {"self": Sym(0, False)}, nvis)
        self.emit(e, B.PUSHL, fid, ref=5)

    def ex_TableLit(self, e: A.TableLit) -> None:
        self.emit(e, B.PUSHT, ref=1)
        for k, v in e.entries:
            self.emit(k, B.DUP)
            self.expr(k)
            self.expr(v)
            self.emit(k, B.TPUT, ref=2)


def compile_script(script: A.Script) -> B.Program:
    with front_end():
        return Compiler(script).compile()


def compile_source(source: str, filename: str = "<script>", include_path=()) -> B.Program:
    """Parse and compile; raises :class:`BuzzSyntaxError` (located) on any error."""
    with front_end():
        return compile_script(parse(source, filename, include_path))
