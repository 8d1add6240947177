"""CPU time for the benchmarks that time work spread over worker processes."""

from __future__ import annotations

import resource


def cpu_seconds() -> float:
    """CPU time (user + system) of this process and of its ended (waited-for) children, s."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        r = resource.getrusage(who)
        total += r.ru_utime + r.ru_stime
    return total
