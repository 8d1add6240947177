"""Numba brought up for the kernels without paying for what they never use.

A run's kernels are compiled once and loaded from Numba's cache in every later process. What
made a process's start cost more than it needs:

- Before loading any cached kernel Numba loads its whole library of Python, NumPy and
  container implementations into its compiler (some sixty modules and their registries,
  0.07–0.1 s), although machine code read from the cache is only linked, never typed or
  lowered again. :func:`prepare` lets a cache load start Numba's runtime alone (what the
  machine code calls) and leaves the library to the first real compilation, which loads it
  as it always does. The environments of Numba's library functions that a cached kernel
  brings are rebuilt without importing their modules (nopython code never reads their
  globals). A cached kernel that hashes (typed dicts, strings) gets Numba's hashing
  symbols first.
- Numba's array library probes for SciPy's BLAS by *importing* ``scipy.linalg``, which drags in
  most of SciPy and NumPy's f2py (0.1–0.2 s) although no kernel of ours calls BLAS: when the
  library is loaded, the probe looks for SciPy's BLAS module on disk instead. The answer is the
  same, and Numba still imports SciPy for real the moment a kernel that needs BLAS is
  compiled, because the probe's own function is put back right after.
- Numba's own import checks SciPy's version by importing SciPy's top level, and imports PyYAML
  to read a ``.numba_config.yaml`` (0.02–0.04 s together). :func:`quiet_numba_import`, run
  when ``swarmstack`` is imported, makes both look absent while Numba's package initialises,
  unless SciPy or PyYAML is already imported or such a file is in the working directory (then
  Numba reads it as always). SciPy and PyYAML import normally for everything else.
- A tick calls the kernels of a small group many times with the same arrays: :func:`compiled`
  hands out the machine code for those argument types, without the dispatcher's type checks.
- Loading a cached kernel listed every symbol of the library code it brings (hundreds of
  LLVM calls, ~1 ms a kernel) so that later look-ups of a symbol by name could be answered
  from a set; the look-up now asks the loaded modules for that one name instead
  (:func:`_symbols_looked_up_by_name`).
- A cached kernel also brings its LLVM bitcode, which Numba parsed at every load (1–2 ms a
  kernel, 6–17 ms for a run's kernels) although only code compiled later against the kernel
  links it in: it is now parsed when that happens, or when a look-up by name needs it. The
  kernel's own entry point is known to be defined without it (:func:`_bitcode_on_demand`).
- Numba's type of an array first checks that it is not a NumPy masked array, which imports
  ``numpy.ma`` (0.01 s) in a process that has none: while ``numpy.ma`` is not imported no
  masked array can exist, and the array's type is worked out without the check.
- Numba compiled its runtime (the reference counting every kernel that handles arrays calls)
  from LLVM IR in every process, 0.02 s: its machine code is now cached like a kernel's, in
  ``NUMBA_CACHE_DIR`` if set, else beside this module, and used when it was made by the same
  Numba and llvmlite for the same CPU (:func:`runtime_cache_path`).

If Numba's internals differ from what this expects, Numba simply does what it always did.
"""

from __future__ import annotations

import importlib.util
import os
import pickle
import sys
from pathlib import Path
from typing import Callable, Optional

from swarmstack.kernels import declare
from swarmstack.kernels.declare import Kernel

_prepared = False


class _NumbaStartup:
    """Meta-path finder: SciPy and PyYAML are not found while Numba's package initialises."""

    skipped = ("scipy", "yaml")

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name not in cls.skipped:
            return None
        numba = sys.modules.get("numba")
        if numba is None:
            return None
        if not getattr(getattr(numba, "__spec__", None), "_initializing", False):
            _forget_finder()  # Numba is imported: nothing left to skip
            return None
        if name == "yaml" and os.path.isfile(".numba_config.yaml"):
            return None
        raise ModuleNotFoundError(f"{name} is not imported while Numba starts", name=name)


def _forget_finder() -> None:
    try:
        sys.meta_path.remove(_NumbaStartup)
    except ValueError:
        pass


