"""Kernels built ahead of time: machine code a run loads without starting Numba.

``swarmstack compile`` runs a small scene of every robot type, which compiles (or loads) every
serial kernel a run uses with the argument types runs give it, then :func:`build` compiles those
kernels once more, with the same options and through the same Numba and LLVM, into one Python
extension module (Numba's ahead-of-time compiler, which needs a C compiler). It lies beside
Numba's cache (``NUMBA_CACHE_DIR``, else the package's ``__pycache__``) with a manifest naming,
for each function, its kernel, its argument types (:mod:`swarmstack.kernels.signature`) and a
digest of the sources it was built from (the kernel's module and every package module that
module imports: :func:`swarmstack.kernel_stamps.imports_digest`).

A process loads the module at the first kernel call (0.5 ms; importing Numba takes about
100 ms) and uses a function only while its kernel's sources still have that digest, and only
while the module was built by this Python, this Numba and llvmlite and for this CPU: anything
else goes to Numba as before. ``SWARMSTACK_AHEAD=0`` switches the module off for a process,
and so does ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

from swarmstack import jit, kernel_stamps
from swarmstack.kernels import declare, signature

ENV_VAR = "SWARMSTACK_AHEAD"
MANIFEST = "manifest.json"
FORMAT = 1

# off with SWARMSTACK_AHEAD=0, and under NUMBA_DISABLE_JIT (kernels then run as Python code,
# to be debugged as such)
_enabled = (os.environ.get(ENV_VAR, "").strip() != "0"
            and os.environ.get("NUMBA_DISABLE_JIT", "0").strip() in ("", "0"))
_loaded: Optional[dict] = None  # {(module, qualname): [(key, function, digest)]}, once read


@dataclass
class Built:
    """What :func:`build` made: the extension's path (None when nothing was built), how many
    functions it holds, and why it was not built, if it was not."""

    path: Optional[Path]
    functions: int
    skipped: str = ""


def folder() -> Path:
    """Where the module and its manifest lie."""
    return jit.cache_root() / "ahead"


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Every kernel called meanwhile goes to Numba, as if nothing were built ahead."""
    global _enabled
    saved = _enabled, {kernel: kernel._ahead for kernel in declare.declared()}
    _enabled = False
    for kernel in saved[1]:
        kernel._ahead = None
    try:
        yield
    finally:
        _enabled = saved[0]
        for kernel, table in saved[1].items():
            kernel._ahead = table


def functions_of(kernel: "declare.Kernel") -> Optional[dict]:
    """``{argument types: function}`` built ahead for ``kernel`` from its current sources
    (empty when none); None while switched off."""
    if not _enabled:
        return None
    table = _table()
    rows = table.get((kernel.py_func.__module__, kernel.py_func.__qualname__))
    if not rows:
        return {}
    digest = _digest_of(kernel)
    return {key: function for key, function, built_from in rows if built_from == digest}


def _digest_of(kernel) -> Optional[str]:
    path = getattr(kernel.py_func.__code__, "co_filename", None)
    if not isinstance(path, str) or not os.path.isfile(path):
        return None
    return kernel_stamps.imports_digest(os.path.abspath(path))


def _table() -> dict:
    global _loaded
    if _loaded is None:
        _loaded = {}
        try:
            _loaded = _read(folder())
        except Exception:  # unreadable, half-written, another layout: Numba does the work
            _loaded = {}
    return _loaded


