"""Declaring a kernel without starting Numba.

Importing Numba costs a process about 0.1 s, a third of a small run's start, and a run whose
kernels were all built ahead of time (:mod:`swarmstack.kernels.ahead`) does not need it. A
kernel module therefore declares its kernels with :func:`njit` (``numba.njit``'s options) and
takes :data:`prange` from here; each kernel is a :class:`Kernel`:

- called with argument types built ahead of time (and before Numba has started), it runs that
  machine code, for its first :data:`AHEAD_CALLS` calls;
- otherwise it starts Numba (once per process, with :func:`swarmstack.jit.prepare`'s start-up
  adjustments) and becomes Numba's dispatcher, which compiles or loads it from the cache as
  ``numba.njit`` always did. From then on the kernel's name in its module *is* the dispatcher,
  and so are the other kernels its module names (Numba compiles calls between kernels from
  them), and :data:`prange` there is Numba's.

Attributes only a dispatcher has (``overloads``, ``signatures``, ``stats`` …) start Numba too.
"""

from __future__ import annotations

import functools
import gc
import types
from typing import Any, Callable, Optional

_numba = None  # the numba module, once started
# A call of a kernel (not a bound call: ``jit.compiled``) works out its arguments' types in
# Python to find the machine code built ahead, 1–3 µs, where Numba's dispatcher takes 0.2–0.5
# µs in C: after this many such calls of one kernel (a tick's call, some way into a run) the
# kernel starts Numba (0.1 s, once) and runs through its dispatcher from then on.
AHEAD_CALLS = 2000
_kernels: list["Kernel"] = []  # every kernel declared, in order
_with_numba: set[int] = set()  # ids of the module namespaces already given Numba's names


class _PRange:
    """Stands for ``numba.prange`` in a kernel's module until Numba starts (then Numba's own
    takes its place there, before any kernel of the module is compiled). Called from Python, as
    under ``NUMBA_DISABLE_JIT``, it is ``range``."""

    def __call__(self, *args):
        return range(*args)

    def __repr__(self) -> str:
        return "prange"


prange = _PRange()


def numba():
    """The ``numba`` module, imported once with the package's start-up adjustments.

    Started during a run (a kernel called often, a kernel built ahead only for the start),
    the import's objects live as long as the process, as those of the start: the cyclic
    garbage collector is off meanwhile and sets them aside for good after (``gc.freeze``, as
    ``swarmstack.process`` does at the start), instead of going over them some hundred times."""
    global _numba
    if _numba is None:
        was_on = gc.isenabled()
        gc.disable()
        try:
            import numba as numba_module  # (SciPy's and PyYAML's imports skipped meanwhile)

            from swarmstack import jit

            jit.prepare()  # before the first kernel loads from the cache
        finally:
            if was_on:
                gc.freeze()
                gc.enable()
        _numba = numba_module
    return _numba


def numba_started() -> bool:
    """Whether a kernel has started Numba in this process (from then on every kernel's calls
    go through Numba's dispatchers; bound calls still take what was built ahead)."""
    return _numba is not None


def declared() -> list["Kernel"]:
    """Every kernel declared so far, in the order of declaration."""
    return list(_kernels)


def _types_of(args) -> Optional[tuple]:
    # (NumPy, which it needs, is imported with the first kernel call, not with this module)
    global _types_of
    from swarmstack.kernels.signature import of_values

    _types_of = of_values
    return of_values(args)