def quiet_numba_import() -> None:
    """Numba's coming import skips SciPy's version check and the YAML reader (see the module's
    docstring); nothing happens if Numba is already imported."""
    if "numba" not in sys.modules and _NumbaStartup not in sys.meta_path:
        sys.meta_path.insert(0, _NumbaStartup)


def prepare_on_import() -> None:
    """:func:`prepare` as soon as anything imports Numba (a kernel that needs it, a user's own
    ``import numba``), so that its first kernel load already has the adjustments."""
    from swarmstack.imports import after_import

    after_import("numba", lambda _numba: prepare())


def scipy_blas_on_disk() -> bool:
    """Whether SciPy's Cython BLAS module is installed, found without importing SciPy."""
    try:
        spec = importlib.util.find_spec("scipy")
    except (ImportError, ValueError):
        return False
    if spec is None or not spec.submodule_search_locations:
        return False
    for root in spec.submodule_search_locations:
        if any(Path(root, "linalg").glob("cython_blas*")):
            return True
    return False


def prepare() -> None:
    """Make Numba load cached kernels without its compiler's library, and load that library
    (when something is compiled) with the BLAS probe answered from disk. Idempotent; call
    before the first kernel loads."""
    global _prepared
    if _prepared:
        return
    _prepared = True
    _forget_finder()
    try:
        from numba.core import caching, cpu
        from numba.core.runtime import nrt
    except ImportError:
        return
    _load_library_on_compile(cpu.CPUContext)
    _load_cached_without_library(caching, nrt.rtsys)
    _environments_without_imports()
    _runtime_from_cache(nrt)
    _array_type_without_masked_arrays()
    _symbols_looked_up_by_name()
    _bitcode_on_demand()


def _load_library_on_compile(context_class) -> None:
    """The first time Numba loads its implementations (before compiling anything), it loads
    its array library with the BLAS probe answered from disk."""
    original = getattr(context_class, "load_additional_registries", None)
    if original is None or "numba.np.arraymath" in sys.modules:
        return

    def load_additional_registries(self):
        context_class.load_additional_registries = original
        _array_library_without_scipy()
        original(self)

    context_class.load_additional_registries = load_additional_registries


def _array_library_without_scipy() -> None:
    if "numba.np.arraymath" in sys.modules:
        return
    try:
        import numba.np.linalg as linalg
    except ImportError:
        return
    probe = getattr(linalg, "ensure_blas", None)
    if probe is None:
        return
    present = scipy_blas_on_disk()

    def ensure_blas_on_disk():
        if not present:
            raise ImportError("scipy 0.16+ is required for linear algebra")

    linalg.ensure_blas = ensure_blas_on_disk
    try:
        import numba.np.arraymath as arraymath
    finally:
        linalg.ensure_blas = probe
    if getattr(arraymath, "ensure_blas", None) is ensure_blas_on_disk:
        arraymath.ensure_blas = probe


_HASHING_SYMBOL = b"_numba_hashsecret_"


def _load_cached_without_library(caching, runtime) -> None:
    """A cache load starts Numba's runtime instead of refreshing the compiler's whole library
    (which compiling still does first, as before)."""
    cache = getattr(caching, "Cache", None)
    impl = getattr(caching, "CompileResultCacheImpl", None)
    if cache is None or impl is None or not all(
            hasattr(cache, a) for a in ("load_overload", "_load_overload",
                                        "_guard_against_spurious_io_errors")) \
            or not hasattr(impl, "rebuild") or not hasattr(runtime, "initialize"):
        return
    rebuild = impl.rebuild

    def load_overload(self, sig, target_context):
        runtime.initialize(target_context)  # what cached machine code calls into
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
        return None  # an I/O error the guard swallowed: Numba compiles instead

    def rebuild_with_symbols(self, target_context, payload):
        try:
            object_code = payload[0][2][0]
        except (IndexError, TypeError, KeyError):
            object_code = _HASHING_SYMBOL  # an unknown layout: load everything, to be safe
        if _HASHING_SYMBOL in object_code:
            import numba.cpython.hashing  # noqa: F401  (adds the hash secret's symbols)
        try:  # the kernel's entry point: its own object code defines it
            wrapper = payload[1].llvm_cpython_wrapper_name
            defined = target_context.codegen()._engine._defined_symbols
        except (AttributeError, IndexError, TypeError):
            return rebuild(self, target_context, payload)
        known = wrapper in defined
        defined.add(wrapper)
        try:
            return rebuild(self, target_context, payload)
        except BaseException:
            if not known:
                defined.discard(wrapper)
            raise

    cache.load_overload = load_overload
    impl.rebuild = rebuild_with_symbols


