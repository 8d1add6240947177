"""The Buzz virtual machine: load a script, run it, and embed it in a host.

The embedding API (constructors ``BuzzVM(source, ...)``, ``from_file``, ``from_bytecode``;
``register``, ``set_global``/``get_global``, ``to_buzz``/``from_buzz``/``make_table``;
``run_top_level``, ``init``/``step``/``reset``/``destroy``, ``call``, ``call_value`` from
inside a host closure, ``location``; ``failed``/``error`` and ``error.pretty()``; ``hooks``)
is described in ``docs/buzz.md`` (Embedding). ``vm.globals`` is the globals dict (read it,
don't rebind it); ``vm.self`` is, while a host closure runs, the table it was stored into
(the reference binds ``self`` when a closure is *stored*: see ``tput`` in ``_make_env``).

Profiles: ``"buzz"`` (32-bit integers, single-precision floats — the reference VM) and
``"bittybuzz"`` (16-bit integers, half-precision floats, the heap and call-depth budgets of
``heap``). ``measure_heap=True`` tracks heap use in either profile (``heap_peak``,
``measure_heap()``), as ``swarmstack buzz size`` does.

Execution compiles each Buzz function to a Python function (see ``codegen``; the text is
``vm.python_source``); compilation and translation are cached per program, so many robots
running one script share them. ``load_program(source, filename, include_path, profile)``
does both ahead of time and raises the located :class:`BuzzSyntaxError` a VM would. The
default ``log`` (:func:`print_log`) writes a line's bytes to standard output as they are
(Buzz strings are bytes, see ``values``).
"""

from __future__ import annotations

import hashlib
import os
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterable

from swarmstack.buzz import bytecode as B
from swarmstack.buzz import heap as H
from swarmstack.buzz.codegen import Generator, Loc
from swarmstack.buzz.compiler import compile_source
from swarmstack.buzz.errors import BuzzRaise, BuzzRuntimeError, BuzzSyntaxError, Frame, source_line
from swarmstack.buzz.parser import front_end, stack_depth, stack_room
from swarmstack.buzz.runtime import Profile, make_helpers, type_name
from swarmstack.buzz.scanner import read_source
from swarmstack.buzz.values import Closure, HostClosure, Table, str_bytes

MAX_CALL_DEPTH = 2000  # Buzz calls deep before "stack overflow" (buzz profile)
_HOST_FRAMES = 3       # Python frames of a Buzz -> host -> Buzz round trip that are not Buzz

_PROFILES: dict[str, tuple[Profile, dict]] = {}
_PLAIN = frozenset((str, Table, Closure, HostClosure))
_CODE_CACHE: dict[str, dict] = {}
_REGISTRY: dict[str, tuple[list[int], list[Loc], B.Program]] = {}
_PROGRAM_CACHE: dict[tuple, tuple[B.Program, list]] = {}
_BYTECODE_CACHE: dict[str, B.Program] = {}


def _profile(name: str) -> tuple[Profile, dict]:
    p = _PROFILES.get(name)
    if p is None:
        from swarmstack.buzz.stdlib import inline_math_helpers

        prof = Profile(name)
        helpers = make_helpers(prof)
        helpers.update(inline_math_helpers(name))
        p = _PROFILES[name] = (prof, helpers)
    return p


def _compile_cached(source: str, filename: str, include_path: tuple[str, ...]) -> B.Program:
    """Compile once per (source, file name, include path); a changed included file invalidates."""
    key = (source, filename, include_path)
    hit = _PROGRAM_CACHE.get(key)
    if hit is not None:
        prog, stamps = hit
        if all(_mtime(p) == m for p, m in stamps):
            return prog
    prog = compile_source(source, filename, include_path)
    stamps = [(f, _mtime(f)) for f in prog.files if f != filename]
    if len(_PROGRAM_CACHE) > 256:
        _PROGRAM_CACHE.clear()
    _PROGRAM_CACHE[key] = (prog, stamps)
    return prog


def _mtime(path: str) -> float:
    try:
        return os.stat(path).st_mtime
    except OSError:
        return -1.0


def _translate(prog: B.Program, prof: Profile, count_heap: bool = False):
    """Python code for ``prog`` (cached on the program object, per profile and heap model)."""
    cache = prog.__dict__.setdefault("_translations", {})
    hit = cache.get((prof.name, count_heap))
    if hit is None:
        with front_end():  # the cycle collector paused: no cycles among the generator's objects
            hit = cache[(prof.name, count_heap)] = _translate_uncached(prog, prof, count_heap)
    return hit