class Kernel:
    """A kernel declared with :func:`njit`. Call it as the function it wraps."""

    def __init__(self, py_func: Callable, options: dict):
        functools.update_wrapper(self, py_func)
        self.py_func = py_func
        self.options = dict(options)
        # ahead=False: never built ahead of time; ahead="start": built ahead for the start of
        # a run, its bound calls going to Numba after AHEAD_CALLS (Numba's own compilation
        # runs it faster: the E-Puck2's light sensors)
        ahead = self.options.pop("ahead", True)
        if ahead not in (True, False, "start"):
            raise ValueError(f"njit: ahead={ahead!r}; expected True, False or 'start'")
        self.built_ahead = bool(ahead)
        self.numba_after_start = ahead == "start"
        self._dispatcher = None
        self._ahead: Optional[dict] = None  # {argument types: function}, once looked up
        self._ahead_calls = 0  # calls that ran the machine code built ahead (not bound ones)
        _kernels.append(self)

    @property
    def parallel(self) -> bool:
        return bool(self.options.get("parallel"))

    def __call__(self, *args, **kwargs):
        dispatcher = self._dispatcher
        if dispatcher is None:
            if not kwargs and _numba is None and self._ahead_calls < AHEAD_CALLS:
                function = self.ahead(args)
                if function is not None:
                    self._ahead_calls += 1
                    return function(*args)
            dispatcher = self.dispatcher()
        return dispatcher(*args, **kwargs)

    def ahead(self, args) -> Optional[Callable]:
        """The machine code built ahead of time for exactly the types of ``args``, or None.
        It checks nothing: it may only ever get arguments of those types."""
        table = self._ahead
        if table is None:
            from swarmstack.kernels import ahead

            table = ahead.functions_of(self)
            if table is None:  # switched off for now: looked up again later
                return None
            self._ahead = table
        if not table:
            return None
        return table.get(_types_of(args))

    def dispatcher(self):
        """Numba's dispatcher of this kernel (Numba is started if it was not)."""
        if self._dispatcher is None:
            numba_module = numba()
            dispatcher = numba_module.njit(**self.options)(self.py_func)
            if not isinstance(dispatcher, type(self.py_func)):  # (NUMBA_DISABLE_JIT: itself)
                dispatcher.kernel = self  # bound calls still find what was built ahead
            self._dispatcher = dispatcher
            _give_numba_names(self.py_func.__globals__, numba_module)
        return self._dispatcher

    def __getattr__(self, name: str) -> Any:
        # what only Numba's dispatcher has; never for special names (copy, pickle, inspect)
        # nor before the kernel is set up (an object being unpickled)
        if name.startswith("__") or "py_func" not in vars(self):
            raise AttributeError(name)
        return getattr(self.dispatcher(), name)

    def __repr__(self) -> str:
        return f"<kernel {self.py_func.__module__}.{self.py_func.__qualname__}>"


def _give_numba_names(namespace: dict, numba_module) -> None:
    """In a kernel module's namespace, Numba's ``prange`` and dispatchers where the module named
    this module's stand-ins. Each name is replaced once; names bound later (a module still being
    imported) are still understood by Numba, through :meth:`Kernel.__getattr__`."""
    if id(namespace) in _with_numba:
        return
    _with_numba.add(id(namespace))
    for name, value in list(namespace.items()):
        if value is prange:
            namespace[name] = numba_module.prange
        elif isinstance(value, Kernel):
            namespace[name] = value.dispatcher()


def with_callees(kernel: Kernel, qualname: str, **callees: Kernel) -> Kernel:
    """A kernel of its own (named ``qualname`` in the same module, cached apart) running
    ``kernel``'s code with some of the names it calls bound to other kernels: a parallel form
    that shares its code with a serial one, which then holds no parallel code. Declare it
    after everything ``kernel`` uses."""
    py_func = kernel.py_func
    namespace = dict(py_func.__globals__)
    namespace.update(callees)
    twin = types.FunctionType(py_func.__code__, namespace, qualname.rpartition(".")[2],
                              py_func.__defaults__, py_func.__closure__)
    twin.__qualname__ = qualname
    twin.__kwdefaults__ = py_func.__kwdefaults__
    twin.__doc__ = py_func.__doc__
    ahead = "start" if kernel.numba_after_start else kernel.built_ahead
    return Kernel(twin, {**kernel.options, "ahead": ahead})


def njit(*args, **options):
    """Declare a kernel: ``@njit(cache=True, …)`` or ``@njit``, with ``numba.njit``'s options,
    ``ahead=False`` for a kernel never to be built ahead of time and ``ahead="start"`` for one
    built ahead only to start runs without Numba (its bound calls, :func:`swarmstack.jit.
    compiled`, run Numba's own code after :data:`AHEAD_CALLS`)."""
    if args and callable(args[0]) and len(args) == 1 and not options:
        return Kernel(args[0], {})
    if args:
        raise TypeError("njit: give the options by name (a signature is not supported)")

    def declare(py_func: Callable) -> Kernel:
        return Kernel(py_func, options)

    return declare