def _environments_without_imports() -> None:
    """A cached kernel that uses functions of Numba's library brings their *environments*: the
    constants they hold and the globals of the module they were written in. Rebuilding one
    imported that module only for its globals, which code compiled in nopython mode (all of
    Numba's library functions) never reads: for a module of Numba's not imported yet, the
    environment gets a dict naming the module instead. Its constants are restored as before."""
    try:
        from numba.core import environment
    except ImportError:
        return
    rebuild = getattr(environment, "_rebuild_env", None)
    env_class = getattr(environment, "Environment", None)
    lookup = getattr(environment, "lookup_environment", None)
    if rebuild is None or env_class is None or lookup is None \
            or not hasattr(env_class, "_memo"):
        return

    def rebuild_env(modname, consts, env_name):
        if lookup(env_name) is not None or modname in sys.modules \
                or not str(modname).startswith("numba."):
            return rebuild(modname, consts, env_name)
        env = env_class({"__name__": modname})
        env.consts[:] = consts
        env.env_name = env_name
        env_class._memo[env_name] = env
        return env

    environment._rebuild_env = rebuild_env


def _symbols_looked_up_by_name() -> None:
    """Numba's execution engine records the symbols every module added to it defines, to answer
    ``is_symbol_defined(name)`` (getting a kernel's entry point, linking new code). Listing
    them costs ~1 ms per cached kernel: the modules are kept instead, and a look-up asks each
    for that name (a defined, not merely declared, function or global, as the listing kept);
    the first look-up of a name none defines lists them all, as before, so that compiling,
    which asks for many such names, pays no more than it did."""
    try:
        from numba.core import codegen
    except ImportError:
        return
    engine = getattr(codegen, "JitEngine", None)
    if engine is None or getattr(engine, "_symbols_by_name", False) or not all(
            hasattr(engine, a) for a in ("_load_defined_symbols", "is_symbol_defined")):
        return

    list_symbols = engine._load_defined_symbols

    def load_defined_symbols(self, mod):
        self.__dict__.setdefault("_symbol_modules", []).append(mod)

    def is_symbol_defined(self, name):
        if name in self._defined_symbols:
            return True
        pending = self.__dict__.get("_symbol_modules")
        if not pending:
            return False
        for mod in reversed(pending):   # a kernel's entry point: in the module loaded last
            mod = _parsed(mod)
            for lookup in (mod.get_function, mod.get_global_variable):
                try:
                    if not lookup(name).is_declaration:
                        self._defined_symbols.add(name)
                        return True
                except NameError:
                    pass
        # not defined by name (linking new code asks for many such): list the modules kept so
        # far once, as Numba did when they were added, and answer from that from now on
        for mod in pending:
            list_symbols(self, _parsed(mod))
        pending.clear()
        return name in self._defined_symbols

    engine._load_defined_symbols = load_defined_symbols
    engine.is_symbol_defined = is_symbol_defined
    engine._symbols_by_name = True


class _Bitcode:
    """The linking bitcode of a library loaded from the cache, parsed on first use."""

    __slots__ = ("library",)

    def __init__(self, library):
        self.library = library

    def module(self):
        return self.library._get_module_for_linking()


def _parsed(mod):
    return mod.module() if isinstance(mod, _Bitcode) else mod