def load_program(source: str, filename: str = "<script>", include_path: Iterable = (),
                 profile: str = "buzz") -> B.Program:
    """Compile ``source`` and generate its Python code for ``profile`` (both cached, so VMs
    made from the same arguments start at once); raises :class:`BuzzSyntaxError` (located)
    for anything that does not compile, ``ValueError`` for an unknown profile."""
    prof = _profile(profile)[0]
    prog = _compile_cached(source, filename, tuple(include_path))
    _translate(prog, prof, profile == "bittybuzz")
    return prog


def print_log(line: str) -> None:
    """The default ``log``: the line on standard output, its bytes as they are (a string may
    hold bytes that are not UTF-8, see ``values``)."""
    out = sys.stdout
    buf = getattr(out, "buffer", None)
    if buf is None or line.isascii():
        print(line)
        return
    out.flush()
    buf.write(str_bytes(line) + b"\n")
    buf.flush()


class _Env:
    """One VM's helpers for generated code, reached through the running closure
    (``_cl.env``): the generated functions themselves are shared by all VMs."""

    __slots__ = ("G", "Gg", "mkc", "newt", "tput", "adapt", "hcall", "enter", "DEPTH")

    def __init__(self, **kw):
        for k, v in kw.items():
            setattr(self, k, v)


def _translate_uncached(prog: B.Program, prof: Profile, count_heap: bool):
    gen = Generator(prog, prof, count_heap=count_heap)
    try:
        units = gen.units()  # or a located BuzzSyntaxError at a limit of the code generator
    except (IndexError, KeyError, ValueError, TypeError, AttributeError) as e:
        # inconsistent code (a stack underflow, an unknown opcode): only from corrupt bytecode
        raise ValueError(f"bytecode cannot be loaded: {type(e).__name__}: {e}") from None
    # the locations are part of the key: identical code at other lines or in another file
    # must not share a line map
    h = hashlib.sha1(prof.name.encode())
    for text, _ in units:
        h.update(text.encode("utf-8", "surrogateescape"))
        h.update(b"\0\0")
    for l in gen.locs:
        h.update(f"\0{l.file}:{l.line}:{l.col}:{l.fid}".encode("utf-8", "surrogateescape"))
    key = h.hexdigest()[:16]
    hit = _CODE_CACHE.get(key)
    if hit is None:
        # the profile's helpers are globals; each VM's own helpers come with the closures
        # (``_Env``), so every VM running this code shares its functions (and the
        # interpreter's caches for them)
        ns = dict(_profile(prof.name)[1])
        for k, (text, linemap) in enumerate(units):
            fname = f"<buzz:{key}>" if k == 0 else f"<buzz:{key}:{k}>"
            try:
                code = compile(text, fname, "exec")
            except (SyntaxError, RecursionError, MemoryError) as e:
                raise _too_complex(e, linemap, gen.locs) from None
            exec(code, ns)
            _REGISTRY[fname] = (linemap, gen.locs, prog)
        hit = _CODE_CACHE[key] = {name: ns[name] for name in gen.made}
    return hit, "\n\n".join(text for text, _ in units)


def _buzz_location(code, lineno: int) -> tuple[Loc, B.Program] | None:
    """The Buzz code (and its program) that a line of generated code runs, if it is one."""
    reg = _REGISTRY.get(code.co_filename)
    if reg is not None:
        linemap, locs, prog = reg
        li = linemap[lineno] if lineno < len(linemap) else -1
        if li >= 0:
            return locs[li], prog
    return None


def _too_complex(e: BaseException, linemap: list[int], locs: list[Loc]) -> Exception:
    """The code generator keeps within Python's limits; should one still be hit, report it
    at the Buzz code that produced the line."""
    line = getattr(e, "lineno", None)
    li = linemap[line] if isinstance(line, int) and 0 <= line < len(linemap) else -1
    if li < 0 and locs:
        li = 0
    if li < 0:
        return ValueError(f"bytecode cannot be loaded: {e}")
    loc = locs[li]
    return BuzzSyntaxError(loc.file, loc.line, loc.col,
                           f"Syntax error: too complex for the code generator "
                           f"({type(e).__name__}: {getattr(e, 'msg', e)})")


