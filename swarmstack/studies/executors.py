"""Where batches run: the standard :class:`concurrent.futures.Executor` protocol.

:func:`make_executor` gives one of three, all used the same way (``submit(fn, *args)`` →
``Future``; ``fn`` and its arguments must pickle — a module-level function and dataclasses)::

    from swarmstack.studies.executors import make_executor

    with make_executor(workers=2) as ex:          # or ray="auto" / ray="HOST:6379"
        futures = [ex.submit(fn, job) for job in jobs]

* ``workers=1``: in this process (:class:`InProcessExecutor`; ``submit`` runs at once);
* ``workers=N`` or None: N local worker processes (:class:`WorkerPool`; default: the number
  of cores). A worker that dies fails only the call it was running (:class:`WorkerDied`) and
  is replaced; one that runs past the budget its call armed (``experiments.watchdog``) by
  more than :data:`GRACE_S` — stuck where no signal reaches — is killed and replaced, failing
  that call with :class:`WorkerTimedOut`;
* ``ray=ADDRESS``: a Ray cluster (``"auto"``: the cluster this machine belongs to, or
  ``RAY_ADDRESS``; ``"local"``: a private one-machine Ray listening on loopback only). Each
  call is a Ray task of one CPU; a task whose worker or node dies is retried elsewhere by Ray
  (``max_retries``), so a future fails only when its function raised or every retry was lost.
  Ray is the ``cluster`` extra.

Worker processes share out this process's kernel threads (``swarmstack.sim.threads``): each of N
workers (or Ray CPUs) uses ``max(1, threads // N)``, so a batch never runs more threads than
the machine was given.
"""

from __future__ import annotations

import collections
import os
import signal
import sys
import threading
import time
from concurrent.futures import Executor, Future, InvalidStateError
from multiprocessing.connection import wait as wait_for
from typing import Optional

from swarmstack.sim import threads

LOOPBACK_ONLY = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"   # "0": Ray's nodes on 127.0.0.1 only
REACH_MARK = ".reach"
GRACE_S = 10.0   # past a call's armed budget before its worker is taken for stuck and killed


class ExecutorError(RuntimeError):
    """An executor cannot be had (Ray missing, no cluster at that address)."""


class WorkerDied(RuntimeError):
    """The worker process running the call ended (killed, crashed) before it answered."""

    def __init__(self, pid: int, exitcode: Optional[int]):
        how = (f"killed by {signal.Signals(-exitcode).name}" if exitcode is not None and
               exitcode < 0 and -exitcode in signal.valid_signals() else f"exit {exitcode}")
        super().__init__(f"worker process {pid} ended ({how}) before the call returned")
        self.pid = pid
        self.exitcode = exitcode

    def __reduce__(self):
        return type(self), (self.pid, self.exitcode)


class WorkerTimedOut(RuntimeError):
    """The call ran past its budget and more without answering: its worker was killed."""

    def __init__(self, pid: int, budget_s: float):
        super().__init__(f"worker process {pid} did not answer within {budget_s:g} s + "
                         f"{GRACE_S:g} s and was ended")
        self.pid = pid
        self.budget_s = budget_s

    def __reduce__(self):
        return type(self), (self.pid, self.budget_s)


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