def _bitcode_on_demand() -> None:
    """Numba's cache load of a library (object code plus the bitcode other code links in)
    without parsing the bitcode: it is kept as bytes and parsed by ``_get_module_for_linking``,
    i.e. when code compiled later links the library or a look-up by name reaches it. The
    machine code is loaded and finalised exactly as Numba does. Needs the look-up by name of
    :func:`_symbols_looked_up_by_name` (which then finds a kernel's entry point without the
    bitcode: :func:`_load_cached_without_library` records it as defined)."""
    try:
        import llvmlite.binding as ll
        from numba.core import codegen
    except ImportError:
        return
    library = getattr(codegen, "CPUCodeLibrary", None)
    engine = getattr(codegen, "JitEngine", None)
    if library is None or engine is None or not getattr(engine, "_symbols_by_name", False) \
            or getattr(library, "_bitcode_on_demand", False) or not all(
                hasattr(library, a) for a in (
                    "_unserialize", "_get_module_for_linking", "enable_object_caching",
                    "_set_compiled_object", "_finalize_final_module")):
        return
    unserialize = library._unserialize  # bound to the class (a classmethod)
    for_linking = library._get_module_for_linking

    def unserialize_object_code(cls, codegen_, state):
        name, kind, data = state
        if kind != "object":
            return unserialize(codegen_, state)
        object_code, shared_bitcode = data
        self = codegen_.create_library(name)
        self.enable_object_caching()
        self._set_compiled_object(object_code)
        self._shared_module = None
        self._shared_bitcode = shared_bitcode
        self._finalize_final_module()
        self._codegen._engine._load_defined_symbols(_Bitcode(self))
        return self

    def get_module_for_linking(self):
        bitcode = self.__dict__.pop("_shared_bitcode", None)
        if bitcode is not None and self._shared_module is None:
            self._shared_module = ll.parse_bitcode(bitcode)
        return for_linking(self)

    library._unserialize = classmethod(unserialize_object_code)
    library._get_module_for_linking = get_module_for_linking
    library._bitcode_on_demand = True


def _array_type_without_masked_arrays() -> None:
    """Numba's ``typeof`` of a NumPy array, without importing ``numpy.ma`` to rule out a masked
    array while nothing has imported it (then none exists); as Numba's own otherwise."""
    try:
        import numpy as np
        from numba.core import errors, types
        from numba.core.typing.typeof import typeof_impl
        from numba.np import numpy_support
    except ImportError:
        return
    original = typeof_impl.dispatch(np.ndarray)
    if getattr(original, "_without_masked_arrays", False):
        return

    def typeof_array(val, c):
        if "numpy.ma" in sys.modules:
            return original(val, c)
        try:
            dtype = numpy_support.from_dtype(val.dtype)
        except errors.NumbaNotImplementedError:
            return original(val, c)  # Numba's own error for an unsupported dtype
        return types.Array(dtype, val.ndim, numpy_support.map_layout(val),
                           readonly=not val.flags.writeable)

    typeof_array._without_masked_arrays = True
    typeof_impl.register(np.ndarray)(typeof_array)


RUNTIME_CACHE_NAME = "numba_runtime"


def runtime_cache_path() -> Optional[Path]:
    """Where the compiled Numba runtime is cached: ``NUMBA_CACHE_DIR`` (as Numba's kernels) or
    this package's ``__pycache__``, under a name holding the Numba and llvmlite versions; None
    if neither is importable."""
    try:
        import llvmlite
        import numba
    except ImportError:
        return None
    return cache_root() / f"{RUNTIME_CACHE_NAME}-{numba.__version__}-{llvmlite.__version__}.nbr"


def cache_root() -> Path:
    """Where compiled code is kept: ``NUMBA_CACHE_DIR`` (as Numba's kernels), else this
    package's ``__pycache__``."""
    return Path(os.environ.get("NUMBA_CACHE_DIR") or Path(__file__).parent / "__pycache__")


runtime_loaded_from_cache = False  # this process's Numba runtime came from the cache file


