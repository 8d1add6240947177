"""Room on the Python stack for deep Buzz code: the parser recurses per nesting level and a
Buzz call is a Python call, so both raise the interpreter's recursion limit to what they may
need above the current depth, and put it back afterwards."""

from __future__ import annotations

import sys
from contextlib import contextmanager


def depth() -> int:
    """Frames on the stack below the caller."""
    f = sys._getframe(1)
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


@contextmanager
def room(frames: int):
    """At least ``frames`` more Python frames may be used inside the block."""
    old = sys.getrecursionlimit()
    need = depth() + frames
    if need > old:
        sys.setrecursionlimit(need)
    try:
        yield
    finally:
        if need > old:
            sys.setrecursionlimit(old)
