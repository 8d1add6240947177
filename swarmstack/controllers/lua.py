"""Lua controllers on simulated robots: ``controller = { lua = "ctrl.lua" }`` on a group.

Every robot of the group (in every run of a batch) runs the script with its own globals, as
under ARGoS's Lua controller: the top level, then ``init()``; ``step()`` every tick;
``reset()`` when the simulation is reset; ``destroy()`` at the end. The ``robot`` table is built
from the robot type (``docs/lua.md``): each device's reading under its script name with 1-based
indices (``robot.proximity[i].value/angle``), each host function as ``robot.<name>(…)``, and
ARGoS's tables over them (``robot.wheels.set_velocity`` in cm/s, ``robot.leds.set_all_colors``,
``robot.range_and_bearing``, ``robot.positioning``, ``robot.random``, ``robot.id``).

The whole group is one Lua state stepped by one Python→Lua call per tick: readings go in as
byte strings (one per device), the robots' host-function calls and radio data come back as
byte strings, and the calls are replayed on the robots' views in the order made.

A runtime error stops that robot only: its commands go to the type's safe values, it falls
silent on the radio, and the error (``FILE:LINE: message`` and the Lua traceback) is logged with
tick and robot id; ``strict`` stops the run with a ControllerError. A syntax error fails the
run before tick 0 with ``FILE:LINE``. An error of the Lua state itself (outside any robot's
call) stops the whole group the same way.

Scripts run in a sandbox unless the controller says ``trusted = true`` (``docs/lua.md``): the
libraries an ARGoS controller uses, no files, process, ``debug`` or binary chunks, and no
Python object within reach (the Python callbacks of the runtime are upvalues no script can
read, and the state refuses every attribute of a Python object). A count hook set by the
runtime bounds each call's instructions and polls Python, so that SIGINT, SIGTERM and a run's
time limit end a script's loop: a tick still running STOP_GRACE_S after a signal is abandoned
with a KeyboardInterrupt (the time limit's exception at once).
"""

from __future__ import annotations

import contextlib
import re
import signal
import sys
import time
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from swarmstack.controllers.api import ScriptController
from swarmstack.controllers.buzz import _arity

# one reception as runtime.lua's fill_rab unpacks it ("<dddi4", packed)
_HEARD = np.dtype([("d", "<f8"), ("az", "<f8"), ("el", "<f8"), ("size", "<i4")])
_COUNTS = {float(n): n for n in range(256)}   # argument counts, as recorded (doubles)
MAX_MEMORY_BYTES = 1 << 30   # a group's Lua state: beyond, allocations fail as Lua errors
MAX_ERROR_CHARS = 2000       # of an error's first line as reported (the full report: 16 000)
MAX_LOG_CHARS = 65536        # of one line a script logs
STOP_GRACE_S = 0.25   # a stop recorded during a call: how long the call may go on to end its tick
_CHUNK = 100   # values one string.unpack returns at most (Lua's register limit is ~250)


class LuaScriptError(ValueError):
    """The script cannot be read or compiled: a located ``FILE:LINE: message``."""


RUNTIMES = ("lua5.3", "luajit")   # the controller's ``runtime`` key; Lua 5.3 is ARGoS's

# A robot type's own ARGoS plug-in API, where it has one: the Lua file that adds it to each
# robot's table (swarmstack/lua/) and the readings the plug-in hands over as plain numbers
# (``robot.tof``, where other types' one-number readings are ``robot.NAME[1]``).
TYPE_APIS = {"epuck2": ("epuck2.lua", frozenset({"tof"}))}
# the runtime's own files: their frames are cut from the tracebacks scripts' authors see
_OWN_FILES = ("swarmstack/lua/runtime.lua", "swarmstack/lua/epuck2.lua")


def _source(name: str) -> bytes:
    return resources.files("swarmstack.lua").joinpath(name).read_bytes()


def _lupa(runtime: str):
    if runtime == "luajit":
        from lupa import luajit21 as lua
    else:
        from lupa import lua53 as lua
    return lua