def _runtime_from_cache(nrt) -> None:
    """Numba's runtime library from its cached machine code when the file was made for this
    CPU and optimisation level (the codegen's magic tuple, as Numba checks for a kernel); else
    compiled as before and written for the next process. Any problem reading or writing, or
    Numba's runtime debugging on (``NUMBA_DEBUG_NRT``): compiled as before."""
    dynmod = getattr(nrt, "nrtdynmod", None)
    original = getattr(dynmod, "compile_nrt_functions", None)
    create = getattr(dynmod, "create_nrt_module", None)
    if original is None or create is None:
        return

    def compile_nrt_functions(ctx):
        global runtime_loaded_from_cache
        path = runtime_cache_path()
        codegen = ctx.codegen()
        try:
            from numba.core import config

            if config.DEBUG_NRT:  # the runtime then prints as it counts: always compiled
                return original(ctx)
            magic = (codegen.magic_tuple(), str(config.OPT))
        except Exception:
            return original(ctx)
        if path is not None and path.is_file():
            try:
                saved_magic, state = pickle.loads(path.read_bytes())
                if saved_magic == magic:
                    library = codegen.unserialize_library(state)
                    runtime_loaded_from_cache = True
                    return library
            except Exception:  # a damaged or foreign file: compile instead
                pass
        try:
            ir_mod, library = create(ctx)
            library.enable_object_caching()
            library.add_ir_module(ir_mod)
            library.finalize()
            state = library.serialize_using_object_code()
        except Exception:
            return original(ctx)
        if path is not None:
            _write_atomically(path, pickle.dumps((magic, state)))
        return library

    dynmod.compile_nrt_functions = compile_nrt_functions


def _write_atomically(path: Path, data: bytes) -> None:
    """``data`` into ``path`` through a temporary file, so that a process never reads half of
    it; nothing happens if the folder cannot be written (the runtime is compiled next time)."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


class NumbaAfterStart:
    """A bound call of a kernel declared ``ahead="start"``: the machine code built ahead for
    the first :data:`~swarmstack.kernels.declare.AHEAD_CALLS` calls (a run starts without
    Numba), then Numba's own, faster for this kernel (started then, if it was not)."""

    __slots__ = ("function", "calls", "kernel")

    def __init__(self, function: Callable, kernel):
        self.function, self.calls, self.kernel = function, 0, kernel

    def __call__(self, *args):
        if self.kernel is not None:
            self.calls += 1
            if self.calls > declare.AHEAD_CALLS or declare.numba_started():
                self.function = _numba_compiled(self.kernel.dispatcher(), args)
                self.kernel = None
        return self.function(*args)


def compiled(kernel, *args):
    """The machine code of ``kernel`` (declared with :func:`swarmstack.kernels.njit`, or a Numba
    dispatcher) for exactly the types of ``args``, as a plain callable: built ahead of time
    (:mod:`swarmstack.kernels.ahead`), else loaded from the cache or compiled now, as a first
    call would.

    A dispatcher works out every argument's type at every call (about 0.15 µs for a kernel of
    eight arguments, as long as the kernel itself for a small group). A call that the tick
    makes with the same arrays and the same kinds of scalars every time can skip that: the
    callable returned must then only ever get arguments of the types given here (the same
    arrays, or arrays of the same dtype, dimensions and layout; ints for ints, floats for
    floats), since the machine code does not check them. Without Numba's compiler (e.g.
    ``NUMBA_DISABLE_JIT=1``) it is ``kernel`` itself."""
    declared = kernel if isinstance(kernel, Kernel) else getattr(kernel, "kernel", None)
    if isinstance(declared, Kernel):  # (a kernel's dispatcher names its kernel)
        function = declared.ahead(args)
        if function is not None:
            if declared.numba_after_start:
                return NumbaAfterStart(function, declared)
            return function
        kernel = declared.dispatcher()
    return _numba_compiled(kernel, args)


def _numba_compiled(kernel, args: tuple) -> Callable:
    """Numba's machine code of dispatcher ``kernel`` for the types of ``args`` (``kernel``
    itself when it is no dispatcher: ``NUMBA_DISABLE_JIT``)."""
    overloads = getattr(kernel, "overloads", None)
    if overloads is None:
        return kernel
    sig = tuple(kernel.typeof_pyval(a) for a in args)
    cres = overloads.get(sig)
    if cres is None:
        kernel.compile(sig)
        cres = overloads[sig]
    return cres.entry_point