def _read(where: Path) -> dict:
    try:
        manifest = json.loads((where / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    if manifest.get("format") != FORMAT or manifest.get("made_by") != _made_by():
        return {}
    path = where / manifest["file"]
    name = manifest["module"]
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    if spec is None:
        return {}
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    table: dict = {}
    for row in manifest["functions"]:
        function = getattr(module, row["symbol"], None)
        if function is not None:
            table.setdefault((row["module"], row["qualname"]), []).append(
                (signature.from_json(row["key"]), function, row["digest"]))
    return table


def _made_by() -> dict:
    """What the machine code depends on besides its sources: Python, the Numba and llvmlite
    installs (their files' sizes and times), the CPU (what it reports of itself)."""
    return {"python": sys.version, "numba": _install_stamp("numba"),
            "llvmlite": _install_stamp("llvmlite"), "cpu": _cpu()}


def _install_stamp(package: str) -> Optional[list]:
    try:
        spec = importlib.util.find_spec(package)
        st = os.stat(spec.origin)
    except (ImportError, ValueError, AttributeError, TypeError, OSError):
        return None
    return [spec.origin, st.st_size, st.st_mtime_ns]


def _cpu() -> str:
    info = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith(("model name", "flags", "vendor_id", "cpu family", "model\t")):
                    info += line
                elif not line.strip() and info:
                    break  # the first processor is enough: they are all alike here
    except OSError:
        pass
    info += os.uname().machine if hasattr(os, "uname") else sys.platform
    return hashlib.sha256(info.encode()).hexdigest()[:16]


def build(where: Optional[Path] = None, roots: Optional[list[Path]] = None) -> Built:
    """Compile every serial kernel written under ``roots`` (default: the package) that this
    process has compiled or loaded through Numba, for each of its argument types, into one
    extension module in ``where`` (default :func:`folder`), replacing what was there. Needs
    Numba's ahead-of-time compiler and a C compiler; without them nothing changes and
    ``skipped`` says why."""
    import shutil  # (what only a build needs is imported here: a run's start pays nothing)
    import tempfile

    where = Path(where) if where is not None else folder()
    rows = _rows([Path(r).resolve() for r in roots] if roots else
                 [Path(__file__).resolve().parents[1]])
    if not rows:
        return Built(None, 0, "no kernel was compiled in this process")
    content = hashlib.sha256(json.dumps([r[2] for r in rows], sort_keys=True).encode())
    name = f"swarmstack_ahead_{content.hexdigest()[:12]}"
    with tempfile.TemporaryDirectory(prefix="swarmstack-ahead-") as tmp:
        try:
            file = _compile(name, rows, Path(tmp))
        except Exception as exc:  # no C compiler, no pycc in this Numba, a kernel it rejects
            return Built(None, 0, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"
                         if str(exc) else type(exc).__name__)
        target = where / file.name
        manifest = {"format": FORMAT, "made_by": _made_by(), "module": name,
                    "file": target.name, "functions": [row for _, _, row in rows]}
        try:
            # the module, then the manifest naming it, each whole (a process reading meanwhile
            # finds the old pair or the new one), then the modules no manifest names
            where.mkdir(parents=True, exist_ok=True)
            part = target.with_name(f"{target.name}.{os.getpid()}.tmp")
            shutil.copyfile(file, part)
            os.replace(part, target)
            part = where / f"{MANIFEST}.{os.getpid()}.tmp"
            part.write_text(json.dumps(manifest, indent=1))
            os.replace(part, where / MANIFEST)
            for old in where.glob("swarmstack_ahead_*"):
                if old.name != target.name:
                    old.unlink(missing_ok=True)
        except OSError as exc:
            return Built(None, 0, f"cannot write {where}: {exc.strerror or exc}")
    _forget()
    return Built(target, len(rows))


def _forget() -> None:
    """Read the manifest again at the next look-up (after a build)."""
    global _loaded
    _loaded = None
    for kernel in declare.declared():
        kernel._ahead = None


def _rows(roots: list[Path]) -> list:
    """(dispatcher, signature, manifest row) for every serial overload that has a key, of the
    kernels written under ``roots``, in a fixed order."""
    rows = []
    for kernel in declare.declared():
        dispatcher = kernel._dispatcher
        path = os.path.abspath(getattr(kernel.py_func.__code__, "co_filename", ""))
        if dispatcher is None or kernel.parallel or not kernel.built_ahead \
                or _reaches_parallel(kernel) or not any(
                path.startswith(str(root) + os.sep) for root in roots):
            continue
        digest = _digest_of(kernel)
        for sig in list(getattr(dispatcher, "overloads", ())):  # none without the compiler
            key = signature.of_numba_types(sig)
            if key is None or digest is None:
                continue
            rows.append((dispatcher, sig, {"module": kernel.py_func.__module__,
                                           "qualname": kernel.py_func.__qualname__,
                                           "key": key, "digest": digest}))
    rows.sort(key=lambda r: json.dumps(r[2], sort_keys=True))
    for i, (_, _, row) in enumerate(rows):
        row["symbol"] = f"k{i}"
    return rows


def _reaches_parallel(kernel, seen: Optional[set] = None) -> bool:
    """Whether ``kernel`` calls a parallel kernel, itself or through the kernels it calls (code
    built ahead of time has no thread pool to run it on)."""
    seen = set() if seen is None else seen
    namespace = kernel.py_func.__globals__
    for name in kernel.py_func.__code__.co_names:
        value = namespace.get(name)
        callee = value if isinstance(value, declare.Kernel) else getattr(value, "kernel", None)
        if isinstance(callee, declare.Kernel) and id(callee) not in seen:
            seen.add(id(callee))
            if callee.parallel or _reaches_parallel(callee, seen):
                return True
    return False


def _compile(name: str, rows: list, out: Path) -> Path:
    """Numba's ahead-of-time compiler, each function with its own kernel's options (the
    compiler itself gives every function the same default ones)."""
    import ctypes
    import warnings

    from numba.core import compiler as numba_compiler

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its pending deprecation notice
        from numba.pycc import CC
        import numba.pycc.compiler as pycc_compiler

    options = {}
    cc = CC(name)
    cc.output_dir = str(out)
    cc.target_cpu = "host"  # as Numba's own compilation: the same instructions, the same bits
    cc.verbose = False
    for dispatcher, sig, row in rows:
        overload = dispatcher.overloads[sig]
        cc.export(row["symbol"], overload.signature)(dispatcher.py_func)
        options[id(dispatcher.py_func)] = dispatcher

    plain = pycc_compiler.compile_extra

    def compile_extra(typingctx, targetctx, func, args, return_type, flags, locals,
                      library=None, **kwargs):
        dispatcher = options[id(func)]
        own = numba_compiler.Flags()
        dispatcher.targetdescr.options.parse_as_flags(own, dispatcher.targetoptions)
        own.no_compile = flags.no_compile
        return plain(typingctx, targetctx, func, args, return_type, own, dispatcher.locals,
                     library=library, **kwargs)

    pycc_compiler.compile_extra = compile_extra
    try:
        with warnings.catch_warnings(), _quiet_output():
            warnings.simplefilter("ignore")
            cc.compile()
    finally:
        pycc_compiler.compile_extra = plain
    found = list(out.glob(f"{name}*"))
    if not found:
        raise RuntimeError("the compiler wrote no module")
    try:  # every symbol it needs is there (a module that cannot load is never installed)
        ctypes.CDLL(str(found[0]), mode=os.RTLD_NOW | os.RTLD_LOCAL)
    except OSError as exc:
        raise RuntimeError(f"the module built does not load: {exc}") from None
    return found[0]


@contextlib.contextmanager
def _quiet_output() -> Iterator[None]:
    """The C compiler's command lines go to a file, not to the user's terminal."""
    import tempfile

    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])

