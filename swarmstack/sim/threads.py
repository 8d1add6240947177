"""Threads for the kernels: how many a process uses, and when a kernel is worth running on them.

Kernels independent per robot come in two compiled forms around one shared body: a *serial*
one (a plain loop: the cheapest launch) and a *parallel* one (Numba ``prange`` over chunks of
robots, on Numba's thread pool; :func:`chunked` derives it from a per-rows kernel, and
:func:`rows_call` picks one of the two). Every robot writes only its own outputs and draws from
its own counter-based streams (:mod:`swarmstack.world.rng`), so both forms give bit-identical
results whatever the thread count. Launching on the pool costs microseconds, so a kernel goes
parallel only for at least :func:`parallel_min` items and when more than one thread is allowed.

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

# Work items (robots, receivers …) from which a parallel launch pays for itself. Below, one
# thread finishes a typical sensor or contact pass in less time than waking a second one.
# A kernel much cheaper or dearer per item than that passes its own minimum to go_parallel:
# each chooses it so that its serial work is at least ~0.2 ms. A launch costs a few µs on an
# idle machine, but when another process holds a core the pool waits for the scheduler to run
# its second thread (up to a time slice, milliseconds): only work that large is worth the risk.
PARALLEL_MIN_ITEMS = 512

# no kernel's own minimum is below this many items (kernels keep theirs at least as high)
FLOOR_ITEMS = 64

ENV_VAR = "SWARMSTACK_THREADS"

_threads: Optional[int] = None  # None: not chosen yet, the machine's usable cores
_parallel_min: Optional[int] = None  # None: each kernel's own minimum (PARALLEL_MIN_ITEMS)
_chunk_max: Optional[int] = None  # None: each kernel's own chunk size
_pool = threading.local()  # .size: the thread count Numba's pool was sized for, per thread
# below this many items no kernel goes parallel whatever its minimum: one comparison is then
# all a small group pays (on one thread: never parallel)
floor = FLOOR_ITEMS
# counts the changes of the thread count and of the minimum: the forms of the kernels chosen
# when the simulation planned its calls are chosen again when it moves (``Simulation`` does)
generation = 0
_settings = (None, None)  # (thread count, minimum) that ``generation`` was last counted for
_layer_ready = False  # prepare_layer() ran


def _set_floor() -> None:
    global floor, generation, _settings
    if _threads is not None and _threads < 2:
        floor = sys.maxsize
    else:   # two or more threads, or not chosen yet (then chosen at the first large group)
        floor = FLOOR_ITEMS if _parallel_min is None else _parallel_min
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
    _set_floor()
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
    _set_floor()


def parallel_min() -> int:
    return PARALLEL_MIN_ITEMS if _parallel_min is None else _parallel_min


def go_parallel(items: int, min_items: int = PARALLEL_MIN_ITEMS) -> bool:
    """Whether a kernel over ``items`` independent work items should take the parallel form;
    ``min_items``: the kernel's own minimum (overridden by :func:`set_parallel_min`).

    True also sizes Numba's pool to :func:`threads` (once, at first need). Cheap when False:
    small groups pay one comparison, not a pool launch."""
    if stays_serial(items, min_items):
        return False
    _size_pool(_threads)
    return True


def stays_serial(items: int, min_items: int = PARALLEL_MIN_ITEMS) -> bool:
    """Whether a kernel over ``items`` work items, of minimum ``min_items``, takes its serial
    form under the present settings (:func:`go_parallel` is False). A call bound to the serial
    form then stays right until :data:`generation` moves: a group too small for its kernel's
    own minimum keeps its bound call on two threads too."""
    if items < floor or items < (min_items if _parallel_min is None else _parallel_min):
        return True
    return (_threads if _threads is not None else set_threads(None)) < 2


def pick(items: int, serial: Callable, parallel: Callable, min_items: int = PARALLEL_MIN_ITEMS,
         chunk_items: int = 256, spread_out: bool = False) -> Callable:
    """The form of a kernel to call over ``items`` work items: ``serial`` itself, or, when
    :func:`go_parallel` says so, ``parallel`` with its last argument ``chunk`` bound to
    :func:`chunk` of ``chunk_items`` (with ``spread_out``: to :func:`spread` of ``items``,
    ``chunk_items`` the smallest). Both take the same arguments otherwise."""
    if items < floor or not go_parallel(items, min_items):
        return serial
    return partial(parallel, chunk=spread(items, chunk_items) if spread_out
                   else chunk(chunk_items))


# a parallel kernel whose items all cost about the same (the sensors, the radio) cuts its work
# into about this many chunks per thread: enough that a thread the machine holds up leaves its
# share to the others, few enough that handing out chunks costs little (each chunk also
# allocates its scratch: 64-robot chunks made a 10 000-robot proximity pass 8 % slower)
CHUNKS_PER_THREAD = 8


def spread(items: int, smallest: int) -> int:
    """Items per chunk of a parallel kernel over ``items`` work items: about
    :data:`CHUNKS_PER_THREAD` chunks per thread, none smaller than ``smallest`` (the kernel's
    own minimum), and at most :func:`set_chunk_max`'s size. A result never depends on it."""
    per = -(-items // (threads() * CHUNKS_PER_THREAD))
    return chunk(max(smallest, per))


# the parallel form of a per-rows kernel ``{rows}`` (see chunked)
_CHUNKED = """
def {rows}_parallel(start, stop, chunk, bodies, scene, params, keys, tick, state, out):
    n_chunks = (stop - start + chunk - 1) // chunk
    for c in prange(n_chunks):
        lo = start + c * chunk
        {rows}(lo, min(stop, lo + chunk), start, bodies, scene, params, keys, tick, state, out)
"""


def chunked(rows: Callable) -> Callable:
    """The parallel form of a per-rows kernel.

    ``rows(lo, hi, start, bodies, scene, params, keys, tick, state, out)`` (a function compiled
    with Numba's ``njit``, defined at the top level of its module) fills the rows
    ``lo − start … hi − start − 1`` of ``out`` for robots ``lo … hi − 1``. The result,
    ``parallel(start, stop, chunk, bodies, scene, params, keys, tick, state, out)``, runs
    ``rows`` over chunks of ``chunk`` robots of ``start … stop − 1`` on Numba's thread pool:
    the same numbers as ``rows(start, stop, start, …)``, as long as every robot writes only
    its own rows. Its arguments are arrays, numbers, None or flat tuples of those (Numba's
    parallel loops take no tuple inside a tuple).

    It is compiled from source as if written next to ``rows`` in the same file, so that Numba
    caches it on disk with that file, as any kernel there (a closure over ``rows`` would not
    be found again: Numba keys a closure's cache by its pickled variables, and a compiled
    function pickles differently in every process)."""
    from numba import njit, prange

    py_func = rows.py_func
    namespace = {"__name__": py_func.__module__, "prange": prange, py_func.__name__: rows}
    source = _CHUNKED.format(rows=py_func.__name__)
    exec(compile(source, py_func.__code__.co_filename, "exec"), namespace)
    return njit(cache=True, parallel=True, error_model="numpy")(
        namespace[f"{py_func.__name__}_parallel"])


def rows_call(rows: Callable, parallel: Callable, start: int, stop: int,
              min_items: int = PARALLEL_MIN_ITEMS, chunk_items: int = 64) -> Callable:
    """The form of a per-rows kernel to call for robots ``start … stop − 1`` under the present
    settings, chosen once (when a device plans its call): ``rows`` over all of them, or, when
    :func:`go_parallel` says so, ``parallel`` (:func:`chunked`) over :func:`spread` chunks of
    at least ``chunk_items``. Either takes ``(bodies, scene, params, keys, tick, state, out)``."""
    if go_parallel(stop - start, min_items):
        return partial(parallel, start, stop, spread(stop - start, chunk_items))
    return partial(rows, start, stop, start)


def rows_plan(rows: Callable, parallel: Callable, world, group, params, keys, state, out,
              **form) -> Callable[[], None]:
    """A device's tick call for ``group`` (what ``plan`` returns): the form of ``rows`` that
    :func:`rows_call` picks, called on the world's arrays and tick as they are at each call
    with ``params``, ``keys``, ``state`` and ``out`` fixed."""
    call = rows_call(rows, parallel, group.start, group.stop, **form)

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
        _set_floor()


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
    layer. Cheap after the first call."""
    global _layer_ready
    if _layer_ready:
        return
    _layer_ready = True
    import numba

    _prefer_tbb(numba)


def _prefer_tbb(numba) -> None:
    """Use Numba's TBB threading layer when it can be loaded and nobody chose a layer.

    With TBB the launching thread runs the chunks no other thread has taken: a launch never
    waits for a thread the machine has not scheduled. OpenMP's team waits for all its threads,
    which on a busy machine (another process on the other core) made the contact pass 10–20×
    slower than on one thread. The ``tbb`` wheel puts ``libtbb`` in the environment's ``lib``
    folder, off the loader's path: it is loaded here by its full path first (also when
    ``NUMBA_THREADING_LAYER=tbb`` asks for it)."""
    chosen = os.environ.get("NUMBA_THREADING_LAYER", "") or numba.config.THREADING_LAYER
    if chosen not in ("default", "tbb") or _loaded_layer(numba) is not None:
        return  # another layer was asked for, or a parallel kernel already started one
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


def _loaded_layer(numba):
    try:
        return numba.threading_layer()
    except ValueError:  # no parallel kernel has run yet
        return None