def _no_attributes(obj, name, is_setting):
    raise AttributeError("Lua scripts cannot reach attributes of Python objects")


def new_state(runtime: str = "lua5.3"):
    """A fresh Lua state without Python's builtins in it, where no attribute of a Python
    object can be read or set: Lua 5.3 (ARGoS's) or LuaJIT 2.1."""
    return _lupa(runtime).LuaRuntime(
        encoding=None, unpack_returned_tuples=True, register_eval=False,
        register_builtins=False, max_memory=MAX_MEMORY_BYTES,
        attribute_filter=_no_attributes)


def stop_requested() -> bool:
    """A run's SIGINT/SIGTERM handler (``StopSignals``) has recorded a signal."""
    runner = sys.modules.get("swarmstack.experiments.runner")
    if runner is None:   # no run installed its handlers
        return False
    StopSignals = runner.StopSignals
    for sig in (signal.SIGINT, signal.SIGTERM):
        owner = getattr(signal.getsignal(sig), "__self__", None)
        if isinstance(owner, StopSignals) and owner.signum is not None:
            return True
    return False


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


SCRIPT_TOKEN = b"lua#1"   # the script's chunk name (see runtime.lua: M.file_token)
_TOKEN = re.compile(r"lua#(\d+)")


def chunkname(path: Path) -> bytes:
    return b"@" + SCRIPT_TOKEN


def located(text: str, files: list[str]) -> str:
    """``text`` with every file token turned back into its path."""
    return _TOKEN.sub(lambda m: files[int(m.group(1)) - 1]
                      if 0 < int(m.group(1)) <= len(files) else m.group(0), text)


def compile_script(path: Path, runtime: str = "lua5.3") -> bytes:
    """Read and compile once, so that a broken script fails before tick 0 with FILE:LINE."""
    try:
        source = Path(path).read_bytes()
    except OSError as exc:
        raise LuaScriptError(f"cannot read Lua script {path}: {exc.strerror}") from None
    if source.startswith(b"\x1b"):   # what Lua takes for a precompiled chunk
        raise LuaScriptError(f"{path}: starts with byte 0x1B, the mark of a precompiled Lua "
                             "chunk; only Lua source is accepted")
    lua = new_state(runtime)
    check = lua.eval(b"function(s, n) local f, msg = load(s, n, 't') return msg end")
    msg = check(source, chunkname(path))
    if msg is not None:
        text = located(_text(msg), [str(path)])
        raise LuaScriptError(text if text.startswith(str(path)) else f"{path}: {text}")
    return source


def _text(value) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


# ------------------------------------------------------------------ readings as bytes
# Where each number of a device's reading lands in a script's tables, found from the robot
# type. A device's ScriptGlobal turns one robot's reading into plain values ({0: {"value":
# 812, "angle": -0.26}, …}). Calling it for every robot every tick and handing the result to
# Lua would cost microseconds per robot; instead it is called a few times on marker readings,
# once, to learn its *shape*: which leaves copy which element of the reading, which are
# constants (the angles), and whether the structure depends on the data (a camera's blob
# list does). Readings with a fixed shape then travel as raw bytes, one string per device per
# tick for the whole group, and generated Lua code (fill_source) unpacks them straight into
# each robot's tables; the rest go the slow way (converted per robot per tick). Integer keys
# move from 0-based (Buzz's convention) to 1-based, as ARGoS's Lua tables are.
# struct codes of string.unpack for the dtypes readings use (little-endian, as NumPy's here)
_CODES = {"i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i4", "u4": "I4", "i8": "i8",
          "u8": "I8", "f4": "f", "f8": "d"}
_MAX_ELEMENTS = 4096   # readings larger than this are not worth a generated unpacker


@dataclass(frozen=True)
class Shape:
    """A reading's fixed shape: ``template`` is the converted value with every copied leaf
    set to 0 (keys already 1-based), ``leaves`` the (key path, element index) pairs, ``code``
    the unpack code of one element and ``size`` the elements of one robot's reading."""

    template: Any
    leaves: tuple[tuple[tuple, int], ...]
    code: str
    size: int


