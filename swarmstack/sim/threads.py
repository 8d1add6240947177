"""Threads for the kernels: how many a process uses, and when a kernel is worth running on them.

A kernel independent per item (robot, receiver …) is written once as ``rows(lo, hi, …)`` over
items ``lo … hi − 1``; :func:`chunked` derives its *parallel* form (Numba ``prange`` over
chunks of items, on Numba's thread pool) and :func:`form` picks one of the two when the
simulation plans its calls. Every item writes only its own outputs and draws from its own
counter-based streams (:mod:`swarmstack.world.rng`), so both forms give bit-identical results
whatever the thread count. Launching on the pool costs microseconds, so a kernel goes parallel
only for at least its own minimum of items and when more than one thread is allowed.

A one-thread process never launches work on the pool. (Numba starts its threading layer when
it loads a cached function that contains a parallel loop, which the contact pass does; the
layer is chosen first by :func:`prepare_layer`.)
"""

from __future__ import annotations

import ctypes
import operator
import os
import sys
import threading
from contextlib import contextmanager
from functools import partial
from typing import Callable, Iterator, Optional

# Work items from which a parallel launch pays for itself. Below, one thread finishes a typical
# sensor or contact pass in less time than waking a second one. A kernel much cheaper or
# dearer per item passes its own minimum to go_parallel, chosen so that its serial work is at
# least ~0.2 ms. A launch costs a few µs on an idle machine, but when another process holds a
# core the pool waits for the scheduler to run its second thread (up to a time slice,
# milliseconds): only work that large is worth the risk.
PARALLEL_MIN_ITEMS = 512

ENV_VAR = "SWARMSTACK_THREADS"

_threads: Optional[int] = None  # None: not chosen yet, the machine's usable cores
_parallel_min: Optional[int] = None  # None: each kernel's own minimum (PARALLEL_MIN_ITEMS)
_chunk_max: Optional[int] = None  # None: each kernel's own chunk size
_pool = threading.local()  # .size: the thread count Numba's pool was sized for, per thread
# counts the changes of the thread count and of the minimum: the forms of the kernels chosen
# when the simulation planned its calls are chosen again when it moves (``Simulation`` does)
generation = 0
_settings = (None, None)  # (thread count, minimum) that ``generation`` was last counted for
_layer_ready = False  # prepare_layer() ran


def _count_settings() -> None:
    global generation, _settings
    if (_threads, _parallel_min) != _settings:  # the same settings again bind nothing anew
        _settings = (_threads, _parallel_min)
        generation += 1


