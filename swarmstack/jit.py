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