def _serve(conn, n_threads: int) -> None:
    """A pool worker's life: calls from ``conn`` answered one at a time, until None or the
    pool goes. It leaves Ctrl-C to the process that owns it (which ends it), and tells it each
    budget a call arms (``experiments.watchdog.on_arm``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _start_worker(n_threads)
    from swarmstack.experiments import watchdog

    watchdog.on_arm = lambda budget: conn.send(("budget", budget))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        fn, args, kwargs = job
        try:
            answer = ("result", fn(*args, **kwargs))
        except BaseException as exc:   # the caller's to judge, as a Future's exception
            answer = ("error", exc)
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return
        except Exception as exc:   # the answer does not pickle
            conn.send(("error", RuntimeError(f"{type(exc).__name__}: {exc}")))


def _settle(future: Optional[Future], result=None, error=None) -> None:
    """Resolve ``future`` unless it is None or already resolved (by another thread)."""
    if future is None:
        return
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass


class _Worker:
    def __init__(self, ctx, n_threads: int):
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, n_threads), daemon=True)
        self.process.start()
        child.close()
        self.job: Optional[Future] = None
        self.deadline: Optional[float] = None   # monotonic time it is taken for stuck
        self.budget = 0.0
        self._killing = threading.Lock()   # the pool's thread and terminate() may both kill it

    def kill(self) -> None:
        with self._killing:
            if self.process.is_alive():
                self.process.kill()
            self.process.join()
            self.conn.close()   # a second close does nothing


class WorkerPool(Executor):
    """``workers`` forked worker processes, each answering one call at a time. A worker that
    dies fails only its own call (:class:`WorkerDied`) and one stuck past its call's budget
    is killed (:class:`WorkerTimedOut`); either is replaced at once. :meth:`terminate` kills
    them all now (Ctrl-C)."""

    def __init__(self, workers: int, n_threads: int):
        import multiprocessing

        self.workers = int(workers)
        self._threads = n_threads
        self._ctx = multiprocessing.get_context("fork")
        self._queue: collections.deque = collections.deque()
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = self._ctx.Pipe(duplex=False)
        self._closing = False
        # all started here, by the caller, before it starts threads of its own (a progress bar)
        self._pool = [_Worker(self._ctx, n_threads) for _ in range(self.workers)]
        self._manager = threading.Thread(target=self._manage, name="swarmstack-pool",
                                         daemon=True)
        self._manager.start()

    @property
    def pids(self) -> list[int]:
        """The worker processes' ids, in the pool's order."""
        with self._lock:
            return [w.process.pid for w in self._pool]

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("cannot submit to a pool that was shut down")
            self._queue.append((future, fn, args, kwargs))
        self._wake()
        return future

    def _wake(self) -> None:
        try:
            self._wake_w.send_bytes(b"")
        except OSError:
            pass

    def _manage(self) -> None:
        while True:
            with self._lock:
                if self._closing and not self._queue and all(w.job is None for w in self._pool):
                    return
                for w in self._pool:
                    while w.job is None and self._queue:
                        future, fn, args, kwargs = self._queue.popleft()
                        if not future.set_running_or_notify_cancel():
                            continue
                        try:
                            w.conn.send((fn, args, kwargs))
                        except Exception as exc:   # it does not pickle, or the worker is gone
                            future.set_exception(exc)
                            continue
                        w.job, w.deadline = future, None
                pool = list(self._pool)
            waits = [w.conn for w in pool] + [w.process.sentinel for w in pool] + [self._wake_r]
            ready = set(wait_for(waits, timeout=0.2))
            if self._wake_r in ready:
                while self._wake_r.poll():
                    self._wake_r.recv_bytes()
            now = time.monotonic()
            for i, w in enumerate(pool):
                failure = None
                if w.conn in ready or w.process.sentinel in ready:
                    failure = self._read(w)
                if failure is None and w.job is not None and w.deadline is not None \
                        and now > w.deadline:
                    failure = WorkerTimedOut(w.process.pid, w.budget)
                if failure is None:
                    continue
                w.kill()
                with self._lock:
                    _settle(w.job, error=failure)
                    w.job = None
                    if w in self._pool:
                        if self._closing:
                            self._pool.remove(w)
                        else:
                            self._pool[self._pool.index(w)] = _Worker(self._ctx, self._threads)

    def _read(self, w: _Worker) -> Optional[BaseException]:
        """What ``w`` said; the failure to report when it is gone (or its pipe garbled, as
        when it was killed in the middle of an answer)."""
        try:
            while w.conn.poll():
                kind, value = w.conn.recv()
                if kind == "budget":
                    w.budget = value or 0.0
                    w.deadline = None if value is None else time.monotonic() + value + GRACE_S
                else:
                    _settle(w.job, **{kind: value})
                    w.job, w.deadline = None, None
        except Exception:
            w.kill()
        if w.process.is_alive():
            return None
        w.process.join()
        return WorkerDied(w.process.pid, w.process.exitcode)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._closing = True
            if cancel_futures:
                for future, *_ in self._queue:
                    future.cancel()
                self._queue.clear()
        self._wake()
        if wait:
            self._manager.join()
            for w in self._pool:
                try:
                    w.conn.send(None)
                except OSError:
                    pass
                w.process.join(timeout=5)
                w.kill()

    def terminate(self) -> None:
        """Kill every worker now; calls not answered fail, calls not started are cancelled."""
        with self._lock:
            self._closing = True
            for future, *_ in self._queue:
                future.cancel()
            self._queue.clear()
            pool, self._pool = list(self._pool), []
        for w in pool:
            w.kill()
            _settle(w.job, error=WorkerDied(w.process.pid, w.process.exitcode))
        self._wake()
        self._manager.join(timeout=5)


def _reaches(study_dir: str, token: str, base_dir: str) -> list[str]:
    """What this process does not reach: the study folder (its marker must hold ``token``:
    the same folder, not one of the same name) writable, the experiment's folder readable."""
    bad = []
    try:
        with open(os.path.join(study_dir, REACH_MARK)) as fh:
            same = fh.read() == token
    except OSError:
        same = False
    if not (same and os.access(study_dir, os.W_OK)):
        bad.append(f"study folder {study_dir} (not the driver's, or not writable)")
    if not os.access(base_dir, os.R_OK | os.X_OK):
        bad.append(f"experiment folder {base_dir}")
    return bad