def machine_threads() -> int:
    """The cores this process may run on (its CPU affinity, not the machine's total)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def set_threads(n: Optional[int]) -> int:
    """Use ``n`` threads in the kernels (0: every usable core); returns the count.

    ``n`` None reads ``SWARMSTACK_THREADS`` (unset or 0: every usable core), so that the
    environment can choose for a whole process. Not a whole number ≥ 0: ValueError."""
    global _threads
    if n is None:
        n = env_threads()
    try:
        count = -1 if isinstance(n, bool) else operator.index(n)
    except TypeError:
        count = -1
    if count < 0:
        raise ValueError(f"threads: expected a whole number, at least 1 (or 0 for every "
                         f"usable core), got {n!r}")
    _threads = count if count > 0 else machine_threads()
    _count_settings()
    return _threads


def env_threads() -> int:
    """The thread count ``SWARMSTACK_THREADS`` asks for (0 when it is unset or 0: every usable
    core); a value that is not a whole number ≥ 0 is an error naming the variable."""
    env = os.environ.get(ENV_VAR, "").strip()
    if not env:
        return 0
    if not (env.isascii() and env.isdigit()):
        raise ValueError(f"{ENV_VAR}: expected a whole number, at least 1 (or 0 for every "
                         f"usable core), got {env!r}")
    return int(env)


def per_worker(workers: int, total: Optional[int] = None) -> int:
    """Threads for each of ``workers`` processes sharing ``total`` threads (default: this
    process's :func:`threads`), so that a batch does not oversubscribe the machine."""
    total = threads() if total is None else total
    return max(1, total // max(1, workers))


def threads() -> int:
    """How many threads the kernels may use (chosen at first use if nobody chose)."""
    return _threads if _threads is not None else set_threads(None)


def set_parallel_min(items: Optional[int]) -> None:
    """Go parallel from ``items`` work items on in every kernel, whatever its own minimum
    (tests set 1 to exercise the parallel forms); None, or the default ``PARALLEL_MIN_ITEMS``
    that :func:`parallel_min` reports then, gives each kernel its own back."""
    global _parallel_min
    _parallel_min = (None if items is None or items == PARALLEL_MIN_ITEMS
                     else max(1, int(items)))
    _count_settings()


def parallel_min() -> int:
    return PARALLEL_MIN_ITEMS if _parallel_min is None else _parallel_min


def go_parallel(items: int, min_items: int = PARALLEL_MIN_ITEMS) -> bool:
    """Whether a kernel over ``items`` independent work items should take the parallel form;
    ``min_items``: the kernel's own minimum (overridden by :func:`set_parallel_min`). True
    also sizes Numba's pool to :func:`threads` (once, at first need)."""
    if items < (min_items if _parallel_min is None else _parallel_min) or threads() < 2:
        return False
    _size_pool(_threads)
    return True


# a parallel kernel whose items all cost about the same cuts its work into about this many
# chunks per thread: enough that a thread the machine holds up leaves its share to the others,
# few enough that handing out chunks costs little (each chunk also allocates its scratch:
# 64-robot chunks made a 10 000-robot proximity pass 8 % slower)
CHUNKS_PER_THREAD = 8


def spread(items: int, smallest: int) -> int:
    """Items per chunk of a parallel kernel over ``items`` work items: about
    :data:`CHUNKS_PER_THREAD` chunks per thread, none smaller than ``smallest`` (the kernel's
    own minimum), and at most :func:`set_chunk_max`'s size. A result never depends on it."""
    per = -(-items // (threads() * CHUNKS_PER_THREAD))
    return chunk(max(smallest, per))


# the parallel form of a kernel ``{name}(lo, hi, {args})`` (see chunked)
_CHUNKED = """
def {name}_parallel(lo_, hi_, chunk_, {args}):
    n_ = (hi_ - lo_ + chunk_ - 1) // chunk_
    flags_ = np.zeros(n_, dtype=np.bool_)
    for c_ in prange(n_):
        a_ = lo_ + c_ * chunk_
        {store}{name}(a_, min(hi_, a_ + chunk_), {args})
    return flags_.any()
"""


def chunked(rows: Callable, flag: bool = False) -> Callable:
    """The parallel form of a kernel ``rows(lo, hi, …)`` over items ``lo … hi − 1`` (a
    function compiled with Numba's ``njit``, defined at the top level of its module):
    ``parallel(lo, hi, chunk, …)`` runs ``rows`` over chunks of ``chunk`` items on Numba's
    thread pool — the same numbers as ``rows(lo, hi, …)`` as long as every item writes only
    its own outputs. With ``flag``, ``rows`` returns a bool (e.g. whether a body moved) and
    the parallel form whether any chunk's was True. The other arguments are arrays, numbers,
    None or flat tuples of those (Numba's parallel loops take no tuple inside a tuple).

    It is compiled from source as if written next to ``rows`` in the same file, so that Numba
    caches it on disk with that file, as any kernel there (a closure over ``rows`` would not
    be found again: Numba keys a closure's cache by its pickled variables, and a compiled
    function pickles differently in every process)."""
    import numpy as np
    from numba import njit, prange

    py_func = rows.py_func
    code = py_func.__code__
    name = py_func.__name__
    args = ", ".join(code.co_varnames[2:code.co_argcount])
    namespace = {"__name__": py_func.__module__, "np": np, "prange": prange, name: rows}
    source = _CHUNKED.format(name=name, args=args, store="flags_[c_] = " if flag else "")
    exec(compile(source, code.co_filename, "exec"), namespace)
    return njit(cache=True, parallel=True, error_model="numpy")(namespace[f"{name}_parallel"])


def form(rows: Callable, parallel: Callable, lo: int, hi: int, *args,
         min_items: int = PARALLEL_MIN_ITEMS, chunk_items: int = 64) -> Callable:
    """The form of a kernel ``rows(lo, hi, …)`` to call for items ``lo … hi − 1`` under the
    present settings, chosen once (when the simulation plans its calls): ``rows``, or, when
    :func:`go_parallel` says so, ``parallel`` (:func:`chunked`) over :func:`spread` chunks of
    at least ``chunk_items``; with ``lo, hi, *args`` bound, taking the kernel's other
    arguments."""
    if go_parallel(hi - lo, min_items):
        return partial(parallel, lo, hi, spread(hi - lo, chunk_items), *args)
    return partial(rows, lo, hi, *args)


def rows_plan(rows: Callable, parallel: Callable, world, group, params, keys, state, out,
              **kw) -> Callable[[], None]:
    """A device's tick call for ``group`` (what ``plan`` returns): the :func:`form` of its
    per-rows kernel ``rows(lo, hi, start, bodies, scene, params, keys, tick, state, out)`` for
    the group's robots, called on the world's arrays and tick as they are at each call with
    ``params``, ``keys``, ``state`` and ``out`` fixed."""
    call = form(rows, parallel, group.start, group.stop, group.start, **kw)

    def tick_call():
        call(world.bodies_args, world.scene_args, params, keys, world.tick, state, out)
    return tick_call


def chunk(items: int) -> int:
    """Items per work unit of a parallel kernel whose own chunk is ``items`` (smaller only
    under :func:`set_chunk_max`). A result never depends on it: every item writes its own
    outputs, whichever chunk and thread it falls in."""
    return items if _chunk_max is None else min(items, _chunk_max)


def set_chunk_max(items: Optional[int]) -> None:
    """Cut every parallel kernel's work into chunks of at most ``items`` (tests use a few, so
    that small scenes cross chunk boundaries); None gives each kernel its own back."""
    global _chunk_max
    _chunk_max = None if items is None else max(1, int(items))


@contextmanager
def using(n: Optional[int] = None, parallel_min: Optional[int] = None,
          chunk_max: Optional[int] = None) -> Iterator[int]:
    """Within the block, ``n`` threads (as :func:`set_threads`), every kernel parallel from
    ``parallel_min`` items and in chunks of at most ``chunk_max`` (None: each kernel's own);
    the settings before are restored afterwards."""
    global _threads, _parallel_min, _chunk_max
    saved = (_threads, _parallel_min, _chunk_max)
    try:
        count = set_threads(n)
        set_parallel_min(parallel_min)
        set_chunk_max(chunk_max)
        yield count
    finally:
        _threads, _parallel_min, _chunk_max = saved
        _count_settings()


def _size_pool(n: int) -> None:
    """Size the pool for the calling thread (Numba keeps both settings per thread) and hand
    out chunks one at a time: a thread that the machine's other work holds up then runs fewer
    chunks instead of making the others wait for its fixed share."""
    if getattr(_pool, "size", 0) == n:
        return
    import numba

    prepare_layer()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    numba.set_parallel_chunksize(1)
    _pool.size = n


def prepare_layer() -> None:
    """Choose Numba's threading layer before any parallel kernel is compiled or loaded (a
    cached one starts the layer as it loads): TBB when it can be loaded and nobody chose a
    layer. Cheap after the first call.

    With TBB the launching thread runs the chunks no other thread has taken: a launch never
    waits for a thread the machine has not scheduled. OpenMP's team waits for all its threads,
    which on a busy machine (another process on the other core) made the contact pass 10–20×
    slower than on one thread. The ``tbb`` wheel puts ``libtbb`` in the environment's ``lib``
    folder, off the loader's path: it is loaded here by its full path first (also when
    ``NUMBA_THREADING_LAYER=tbb`` asks for it)."""
    global _layer_ready
    if _layer_ready:
        return
    _layer_ready = True
    import numba

    chosen = os.environ.get("NUMBA_THREADING_LAYER", "") or numba.config.THREADING_LAYER
    if chosen not in ("default", "tbb"):
        return  # another layer was asked for
    try:
        numba.threading_layer()
        return  # a parallel kernel already started one
    except ValueError:
        pass
    try:
        for name in ("libtbb.so.12", "libtbb.12.dylib"):
            path = os.path.join(sys.prefix, "lib", name)
            if os.path.exists(path):
                ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
                break
        import numba.np.ufunc.tbbpool  # noqa: F401  (fails without a usable libtbb)
    except (ImportError, OSError):
        return
    numba.config.THREADING_LAYER = "tbb"
