"""Kernels: the functions a tick runs as machine code over whole groups of robots.

Every kernel of the package is declared with :func:`njit` (Numba's options, Numba's language)
and runs either from machine code built ahead of time by ``swarmstack compile``
(:mod:`swarmstack.kernels.ahead`) or through Numba's compiler and cache, which a process then
imports at the first call that needs it (:mod:`swarmstack.kernels.declare`). Both run the same
compiled code, and give the same bits.
"""

from swarmstack.kernels.declare import Kernel, njit, prange, with_callees

__all__ = ["Kernel", "njit", "prange", "with_callees"]