def _call(fn, args, kwargs, n_threads=None):
    if n_threads is not None:
        threads.set_threads(n_threads)
    return fn(*args, **kwargs)


class RayExecutor(Executor):
    """Ray tasks behind the Executor protocol (``ObjectRef.future()``)."""

    def __init__(self, address: str = "auto", max_retries: int = 3, num_cpus: float = 1,
                 runtime_env: Optional[dict] = None, **init_kwargs):
        local = address == "local"
        if local and "ray" not in sys.modules:
            # a private Ray on this machine's loopback only (as Ray does where it does not
            # support clusters), its processes included: read by Ray as it is imported
            os.environ.setdefault(LOOPBACK_ONLY, "0")
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
            if local and {n["NodeManagerAddress"] for n in ray.nodes()} != {"127.0.0.1"}:
                import warnings

                warnings.warn(f"the private Ray listens beyond loopback: Ray was imported "
                              f"before with {LOOPBACK_ONLY} unset (set it to 0 before)",
                              RuntimeWarning, stacklevel=2)
        self._remote = ray.remote(_call).options(max_retries=max_retries, num_cpus=num_cpus,
                                                 retry_exceptions=False)
        self._threads = threads.per_worker(self.workers)

    @property
    def workers(self) -> int:
        return max(1, int(self._ray.cluster_resources().get("CPU", 1)))

    def unreachable(self, study_dir: str, base_dir: str) -> list[str]:
        """``"NODE: what"`` for each live node of the cluster that does not see the study
        folder ``study_dir`` (absolute, on this machine) as this machine does — its marker
        file, written here, read there — or cannot read ``base_dir``; a task on every node."""
        import secrets

        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        token = secrets.token_hex(8)
        mark = os.path.join(study_dir, REACH_MARK)
        with open(mark, "w") as fh:
            fh.write(token)
        try:
            probe = self._ray.remote(_reaches)
            nodes = [n for n in self._ray.nodes() if n.get("Alive")]
            refs = [probe.options(num_cpus=0, max_retries=0,
                                  scheduling_strategy=NodeAffinitySchedulingStrategy(
                                      n["NodeID"], soft=False)).remote(study_dir, token, base_dir)
                    for n in nodes]
            found = self._ray.get(refs)
        finally:
            os.remove(mark)
        return [f"{n['NodeManagerAddress']}: {what}" for n, bad in zip(nodes, found)
                for what in bad]

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

    gc.collect()  # see _start_worker: as little of the parent's garbage as can be, forked
    # fork: workers need no re-import of the caller's main script (a script without an
    # ``if __name__ == "__main__"`` guard works)
    return WorkerPool(n, threads.per_worker(n))


def executor_workers(ex: Executor) -> int:
    """How many calls ``ex`` runs at once."""
    return max(1, int(getattr(ex, "workers", 1)))   # an executor without ``workers``: one
