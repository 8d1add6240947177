"""The few VM entry points the swarm layer uses, and the argument checks its host closures share.

Keeping them here means the swarm layer depends on a handful of documented embedding calls
(``call``, ``call_value``, raising a runtime error from a host closure), and a test double
only has to provide those.
"""

from __future__ import annotations

from typing import Any

from swarmstack.buzz.errors import BuzzRaise
from swarmstack.buzz.values import Closure, HostClosure


class SwarmRuntimeError(BuzzRaise):
    """Raised by a swarm host closure; the VM turns it into a located runtime error
    (``FILE:LINE:COL: message`` at the script call that reached the host closure)."""


def call(vm: Any, fn: Any, *args: Any) -> Any:
    """Call a Buzz closure from a host closure, i.e. *inside* a running script
    (``neighbors.foreach``, ``s.exec`` ...): a runtime error propagates to the script's caller
    and carries the location of the failing Buzz code."""
    return vm.call_value(fn, *args)


def call_from_host(vm: Any, fn: Any, *args: Any) -> Any:
    """Call a Buzz closure from the host between script runs (listeners, conflict hooks while
    handling incoming messages). A runtime error marks the VM failed (``vm.failed``) and the
    result is None; callers must stop driving a failed VM."""
    return vm.call(fn, *args)


def fail(vm: Any, message: str) -> None:
    """Stop the script with a runtime error ``message`` at the current call's location."""
    raise SwarmRuntimeError(message)


def type_name(v: Any) -> str:
    if v is None:
        return "nil"
    if isinstance(v, (bool, int)):
        return "integer"
    for cls, name in ((float, "float"), (str, "string"), (dict, "table"),
                      ((Closure, HostClosure), "closure")):
        if isinstance(v, cls):
            return name
    return type(v).__name__


_IS = {"integer": lambda v: type(v) is int, "string": lambda v: isinstance(v, str),
       "table": lambda v: isinstance(v, dict),
       "closure": lambda v: isinstance(v, (Closure, HostClosure))}


def expect(vm: Any, v: Any, what: str) -> Any:
    """``v`` when it is a ``what`` (integer, string, table, closure), else a type mismatch."""
    if not _IS[what](v):
        fail(vm, f"type mismatch: expected {what}, got {type_name(v)}")
    return v


def nargs(vm: Any, name: str, args: tuple, n: int) -> None:
    if len(args) != n:
        fail(vm, f"{name}: expected {n} argument{'s' if n != 1 else ''}, got {len(args)}")
