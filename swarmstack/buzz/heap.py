"""Heap accounting: the memory model behind the BittyBuzz budget and ``buzz size``.

BittyBuzz runs on micro-controllers with a fixed heap and operand stack; its defaults (from
the BittyBuzz build configuration) are named below. We do not emulate its allocator byte
for byte; we charge every live table, closure and table entry with the size BittyBuzz
gives such objects, and compare the total against ``BBZHEAP_SIZE``:

* an object (table or closure header): ``BBZ_OBJ_BYTES``;
* table entries live in segments of ``BBZHEAP_ELEMS_PER_TSEG`` key/value pairs, each
  segment ``BBZ_TSEG_BYTES`` (2-byte key and value references, plus a 2-byte link).

Call depth: every active call holds one of the ``BBZHEAP_RSV_ACTREC_MAX`` activation
records BittyBuzz reserves, and at least ``BBZ_STACK_SLOTS_PER_CALL`` entries of the
operand stack (return address, closure, self), so the depth is bounded by both.
"""

from __future__ import annotations

import sys

from swarmstack.buzz.values import Closure, HostClosure, Table

BBZHEAP_SIZE = 3264            # bytes of heap (BittyBuzz default configuration)
BBZHEAP_ELEMS_PER_TSEG = 5     # key/value pairs per table segment
BBZSTACK_SIZE = 96             # operand stack entries
BBZHEAP_RSV_ACTREC_MAX = 28    # heap objects reserved for activation records
BBZ_OBJ_BYTES = 4
BBZ_TSEG_BYTES = 4 * BBZHEAP_ELEMS_PER_TSEG + 2
BBZ_STACK_SLOTS_PER_CALL = 3
BBZ_MAX_CALL_DEPTH = min(BBZHEAP_RSV_ACTREC_MAX, BBZSTACK_SIZE // BBZ_STACK_SLOTS_PER_CALL)


def table_bytes(n_entries: int) -> int:
    segs = -(-n_entries // BBZHEAP_ELEMS_PER_TSEG)
    return BBZ_OBJ_BYTES + segs * BBZ_TSEG_BYTES


def live_bytes(roots) -> int:
    """Bytes used by every table and closure reachable from ``roots`` (an iterable of values)."""
    seen: set[int] = set()
    total = 0
    todo = list(roots)
    while todo:
        v = todo.pop()
        c = v.__class__
        if c is tuple or c is list:
            todo.extend(v)
        elif (c is Table or c is Closure or c is HostClosure) and id(v) not in seen:
            seen.add(id(v))
            if c is Table:
                total += table_bytes(len(v))
                todo.extend(v.keys())
                todo.extend(v.values())
            elif c is Closure:
                total += BBZ_OBJ_BYTES
                todo.extend(v.upvalues)
            elif v.self_table is not None:
                todo.append(v.self_table)
    return total


def frame_roots(code_prefix: str = "<buzz:"):
    """Values held by running generated functions (their Python locals)."""
    f = sys._getframe(1)
    while f is not None:
        if f.f_code.co_filename.startswith(code_prefix):
            yield from f.f_locals.values()
        f = f.f_back
