"""How a swarmstack command ends, and which machine it runs on.

Ending: tearing down the modules and objects that Numba and the kernels made takes 0.1–0.2 s,
as long as a whole short run. When a command has written and closed everything it opened,
nothing is left for the tear-down to do but that: exit handlers still run and the standard
streams are flushed, then the process ends (:func:`exit_now`).
"""

from __future__ import annotations

import atexit
import os
import sys


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
