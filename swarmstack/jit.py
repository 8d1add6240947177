"""Numba brought up for the kernels without paying for what they never use.

Numba's first compilation or cache load imports its library of NumPy implementations; one of
them (``numba.np.arraymath``) probes for SciPy's BLAS by *importing* ``scipy.linalg``, which
drags in most of SciPy and NumPy's f2py: 0.1–0.2 s, the largest single share of a small run's
start-up, although no kernel of ours calls BLAS. :func:`prepare` lets that probe look for
SciPy's BLAS module on disk instead. The answer is the same (BLAS is there or not), and Numba
still imports SciPy for real the moment a kernel that needs BLAS is compiled, because the
probe's own function is put back right after.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_prepared = False


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
    """Load Numba's array library with the BLAS probe answered from disk (idempotent).

    Call before the first kernel runs; afterwards it changes nothing. If Numba's internals
    differ from what this expects, Numba simply probes the usual way."""
    global _prepared
    if _prepared or "numba.np.arraymath" in sys.modules:
        _prepared = True
        return
    _prepared = True
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


def compiled(kernel, *args):
    """The machine code of ``kernel`` (a Numba dispatcher) for exactly the types of ``args``,
    as a plain callable: loaded from the cache or compiled now, as a first call would.

    A dispatcher works out every argument's type at every call (about 0.15 µs for a kernel of
    eight arguments, as long as the kernel itself for a small group). A call that the tick
    makes with the same arrays and the same kinds of scalars every time can skip that: the
    callable returned must then only ever get arguments of the types given here (the same
    arrays, or arrays of the same dtype, dimensions and layout; ints for ints, floats for
    floats), since the machine code does not check them. Without Numba's compiler (e.g.
    ``NUMBA_DISABLE_JIT=1``) it is ``kernel`` itself."""
    overloads = getattr(kernel, "overloads", None)
    if overloads is None:
        return kernel
    sig = tuple(kernel.typeof_pyval(a) for a in args)
    cres = overloads.get(sig)
    if cres is None:
        kernel.compile(sig)
        cres = overloads[sig]
    return cres.entry_point
