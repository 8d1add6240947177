"""Where batches run: the standard :class:`concurrent.futures.Executor` protocol.

:func:`make_executor` gives one of three, all used the same way (``submit(fn, *args)`` →
``Future``; ``fn`` and its arguments must pickle — a module-level function and dataclasses)::

    from swarmstack.studies.executors import make_executor

    with make_executor(workers=2) as ex:          # or ray="auto" / ray="HOST:6379"
        futures = [ex.submit(fn, job) for job in jobs]

* ``workers=1``: in this process (:class:`InProcessExecutor`; ``submit`` runs at once);
* ``workers=N`` or None: a local process pool of N processes (default: the number of cores);
* ``ray=ADDRESS``: a Ray cluster (``"auto"``: the cluster this machine belongs to, or
  ``RAY_ADDRESS``; ``"local"``: a private one-machine Ray). Each call is a Ray task of one CPU;
  a task whose worker or node dies is retried elsewhere by Ray (``max_retries``), so a future
  fails only when its function raised or every retry was lost. Ray is the ``cluster`` extra.

Worker processes share out this process's kernel threads (``swarmstack.threads``): each of N
workers (or Ray CPUs) uses ``max(1, threads // N)``, so a batch never runs more threads than
the machine was given.
"""

from __future__ import annotations

import os
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Optional

from swarmstack import threads


class ExecutorError(RuntimeError):
    """An executor cannot be had (Ray missing, no cluster at that address)."""


class InProcessExecutor(Executor):
    """Runs each call immediately in the calling process; returns a finished Future."""

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:
            future.set_exception(exc)
        return future


def _die_with_parent() -> None:
    """Pool workers end when the process that started them ends (Linux), even by SIGKILL:
    no orphan goes on writing a run that the next sweep plans again."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def _start_worker(n_threads: int) -> None:
    """A pool worker: ends with its parent, runs its kernels on its share of the threads.

    What it inherited is moved out of the collector's reach (``gc.freeze``): an unreachable
    cycle of the parent's that holds a library's threads (a DuckDB connection in an old
    traceback) would otherwise be freed here, where those threads do not exist, and crash
    the worker."""
    import gc

    gc.freeze()
    _die_with_parent()
    threads.set_threads(n_threads)


def _call(fn, args, kwargs, n_threads=None):
    if n_threads is not None:
        threads.set_threads(n_threads)
    return fn(*args, **kwargs)


class RayExecutor(Executor):
    """Ray tasks behind the Executor protocol (``ObjectRef.future()``)."""

    def __init__(self, address: str = "auto", max_retries: int = 3, num_cpus: float = 1,
                 runtime_env: Optional[dict] = None, **init_kwargs):
        try:
            import ray
        except ImportError:
            raise ExecutorError("--ray needs Ray: pip install 'swarmstack[cluster]'") from None
        self._ray = ray
        self._owns = not ray.is_initialized()
        if self._owns:
            kw = {"address": None if address == "local" else address,
                  "include_dashboard": False, "log_to_driver": False,
                  "configure_logging": False}
            if runtime_env:
                kw["runtime_env"] = runtime_env
            try:
                ray.init(**{**kw, **init_kwargs})
            except (ConnectionError, ValueError, RuntimeError) as exc:
                why = str(exc).strip().splitlines()[0] if str(exc).strip() else \
                    type(exc).__name__
                raise ExecutorError(f"cannot reach a Ray cluster at {address!r}: {why}") \
                    from None
        self._remote = ray.remote(_call).options(max_retries=max_retries, num_cpus=num_cpus,
                                                 retry_exceptions=False)
        self._threads = threads.per_worker(self.workers)

    @property
    def workers(self) -> int:
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def submit(self, fn, /, *args, **kwargs) -> Future:
        return self._remote.remote(fn, args, kwargs, self._threads).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()
            self._owns = False


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def make_executor(workers: Optional[int] = None, ray: Optional[str] = None) -> Executor:
    """An executor: Ray when ``ray`` is given, else in-process for one worker, else a local
    process pool of ``workers`` processes (default: the cores this process may use), each
    worker on its share of this process's threads (``threads.per_worker``)."""
    if ray is not None:
        return RayExecutor(ray)
    n = default_workers() if workers is None else int(workers)
    if n < 1:
        raise ValueError(f"workers: expected at least 1, found {n}")
    if n == 1:
        return InProcessExecutor()
    import gc
    import multiprocessing

    gc.collect()  # see _start_worker: as little of the parent's garbage as can be, forked
    # fork: workers need no re-import of the caller's main script (a script without an
    # ``if __name__ == "__main__"`` guard works); they are all started here, before the
    # caller starts threads of its own (a progress bar), by one call that waits for them
    ex = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork"),
                             initializer=_start_worker, initargs=(threads.per_worker(n),))
    ex.submit(int).result()
    return ex


def executor_workers(ex: Executor) -> int:
    """How many calls ``ex`` runs at once."""
    if isinstance(ex, RayExecutor):
        return ex.workers
    if isinstance(ex, ProcessPoolExecutor):
        return ex._max_workers
    return 1
