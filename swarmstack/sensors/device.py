"""What the runner needs from a sensor: allocate its readings once, refresh them every tick.

A device is a small frozen dataclass holding its parameters (geometry, transfer function,
noise) with two methods:

- ``allocate(n) -> numpy array`` — the readings buffer for ``n`` robots (first axis = robot);
  allocated once, then refreshed *in place*, so that per-robot controller views stay valid.
- ``update(world, group, keys, out, state)`` — refresh ``out`` for the robots of ``group``;
  ``keys`` is uint64[n, len(STREAMS)] (the group's random stream keys); ``state`` is whatever
  ``make_state(n)`` returned (or None), for devices that integrate over time (encoders).

``name`` is the attribute under which controllers read the device (``robot.proximity``), and
``scalar`` says whether each robot's reading is one number (exposed as a 0-d array view).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Device(Protocol):
    name: str
    scalar: bool

    def allocate(self, n: int) -> np.ndarray: ...

    def make_state(self, n: int) -> Any: ...

    def update(self, world, group, keys: np.ndarray, out: np.ndarray, state: Any) -> None: ...
