"""How a swarmstack command starts and ends.

Starting: the imports and the set-up of a run make some 150 000 objects that live as long as
the process (modules, classes, Numba's type system, the kernels), and Python's cyclic garbage
collector went over them about 150 times before the first tick (35–50 ms of a 0.35 s start).
:func:`pause_collector` switches it off for the start; :func:`resume_collector`, called when a
simulation has started, sets everything made so far aside for good (``gc.freeze``: never
scanned again, nor freed, as such objects would not be anyway) and switches it back on, so
garbage a run makes tick after tick is collected as usual. The ``swarmstack`` command pauses
it as it starts; a command other than ``run`` resumes it once its arguments are read.

Ending: tearing down the modules and objects that Numba and the kernels made takes 0.1–0.2 s,
as long as a whole short run. When a command has written and closed everything it opened,
nothing is left for the tear-down to do but that: exit handlers still run and the standard
streams are flushed, then the process ends (:func:`exit_now`).
"""

from __future__ import annotations

import atexit
import gc
import os
import sys

_paused = False  # the collector is off because pause_collector() switched it off


def pause_collector() -> None:
    """Switch Python's cyclic garbage collector off until :func:`resume_collector` (nothing
    happens if it is already off: whoever switched it off keeps it so)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def resume_collector() -> None:
    """If :func:`pause_collector` switched the collector off: freeze what exists now and
    switch it back on. Called by ``Simulation.start``; a no-op otherwise."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def collector_off_for_imports() -> bool:
    """Switch the collector off while a module imports what lives as long as the process
    (typer, the commands: some 30 young collections, 2.5 ms, found nothing in them); returns
    whether it was on, for :func:`collector_on_after_imports`."""
    if gc.isenabled():
        gc.disable()
        return True
    return False


def collector_on_after_imports(was_on: bool) -> None:
    """Switch the collector back on if :func:`collector_off_for_imports` switched it off. What
    was made meanwhile joins its oldest generation, as if it had outlived the young collections
    it skipped (switched on as it is, the next allocation would scan all of it at once) —
    unless something was set aside for good (``gc.freeze``), which is then left as it is."""
    if not was_on:
        return
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()   # back into the oldest generation, where it can still be collected
    gc.enable()


def exit_now(code=0) -> None:
    """End the process with ``code`` (an int, None for 0, or a message printed to standard
    error with status 1, as ``sys.exit`` does)."""
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def host_name() -> str:
    """This machine's name, as ``socket.gethostname()`` gives it (recorded with a run's process
    id, to tell whether a run that holds a folder is alive here). On POSIX it is the kernel's
    node name, read without importing ``socket``."""
    if hasattr(os, "uname"):
        return os.uname().nodename
    import socket

    return socket.gethostname()
