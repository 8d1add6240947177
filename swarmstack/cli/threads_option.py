"""``--threads N``: the option every simulating command shares, and how it takes effect."""

from __future__ import annotations

import sys
from typing import Optional

import typer

from swarmstack.sim import threads

HELP = ("threads for the simulation kernels (0: every usable core; default: "
        "SWARMSTACK_THREADS, else 0); worker processes (--workers, --ray) share them out")


def option():
    """The ``--threads`` option (None when not given: ``SWARMSTACK_THREADS`` decides)."""
    return typer.Option(None, "--threads", min=0, metavar="N", help=HELP)


def apply(n: Optional[int]) -> int:
    """Use ``n`` threads in this process (and share them among its worker processes); a bad
    ``SWARMSTACK_THREADS`` is a usage error (exit 2), not a traceback."""
    try:
        return threads.set_threads(n)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise typer.Exit(2)
