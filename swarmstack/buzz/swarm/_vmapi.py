"""The few VM entry points the swarm layer uses, in one place.

Keeping them here means the swarm layer depends on a handful of documented embedding calls
(``call``, raising a runtime error from a host closure, the current source location), and a
test double only has to provide those.
"""

from __future__ import annotations

from typing import Any

from swarmstack.buzz.errors import BuzzRaise


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


def location(vm: Any) -> str:
    """``FILE:LINE:COL`` of the instruction being executed, when the VM can tell."""
    loc = getattr(vm, "location", None)
    if callable(loc):
        try:
            return str(loc())
        except Exception:  # pragma: no cover - best effort only
            return ""
    return str(loc) if loc else ""