def shift_keys(value):
    """Plain values with every int key of a dict (and every list index) made 1-based."""
    if isinstance(value, dict):
        return {(k + 1 if isinstance(k, int) and not isinstance(k, bool) else k): shift_keys(v)
                for k, v in value.items()}
    return {i + 1: shift_keys(v) for i, v in enumerate(value)} \
        if isinstance(value, (list, tuple)) else value


def _number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def probe(convert: Callable[[np.ndarray], Any], row_shape: tuple, dtype) -> Optional[Shape]:
    """The fixed shape of ``convert`` over readings of ``row_shape`` and ``dtype``, or None
    when it cannot be learnt (its structure or numbers depend on the data in ways a copy
    cannot express)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(row_shape, dtype=np.int64))
    key = dtype.str[1:]
    if dtype.fields is not None or key not in _CODES or not 0 < size <= _MAX_ELEMENTS:
        return None
    idx = np.arange(size, dtype=np.int64)
    markers = [idx + 1, 2 * idx + 3, np.zeros(size, dtype=np.int64)]
    if dtype.kind in "if":
        markers.append(-(idx + 1))
    limit = np.iinfo(dtype).max if dtype.kind in "iu" else 2 ** 52
    if markers[1][-1] > limit:
        return None
    try:
        outs = [shift_keys(convert(m.astype(dtype).reshape(row_shape))) for m in markers]
    except Exception:  # a converter that needs real data (e.g. it indexes by a value)
        return None
    leaves: list[tuple[tuple, int]] = []

    def walk(values: list, path: tuple):
        first = values[0]
        if isinstance(first, dict):
            if not all(isinstance(v, dict) and v.keys() == first.keys() for v in values):
                raise _Unlearnable
            return {k: walk([v[k] for v in values], path + (k,)) for k in first}
        if _number(first):
            if not all(_number(v) for v in values):
                raise _Unlearnable
            hits = [j for j in _candidates(values[0], size)
                    if all(v == m[j] for v, m in zip(values, markers))]
            if hits:
                leaves.append((path, hits[0]))
                return 0
            if all(v == first for v in values):
                return first
            raise _Unlearnable
        if isinstance(first, (str, bool)) or first is None:
            if not all(v == first for v in values):
                raise _Unlearnable
            return first
        raise _Unlearnable

    try:
        template = walk(outs, ())
    except _Unlearnable:
        return None
    return Shape(template, tuple(leaves), _CODES[key], size)


def _candidates(v, size: int) -> list[int]:
    # marker 0 holds element j as j + 1
    j = int(v) - 1 if float(v).is_integer() else -1
    return [j] if 0 <= j < size else []


class _Unlearnable(Exception):
    pass


def _lua_key(key) -> str:
    if isinstance(key, int):
        return f"[{key}]"
    text = str(key)
    return f'["{text}"]' if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", text) else \
        "[\"" + "".join(f"\\{b}" for b in text.encode()) + "\"]"


def fill_source(shapes: list[tuple[str, Shape]], runtime: str = "lua5.3") -> str:
    """Lua source of ``fill(robots, lo, hi, blob1, …)``: the tables of robots ``lo`` … ``hi``
    (those that have not failed) from one byte string per device (robot k's reading at bytes
    ``(k − 1)·row + 1 …``); under LuaJIT each string is read in place as a C array through
    the FFI."""
    ffi = runtime == "luajit"
    args = "".join(f", b{i}" for i in range(len(shapes)))
    lines = ["local ffi = require('ffi')" if ffi else "local unpack = string.unpack",
             f"return function(robots, lo, hi{args})"]
    if ffi:
        lines += [f"  local a{i} = ffi.cast('const {_CTYPES[shape.code]}*', b{i})"
                  for i, (_, shape) in enumerate(shapes)]
    lines += ["  for k = lo, hi do if not robots[k].failed then",
              "    local R = robots[k].robot"]
    for i, (name, shape) in enumerate(shapes):
        def target(path):
            return "R" + _lua_key(name) + "".join(_lua_key(k) for k in path)

        if ffi:
            wide = shape.code in ("i8", "I8")   # 64-bit cdata: made plain numbers
            lines.append(f"    local o{i} = (k - 1) * {shape.size}")
            for path, j in shape.leaves:
                value = f"a{i}[o{i} + {j}]"
                lines.append(f"    {target(path)} = " + (f"tonumber({value})" if wide else value))
            continue
        by_index: dict[int, list[tuple]] = {}
        for path, j in shape.leaves:
            by_index.setdefault(j, []).append(path)
        lines.append(f"    local p{i} = (k - 1) * {shape.size * _size(shape.code)} + 1")
        for lo in range(0, shape.size, _CHUNK):
            wanted = [j for j in range(lo, min(lo + _CHUNK, shape.size)) if j in by_index]
            if not wanted:
                continue
            last = max(wanted)
            names = [f"v{j}" for j in range(lo, last + 1)]
            fmt = "<" + shape.code * (last + 1 - lo)
            lines.append("    do")
            lines.append(f"      local {', '.join(names)} = unpack(\"{fmt}\", b{i}, "
                         f"p{i} + {lo * _size(shape.code)})")
            lines += [f"      {target(path)} = v{j}" for j in wanted for path in by_index[j]]
            lines.append("    end")
    lines += ["  end end", "end"]
    return "\n".join(lines) + "\n"


_CTYPES = {"b": "int8_t", "B": "uint8_t", "h": "int16_t", "H": "uint16_t", "i4": "int32_t",
           "I4": "uint32_t", "i8": "int64_t", "I8": "uint64_t", "f": "float", "d": "double"}


def _size(code: str) -> int:
    return {"b": 1, "B": 1, "h": 2, "H": 2, "f": 4, "d": 8}.get(code) or int(code[1:])


class LuaController(ScriptController):
    """The Lua controller of one group: one Lua state for all its robots."""

    language = "Lua"
    has_destroy = True   # Simulation.finish() calls destroy()

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        group, views, port = self.group, self.views, self.port
        self.failed = np.zeros(len(views), dtype=bool)
        self.lua = None
        self.runtime = getattr(self.cfg, "runtime", "lua5.3")
        self.loop_guard = getattr(self.cfg, "loop_guard", True)
        self.trusted = getattr(self.cfg, "trusted", False)
        self._stop: BaseException | None = None   # what a Python callback raised (a stop)
        self._stop_seen: float | None = None       # when the current call first saw a stop
        self._broken = False   # the Lua state itself failed: the group is stopped
        rt = group.robot_type
        self._type_api, plain = TYPE_APIS.get(rt.name, (None, frozenset()))
        self._paused_sent = False
        self._host = list(rt.host_api)
        self._host_fns = [h.fn for h in self._host]
        self._fn_of = {float(i): fn for i, fn in enumerate(self._host_fns)}
        self._view_of = {float(k + 1): v for k, v in enumerate(views)}
        # readings whose shape is learnt travel as bytes; the others are converted per robot
        self._fast: list[tuple[str, np.ndarray, Shape]] = []
        self._slow: list[tuple[str, np.ndarray, Callable]] = []
        for name, spec in rt.devices.items():
            dev = group.devices.get(name)
            if spec.script is None or dev is None:
                continue
            arr = group.readings[dev.name]
            shape = probe(spec.script.convert, arr.shape[1:], arr.dtype)
            if shape is not None:
                if spec.script.name not in plain:
                    shape = _scalar_as_table(shape)
                self._fast.append((spec.script.name, arr, shape))
            else:
                self._slow.append((spec.script.name, arr, spec.script.convert))
        self._cap = 0
        if port is not None and len(views):
            self._cap = int(min(int(port.cap[0]), port.outbox.shape[1]))

    # ------------------------------------------------------------------ lifecycle
    def reset(self, group_view) -> None:
        """ARGoS's reset: healthy robots restart their random streams and run ``reset()``; a
        robot whose script failed is loaded afresh (top level and ``init()``)."""
        if self.lua is None or self._broken:
            self._load()
            return
        self.failures = []
        renewed = self._call("reset", self.M.renew_failed)
        if renewed is None:
            return
        self.failed[:] = False
        self._sense_only()
        self._report(self._call("reset", self.M.reset_all))
        self._replay_taken("reset")
        if len(renewed):
            self._report(self._call("init", self.M.load_all, self.source,
                                    chunkname(self.script), renewed))
            self._replay_taken()

    def destroy(self) -> None:
        """Runs every healthy robot's ``destroy()`` (at the end of a run; a stop during it
        ends it without raising: the run is ending already)."""
        if self.lua is not None and not self._broken:
            with contextlib.suppress(KeyboardInterrupt):
                self._report(self._call("destroy", self.M.destroy_all))

    # ------------------------------------------------------------------ calls into Lua
    def _call(self, where: str, fn, *args):
        """``fn(*args)``, a call into the runtime. A stop during it (a signal, the run's time
        limit) raises here what the stop raised; an error of the Lua state itself stops the
        whole group, located at the script."""
        if self._broken:
            return None
        self._stop_seen = None
        try:
            result = fn(*args)
        except self._lua_errors as exc:
            if self._stopped():
                self._raise_stop()
            self._group_failed(where, exc)
            return None
        if self._stopped():
            self._raise_stop()
        return result

    def _stopped(self) -> bool:
        try:
            stopping, raised = self.M.take_stop()
        except self._lua_errors:
            stopping, raised = False, None
        if isinstance(raised, BaseException) and self._stop is None:
            self._stop = raised   # raised by a signal handler as the callback began
        return bool(stopping) or self._stop is not None

    def _raise_stop(self):
        exc, self._stop = self._stop, None
        raise exc if exc is not None else KeyboardInterrupt()

    def _poll(self) -> bool:
        """Called by the runtime's hook every million instructions: True ends the call. A
        recorded signal lets the tick go on for :data:`STOP_GRACE_S` (the run stops once it
        ends); what a signal handler raises here (a second signal, the time limit) ends it at
        once."""
        try:
            if not stop_requested():
                return False
            now = time.monotonic()
            if self._stop_seen is None:
                self._stop_seen = now
            return now - self._stop_seen >= STOP_GRACE_S
        except BaseException as exc:   # noqa: BLE001 - raised again by _call
            self._stop = exc
            return True

    def _group_failed(self, where: str, exc: BaseException) -> None:
        self._broken = True
        text = _text(exc.args[0]) if exc.args else type(exc).__name__
        if isinstance(exc, MemoryError) or text == "not enough memory":
            text = "not enough memory"
        message = f"{self.script}: the group's Lua state failed: {text}"
        for k in range(len(self.views)):
            if not self.failed[k]:
                self._failed(k, where, message)

    def _load(self) -> None:
        g = self.group
        self._broken = False
        self._stop = None
        self._lua_errors = (_lupa(self.runtime).LuaError,)
        lua = self.lua = new_state(self.runtime)
        dialect = "dialect_luajit.lua" if self.runtime == "luajit" else "dialect_lua53.lua"
        D = lua.execute(_source(dialect), name=f"=swarmstack/lua/{dialect}")
        M = self.M = lua.execute(_source("runtime.lua"), D, name="=swarmstack/lua/runtime.lua")
        self._paused_sent = False
        self.failures = []
        self.failed[:] = False
        hosts = []
        for h in self._host:
            fewest, most = _arity(h.fn)
            hosts.append({b"name": h.name.encode(), b"fewest": fewest, b"most": most,
                          b"lengths": [i + 1 for i in h.lengths]})
        emitters = g.robot_type.emitters
        setup = lua.table_from({b"hosts": hosts, b"cap": self._cap,
                                b"n_leds": emitters.n_leds if emitters is not None else 0,
                                b"dt": float(self.clock.dt) if self.clock is not None else 0.1,
                                b"trusted": bool(self.trusted)},
                               recursive=True)
        setup[b"log"] = self._lua_log
        setup[b"poll"] = self._poll
        M.setup(setup)
        if self._type_api is not None:
            M.set_type_api(lua.execute(_source(self._type_api), M.helpers,
                                       name=f"=swarmstack/lua/{self._type_api}"))
        # the hook stays without the budget but for LuaJIT, where it keeps the compiler off
        M.guard_loops(self.loop_guard, self.loop_guard or self.runtime != "luajit")
        templates = {name.encode(): _bytes_keys(shape.template)
                     for name, _, shape in self._fast}
        keys = g.streams.keys("controller")
        per_run: dict[int, int] = {}
        directory = str(self.script.parent).encode("utf-8", "surrogateescape")
        M.file_token(str(self.script).encode("utf-8", "surrogateescape"))   # lua#1
        for k, view in enumerate(self.views):
            index = per_run.get(view.run, 0)
            per_run[view.run] = index + 1
            key = int(keys[k])
            spec = lua.table_from({
                b"id": f"{g.name}{index}".encode(), b"type": g.robot_type.name.encode(),
                b"group": g.name.encode(), b"seed_hi": key >> 32, b"seed_lo": key & 0xFFFFFFFF,
                b"params": _bytes_keys(g.params[view.run]),
                b"sensors": templates, b"dir": directory}, recursive=True)
            M.add_robot(k + 1, spec)
        M.set_fill(lua.execute(fill_source([(n, s) for n, _, s in self._fast],
                                           self.runtime).encode(), name="=readings"))
        self._sense_only()
        self._report(self._call("init", M.load_all, self.source, chunkname(self.script)))
        self._replay_taken()

    # ------------------------------------------------------------------ the tick
    def _inputs(self) -> list:
        slow = None
        if self._slow:
            slow = self.lua.table_from(
                [{name.encode(): _bytes_keys(shift_keys(_tableish(convert(arr[k]))))
                  for name, arr, convert in self._slow} for k in range(len(self.views))],
                recursive=True)
        rab = [None] * 4
        if self.port is not None and self._cap > 0:
            inbox = self.port.group_inbox()
            width = self.port.outbox.shape[1]
            heard = np.empty(len(inbox), dtype=_HEARD)
            heard["d"] = inbox.distance_m
            heard["az"] = inbox.azimuth_rad
            heard["el"] = inbox.elevation_rad
            heard["size"] = inbox.size if len(inbox) else 0
            payload = inbox.payload[:, :width] if len(inbox) else np.zeros((0, width), np.uint8)
            rab = [inbox.start.astype("<i4").tobytes(), heard.tobytes(),
                   np.ascontiguousarray(payload).tobytes(), width]
        return [slow, *rab, *(arr.tobytes() for _, arr, _ in self._fast)]

    def _sense_only(self) -> None:
        self._report(self._call("init", self.M.sense, *self._inputs()))

    def step(self, group_view) -> None:
        if self._broken:
            return
        paused = self.paused
        if paused is not None or self._paused_sent:
            self.M.set_paused(None if paused is None
                              else np.asarray(paused, dtype=np.uint8).tobytes())
            self._paused_sent = paused is not None
        out = self._call("step", self.M.step_all, *self._inputs())
        if out is None:
            return
        calls, rab, failures = out
        if calls:
            self._replay(np.frombuffer(calls, dtype="<f8").tolist())
        if failures:
            self._report(failures)
        if rab is not None and self.port is not None:
            data = np.frombuffer(rab, dtype=np.uint8).reshape(len(self.views), self._cap)
            self.port.send_all(data)

    def _replay_taken(self, where: str = "init") -> None:
        """Replays what the scripts asked for outside ``step()`` (top level, ``init``,
        ``reset``)."""
        if self._broken:
            return
        calls = self.M.take_calls()
        if calls:
            self._replay(np.frombuffer(calls, dtype="<f8").tolist(), where)

    def _replay(self, values: list, where: str = "step") -> None:
        # the recorded numbers are doubles: small dicts keyed by them save the int() calls
        views, fns, counts = self._view_of, self._fn_of, _COUNTS
        failed = self.failed
        any_failed = failed.any()
        i, end = 0, len(values)
        while i < end:
            key = values[i]
            n = counts[values[i + 2]]
            start = i + 3
            i = start + n
            if any_failed and failed[int(key) - 1]:
                continue
            try:
                fns[values[start - 2]](views[key], *values[start:i])
            except (TypeError, ValueError, IndexError, OverflowError, RuntimeError) as exc:
                k, f = int(key) - 1, int(values[start - 2])
                self.M.fail(k + 1)
                self._failed(k, where, f"robot.{self._host[f].name}(): {exc}")
                any_failed = True

    # ------------------------------------------------------------------ failures
    def _report(self, failures) -> None:
        if not failures:
            return
        for _, f in sorted(failures.items()):
            self._failed(int(f[b"k"]) - 1, _text(f[b"where"]), _text(f[b"message"]))

    def _failed(self, k: int, where: str, message: str) -> None:
        self.failed[k] = True
        self._silence(k)
        message = _bounded(located(message, self._files()), 16000)
        if message == "not enough memory":   # Lua gives no position for this one
            message = (f"{self.script}: not enough memory (the group's Lua scripts together "
                       f"may use {MAX_MEMORY_BYTES >> 20} MiB)")
        # the traceback's frames inside the runtime say nothing to the script's author
        message = "\n".join(line for line in message.split("\n")
                            if not any(f in line for f in _OWN_FILES)
                            and "in function 'xpcall'" not in line)
        first = _bounded(message.split("\n", 1)[0], MAX_ERROR_CHARS)
        if first in ("", "stack traceback:"):   # an error value that cannot be told
            first = f"{self.script}: {where}: error without a message"
        self._record(k, where, first, message, message)

    def _files(self) -> list[str]:
        files = self.M.files
        return [_text(files[i]) for i in range(1, len(files) + 1)]

    def _lua_log(self, k: int, text) -> bool:
        """A script's log line; True when the run is being stopped (what stopped it, a
        signal handler's KeyboardInterrupt, is raised once the call into Lua returns)."""
        try:
            view = self.views[int(k) - 1]
            self.log(self.group.name, view.run, view.id, self._tick(),
                     _bounded(_text(text), MAX_LOG_CHARS))
        except BaseException as exc:   # noqa: BLE001 - raised again by _call
            self._stop = exc
            return True
        return False

    # ------------------------------------------------------------------ inspection
    def get_global(self, k: int, name: str) -> Any:
        """Robot ``k``'s (row in the group) global ``name``, as Python values."""
        return _python(self.M.robots()[k + 1][b"env"][name.encode()])


def _scalar_as_table(shape: Shape) -> Shape:
    """A reading that is one number appears as ``robot.NAME[1]`` (ARGoS's ``robot.tof[1]``)."""
    if isinstance(shape.template, dict):
        return shape
    return Shape({1: shape.template}, tuple(((1,) + p, j) for p, j in shape.leaves),
                 shape.code, shape.size)


def _tableish(value):
    return value if isinstance(value, (dict, list, tuple)) else [value]


def _bytes_keys(value):
    if isinstance(value, dict):
        return {(k.encode() if isinstance(k, str) else k): _bytes_keys(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return {i + 1: _bytes_keys(v) for i, v in enumerate(value)}
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = int(value)
        # Lua's integers are 64-bit: a larger one arrives as the nearest float
        return value if -2 ** 63 <= value < 2 ** 63 else float(value)
    return float(value) if isinstance(value, (np.floating,)) else value


def _python(value, depth: int = 0):
    """A Lua value as plain Python (tables as dicts; strings as str)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return {_python(k, depth + 1): _python(v, depth + 1) for k, v in value.items()} \
        if depth < 32 and type(value).__name__ == "_LuaTable" else value
