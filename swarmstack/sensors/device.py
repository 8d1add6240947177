"""What the runner needs from a sensor: allocate its readings once, refresh them every tick.

A device is a small frozen dataclass holding its parameters (geometry, transfer function,
noise) with two methods:

- ``allocate(n) -> numpy array`` — the readings buffer for ``n`` robots (first axis = robot);
  allocated once, then refreshed *in place*, so that per-robot controller views stay valid.
- ``update(world, group, keys, out, state)`` — refresh ``out`` for the robots of ``group``;
  ``keys`` is uint64[n, len(STREAMS)] (the group's random stream keys); ``state`` is whatever
  ``make_state(n)`` returned (or None), for devices that integrate over time (encoders).

A device may also offer ``bind(world, group, keys, out, state)``: ``update`` for one group as
a call without arguments, bound to its compiled serial kernel (a tick of a small group is then
mostly the kernel, not Python); it returns None when the group may go parallel
(:func:`serial_arrays`), and ``update`` chooses each tick.

``name`` is the attribute under which controllers read the device (``robot.proximity``), and
``scalar`` says whether each robot's reading is one number (exposed as a 0-d array view).
"""

from __future__ import annotations

from typing import Any, Optional, Protocol

import numpy as np

from swarmstack.sim import threads


class Device(Protocol):
    name: str
    scalar: bool

    def allocate(self, n: int) -> np.ndarray: ...

    def make_state(self, n: int) -> Any: ...

    def update(self, world, group, keys: np.ndarray, out: np.ndarray, state: Any) -> None: ...


def serial_arrays(world, group, min_items: int = threads.PARALLEL_MIN_ITEMS) -> Optional[tuple]:
    """For a device's ``bind``: the arrays every sensor kernel takes first, ``(start, stop,
    pose, run, radius, height, boxes, cylinders, gparams)``, or None when the group is large
    enough to go parallel (``threads.stays_serial`` with the kernel's minimum ``min_items``).
    A bound call must still read the grid (``world.cell_start``, ``world.order``: the contact
    pass replaces them) and the tick at each call."""
    if not threads.stays_serial(group.stop - group.start, min_items):
        return None
    b = world.bodies
    arena = world.arena
    return (group.start, group.stop, b.pose, b.run, b.radius, b.height, arena.boxes,
            arena.cylinders, world.grid)
