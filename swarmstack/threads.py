"""Threads for the kernels: how many a process uses, and when a kernel is worth running on them.

Kernels independent per robot come in two compiled forms around one shared body: a *serial*
one (a plain loop: the cheapest launch) and a *parallel* one (Numba ``prange`` over chunks of
robots, on Numba's thread pool). Every robot writes only its own outputs and draws from its own
counter-based streams (:mod:`swarmstack.world.rng`), so both forms give bit-identical results
whatever the thread count. Launching on the pool costs microseconds, so a kernel goes parallel
only for at least :func:`parallel_min` items and when more than one thread is allowed.

Nothing here touches Numba's threading layer until a kernel first goes parallel: a one-thread
process never starts the pool.
"""

from __future__ import annotations

import os
from typing import Optional

# Work items (robots, receivers …) from which a parallel launch pays for itself. Below, one
# thread finishes a typical sensor or contact pass in less time than waking a second one.
PARALLEL_MIN_ITEMS = 512

_threads: Optional[int] = None  # None: not chosen yet, the machine's usable cores
_parallel_min = PARALLEL_MIN_ITEMS
_pool_for = 0  # the thread count Numba's pool was last sized for (0: never touched)


def machine_threads() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def set_threads(n: Optional[int]) -> int:
    """Use ``n`` threads in the kernels (None or 0: every usable core); returns the count.

    Also reads ``SWARMSTACK_THREADS`` when ``n`` is None, so that worker processes of a batch
    can be told to stay on one thread each."""
    global _threads
    if n is None or n == 0:
        env = os.environ.get("SWARMSTACK_THREADS", "").strip()
        n = int(env) if env.isdigit() and int(env) > 0 else machine_threads()
    if n < 0:
        raise ValueError(f"threads must be at least 1 (or 0 for every core), got {n}")
    _threads = int(n)
    return _threads


def threads() -> int:
    """How many threads the kernels may use (chosen at first use if nobody chose)."""
    return _threads if _threads is not None else set_threads(None)


def set_parallel_min(items: int) -> None:
    """Go parallel from ``items`` work items on (tests set 1 to exercise the parallel forms)."""
    global _parallel_min
    _parallel_min = max(1, int(items))


def parallel_min() -> int:
    return _parallel_min


def go_parallel(items: int) -> bool:
    """Whether a kernel over ``items`` independent work items should take the parallel form.

    True also sizes Numba's pool to :func:`threads` (once, at first need)."""
    n = threads()
    if n < 2 or items < _parallel_min:
        return False
    _size_pool(n)
    return True


def _size_pool(n: int) -> None:
    global _pool_for
    if _pool_for == n:
        return
    import numba

    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    _pool_for = n