class BuzzVM:
    """One robot's Buzz virtual machine (see the module docstring for the API)."""

    def __init__(self, source: str | None = None, filename: str = "<script>", robot_id: int = 0,
                 profile: str = "buzz", include_path: Iterable[str] = (), seed: int | None = None,
                 log: Callable[[str], Any] | None = print_log, io_enabled: bool = False,
                 raise_errors: bool = False, program: B.Program | None = None,
                 measure_heap: bool = False):
        self.filename = filename
        self.robot_id = robot_id
        self.profile = profile
        self.include_path = tuple(include_path)
        self.log = log if log is not None else (lambda line: None)
        self.io_enabled = io_enabled
        self.raise_errors = raise_errors
        self.failed = False
        self.error: BuzzRuntimeError | None = None
        self.self: Any = None
        self.hooks: list[Callable[[BuzzVM], Any]] = []
        self.top_level_done = False
        self._prof, helpers = _profile(profile)
        # a Python float as this VM's float (binary32 / binary16), for hosts feeding sensors
        self.round_float: Callable[[float], float] = self._prof.fround
        if program is None:
            if source is None:
                raise ValueError("BuzzVM needs source text or a compiled program")
            program = _compile_cached(source, filename, self.include_path)
        self.program = program
        self.sources: dict[str, str] = {}
        if source is not None:
            self.sources[filename] = source
        self.globals: dict[str, Any] = {}
        self.seed = seed if seed is not None else 0
        # string ids as the reference assigns them (used to reproduce its table order)
        self._sids: dict[str, int] = {}
        for s in program.strings[:program.nscript]:
            self.string_id(s)
        self.heap_accounting = profile == "bittybuzz" or measure_heap
        self.heap_limit = H.BBZHEAP_SIZE if profile == "bittybuzz" else None
        self.heap_estimate = 0
        self.heap_peak = 0
        self._heap_threshold = 256 if self.heap_limit is None else min(256, self.heap_limit)
        self._host_ids: dict[int, int] = {}
        try:
            fns, self.python_source = _translate(program, self._prof, self.heap_accounting)
        except BuzzSyntaxError as e:
            if e.source_line is None:
                e.source_line = self._source_line(e.file, e.line)
            raise
        self._helpers = helpers
        self._fns = [fns[f"_f{i}"] for i in range(len(program.functions))]
        self._checked = {id(p): fns.get(f"_c{i}", self._fns[i]) for i, p in enumerate(program.functions)}
        self._env = self._make_env()
        from swarmstack.buzz import stdlib
        stdlib.install(self)

    # ------------------------------------------------------------ construction
    @classmethod
    def from_file(cls, path: str, **kw) -> "BuzzVM":
        return cls(read_source(path), filename=str(path), **kw)

    @classmethod
    def from_bytecode(cls, data: bytes, **kw) -> "BuzzVM":
        key = hashlib.sha1(data).hexdigest()
        prog = _BYTECODE_CACHE.get(key)
        if prog is None:
            prog = _BYTECODE_CACHE[key] = B.decode(data)
        kw.setdefault("filename", prog.files[0] if prog.files else "<bytecode>")
        return cls(None, program=prog, **kw)

    def _make_env(self) -> _Env:
        vm = self
        G = self.globals
        protos = self.program.functions
        acct = self.heap_accounting
        depth = [0]
        gget = G.get

        def mkc(fid: int, ar: tuple) -> Closure:
            p = protos[fid]
            if acct:
                vm._charge(H.BBZ_OBJ_BYTES)
            return Closure(p, p.name, ar, ar[0] if ar else None, vm._fns[fid], p.nparams, env, gget)

        def newt() -> Table:
            vm._charge(H.BBZ_OBJ_BYTES)
            return Table()

        def tput(t, k, v) -> None:
            if t.__class__ is not Table:
                raise BuzzRaise(f"type mismatch: expected table, got {type_name(t)}")
            ck = k.__class__
            if ck is not str and ck is not int and ck is not float:
                raise BuzzRaise(f"type mismatch: a {type_name(k)} value can't be used as table key")
            if v is None:
                if k in t:
                    del t[k]
                return
            cv = v.__class__
            if cv is Closure:
                ar = (t,) + v.upvalues[1:] if v.upvalues else (t,)
                v = Closure(v.code, v.name, ar, t, v.fn, v.nparams, v.env, v.gget)
            elif cv is HostClosure:
                v = HostClosure(v.fn, v.name, t, v.direct, v.arity)
            if k in t:
                del t[k]  # the reference moves a re-set key to the end of its bucket
            elif acct and len(t) % H.BBZHEAP_ELEMS_PER_TSEG == 0:
                vm._charge(H.BBZ_TSEG_BYTES)
            t[k] = v

        imin, imax = self._prof.imin, self._prof.imax
        fround = self._prof.fround

        def hcall(_c, *args):
            """Call a host closure from Buzz code: ``vm.self`` is its table meanwhile."""
            saved = vm.self
            vm.self = _c.self_table
            try:
                r = _c.fn(vm, *args)
            finally:
                vm.self = saved
            if r is None:
                return r
            c = r.__class__
            if c in _PLAIN or (c is int and imin <= r <= imax):
                return r
            if c is float:  # every float a script sees is the profile's (pow relies on it)
                return fround(r)
            return vm.to_buzz(r)

        def adapt(f, n: int):
            if f.__class__ is HostClosure:
                return hcall
            if f.__class__ is Closure:
                if n > f.nparams:
                    np = f.nparams
                    return lambda c, *a: c.fn(c, *a[:np])

                # fewer arguments: run the checked twin, where reading a missing parameter
                # is the error (as in the reference, which only fails on such a read)
                return vm._checked[id(f.code)]

            def bad(c, *a):
                raise BuzzRaise(f"type mismatch: expected closure, got {type_name(f)}")
            return bad

        def enter() -> None:
            if depth[0] >= H.BBZ_MAX_CALL_DEPTH:
                raise BuzzRaise(f"stack overflow: call depth exceeds {H.BBZ_MAX_CALL_DEPTH} "
                                f"(BBZHEAP_RSV_ACTREC_MAX = {H.BBZHEAP_RSV_ACTREC_MAX} activation "
                                f"records, BBZSTACK_SIZE = {H.BBZSTACK_SIZE} stack entries)")
            depth[0] += 1

        env = _Env(G=G, Gg=G.get, mkc=mkc, newt=newt if acct else Table, tput=tput,
                   adapt=adapt, hcall=hcall, enter=enter, DEPTH=depth)
        return env

    # ------------------------------------------------------------ heap model
    def _charge(self, nbytes: int) -> None:
        """Account for an allocation. The running estimate only grows (garbage included);
        past a threshold the live heap is measured exactly — like a collector would — to
        enforce the BittyBuzz budget and to sample the peak of live memory."""
        self.heap_estimate += nbytes
        if self.heap_estimate > self._heap_threshold:
            live = self.measure_heap(extra_roots=H.frame_roots())
            if self.heap_limit is not None and live > self.heap_limit:
                raise BuzzRaise(f"out of memory: heap use {live} bytes exceeds "
                                f"BBZHEAP_SIZE = {self.heap_limit} bytes")
            self.heap_peak = max(self.heap_peak, live)
            self.heap_estimate = live
            self._heap_threshold = max(live + 256, live * 3 // 2)
            if self.heap_limit is not None:
                self._heap_threshold = min(self._heap_threshold, self.heap_limit)

    def measure_heap(self, extra_roots=()) -> int:
        """Bytes of live tables and closures (model of ``heap``), from globals and ``extra_roots``."""
        roots = [v for k, v in self.globals.items() if k not in self._builtin_names]
        roots.extend(extra_roots)
        return H.live_bytes(roots)

    # ------------------------------------------------------------ values
    def string_id(self, s: str) -> int:
        i = self._sids.get(s)
        if i is None:
            i = self._sids[s] = len(self._sids)
        return i

    def host_id(self, c: HostClosure) -> int:
        """The number ``log`` prints for a host closure (``[c-closure @N]``): the reference's
        number for its built-ins (matched by name, e.g. ``"math.sin"``), else the next free."""
        i = self._host_ids.get(id(c.fn))
        if i is None:
            from swarmstack.buzz.stdlib import REFERENCE_CLOSURE_IDS
            i = REFERENCE_CLOSURE_IDS.get(c.name)
            if i is None:
                i = max(len(REFERENCE_CLOSURE_IDS), 1 + max(self._host_ids.values(), default=-1))
            self._host_ids[id(c.fn)] = i
        return i

    def make_table(self, items: dict | None = None) -> Table:
        """A table filled like Buzz code would (closures get ``self`` bound to it)."""
        t = Table()
        tput = self._env.tput
        for k, v in (items or {}).items():
            tput(t, self.to_buzz(k), self.to_buzz(v))
        return t

    def to_buzz(self, obj) -> Any:
        """Python -> Buzz: dicts become tables, lists/tuples tables indexed from 0, bools 1/0,
        callables host closures; Buzz values pass through. A dict that already is a table of
        this VM (keys and values Buzz values, numbers in the profile's range, closures bound
        to it; as the VM and the swarm layer make them) is the table itself, anything else is
        converted into a new table."""
        c = obj.__class__
        if obj is None or c is str or c is Closure or c is HostClosure:
            return obj
        if c is dict and self._is_table(obj):
            return obj
        if c is bool:
            return 1 if obj else 0
        if isinstance(obj, int):
            return self._prof.wrap(int(obj))
        if isinstance(obj, float):
            return self._prof.fround(float(obj))
        if isinstance(obj, dict):
            return self.make_table(obj)
        if isinstance(obj, (list, tuple)):
            return self.make_table({i: v for i, v in enumerate(obj)})
        if callable(obj):
            return HostClosure(obj, getattr(obj, "__name__", ""))
        if hasattr(obj, "item"):  # numpy scalars
            return self.to_buzz(obj.item())
        raise TypeError(f"cannot convert {type(obj).__name__} to a Buzz value")

    def _is_table(self, d: dict) -> bool:
        """Whether ``d`` (and every table in it) already holds only this VM's values."""
        fround, imin, imax = self._prof.fround, self._prof.imin, self._prof.imax
        seen: set[int] = set()
        todo = [d]
        while todo:
            t = todo.pop()
            if id(t) in seen:
                continue
            seen.add(id(t))
            for k, v in t.items():
                for x in (k, v):
                    cx = x.__class__
                    if cx is str:
                        continue
                    if cx is int:
                        if not imin <= x <= imax:
                            return False
                    elif cx is float:
                        if x == x and fround(x) != x:
                            return False
                    elif x is v and cx is dict:
                        todo.append(v)
                    elif x is v and (cx is Closure or cx is HostClosure):
                        if v.self_table is not t:
                            return False
                    else:
                        return False
        return True

    @staticmethod
    def from_buzz(value) -> Any:
        """Buzz -> Python: tables become dicts (recursively); other values pass through."""
        if value.__class__ is Table:
            return {k: BuzzVM.from_buzz(v) for k, v in value.items()}
        return value

    # ------------------------------------------------------------ globals
    def register(self, name: str, fn: Callable[..., Any]) -> HostClosure:
        """Install ``fn(vm, *args)`` as the global ``name``."""
        hc = fn if isinstance(fn, HostClosure) else HostClosure(fn, name)
        self.globals[name] = hc
        return hc

    def set_global(self, name: str, value) -> None:
        self.globals[name] = self.to_buzz(value)

    def get_global(self, name: str) -> Any:
        return self.globals.get(name)

    # ------------------------------------------------------------ running
    def run_top_level(self) -> bool:
        """Run the script's global code once (hooks first). Returns False if the VM failed."""
        if self.top_level_done:
            return not self.failed
        self.top_level_done = True
        for hook in self.hooks:
            hook(self)
        main = Closure(self.program.functions[0], "<main>", (), None, self._fns[0], 0, self._env, self.globals.get)
        self._run(main, ())
        return not self.failed

    def call(self, fn, *args) -> Any:
        """Call a global function by name, or a closure; returns its result (None on failure)."""
        if self.failed:
            return None
        if isinstance(fn, str):
            name = fn
            fn = self.globals.get(name)
            if fn is None:
                return self._set_error(BuzzRuntimeError(
                    self.filename, 0, 0, f"type mismatch: cannot find function '{name}()'", []))
        args = tuple(self.to_buzz(a) for a in args)
        return self._run(fn, args)

    def call_value(self, fn, *args) -> Any:
        """Call a Buzz value from host code *inside* a running script (errors propagate)."""
        # Buzz -> host closure -> Buzz stacks at least _HOST_FRAMES Python frames that are
        # not Buzz calls (the host closure wrapper, the host function, this method): widen
        # the recursion limit by that much, so MAX_CALL_DEPTH keeps counting Buzz calls
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(limit + _HOST_FRAMES)
        try:
            if fn.__class__ is Closure and fn.nparams == len(args):
                return fn.fn(fn, *args)
            return self._env.adapt(fn, len(args))(fn, *args)
        finally:
            sys.setrecursionlimit(limit)

    def _call_if_defined(self, name: str, *args) -> None:
        if not self.top_level_done:
            self.run_top_level()
        if self.failed:
            return
        f = self.globals.get(name)
        if f is not None:
            self._run(f, args)

    def init(self) -> None:
        self._call_if_defined("init")

    def step(self) -> None:
        self._call_if_defined("step")

    def reset(self) -> None:
        self._call_if_defined("reset")

    def destroy(self) -> None:
        self._call_if_defined("destroy")

    def _run(self, fn, args: tuple) -> Any:
        if self.failed:
            return None
        if _RESERVED[0]:  # a caller made room for MAX_CALL_DEPTH Buzz calls (see reserved_stack)
            old = need = 0
        else:
            old = sys.getrecursionlimit()
            need = stack_depth() + MAX_CALL_DEPTH + 100
            if need > old:
                sys.setrecursionlimit(need)
        try:
            if fn.__class__ is Closure and fn.nparams == len(args):
                return fn.fn(fn, *args)
            return self._env.adapt(fn, len(args))(fn, *args)
        except Exception as exc:  # noqa: BLE001 - every failure becomes a located Buzz error
            self._fail(exc)
            return None
        finally:
            if need > old:
                sys.setrecursionlimit(old)

    def location(self) -> str:
        """``FILE:LINE:COL`` of the Buzz code running now (for host closures' messages)."""
        f = sys._getframe(1)
        while f is not None:
            hit = _buzz_location(f.f_code, f.f_lineno)
            if hit is not None:
                return f"{hit[0].file}:{hit[0].line}:{hit[0].col}"
            f = f.f_back
        return ""

    # ------------------------------------------------------------ errors
    def _set_error(self, err: BuzzRuntimeError) -> None:
        self.failed = True
        self.error = err
        if self.raise_errors:
            raise err

    def _fail(self, exc: BaseException) -> None:
        if isinstance(exc, (BuzzRaise, BuzzRuntimeError)):
            msg = exc.message
        elif isinstance(exc, RecursionError):
            msg = f"stack overflow: call depth exceeds {MAX_CALL_DEPTH}"
        elif isinstance(exc, UnboundLocalError):
            msg = "wrong number of local variables: a local variable was read before it was set"
        else:
            msg = f"host error: {type(exc).__name__}: {exc}"
        frames: list[Frame] = []
        tb = exc.__traceback__
        while tb is not None:
            hit = _buzz_location(tb.tb_frame.f_code, tb.tb_lineno)
            if hit is not None:
                loc, prog = hit
                frames.append(Frame(prog.functions[loc.fid].name, loc.file, loc.line, loc.col))
            tb = tb.tb_next
        frames.reverse()
        if isinstance(exc, RecursionError) and len(frames) > 20:
            frames = frames[:10] + [Frame(f"... {len(frames) - 20} more", "", 0, 0)] + frames[-10:]
        if frames:
            top = frames[0]
            err = BuzzRuntimeError(top.file, top.line, top.col, msg, frames, self._source_line(top.file, top.line))
        else:
            err = BuzzRuntimeError(self.filename, 0, 0, msg, [])
        self._set_error(err)

    def _source_line(self, file: str, line: int) -> str | None:
        src = self.sources.get(file)
        if src is None:
            try:
                src = self.sources[file] = read_source(file)
            except (OSError, ValueError):
                return None
        return source_line(src, line)


_RESERVED = [0]
_RESERVE_FRAMES = 50  # frames between a reserved_stack() block and the Buzz code it runs


@contextmanager
def reserved_stack():
    """Run many VMs' entry points (``step()`` ...) with the Python stack room for
    ``MAX_CALL_DEPTH`` Buzz calls made once, instead of measured on every entry (a
    multi-robot loop's hot path). Entry points called inside must be within
    ``_RESERVE_FRAMES`` frames of this block."""
    with stack_room(_RESERVE_FRAMES + MAX_CALL_DEPTH + 100):
        _RESERVED[0] += 1
        try:
            yield
        finally:
            _RESERVED[0] -= 1


__all__ = ["BuzzVM", "BuzzRuntimeError", "MAX_CALL_DEPTH", "load_program", "print_log"]

