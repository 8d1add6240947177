"""How a swarmstack command ends: at once, without the interpreter's tear-down.

Tearing down the modules and objects that Numba and the kernels made takes 0.1–0.2 s, as long
as a whole short run. When a command has written and closed everything it opened, nothing is
left for the tear-down to do but that: exit handlers still run and the standard streams are
flushed, then the process ends.
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
