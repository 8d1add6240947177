"""What the simulation needs from a sensor (a *device*), and how to write one.

A device is a small frozen dataclass holding its parameters (geometry, transfer function,
noise) with these attributes and methods:

- ``name``: the attribute under which controllers read it (``robot.proximity``);
- ``scalar``: whether each robot's reading is one number (controllers then see a 0-d view);
- ``stream``: the name the device's random keys are derived from (by default its own name);
- ``allocate(n) -> numpy array``: the readings buffer for ``n`` robots (first axis = robot),
  allocated once and then refreshed *in place*, so that per-robot controller views stay valid;
- ``make_state(n)``: whatever the device keeps between ticks or uses as scratch for ``n``
  robots (an array, a dict, or None);
- ``plan(world, group, keys, out, state) -> call``: returns a function without arguments that
  refreshes ``out`` for the robots of ``group``; the simulation calls it once per tick.

``plan`` is called once, when the simulation plans its calls (and again when the thread
settings change). Its arguments: ``world`` (:class:`swarmstack.world.state.World`); ``group``
the robots' slice of the world's arrays (``group.start`` … ``group.stop − 1``); ``keys``
uint64[n], this device's random key for each robot of the group (draw noise with
``swarmstack.world.rng`` from ``(keys[row], world.tick, channel)``: the same numbers whatever
the thread count); ``out`` the buffer of ``allocate``; ``state`` what ``make_state`` returned.

Everything that does not change during a run is worked out in ``plan``: parameter tuples, the
kernel to call. What changes is read in the returned call, each tick: ``world.tick``,
``world.bodies_args`` (``pose, run, radius, height``) and ``world.scene_args`` (boxes,
cylinders, the robot grid: the contact pass replaces the grid arrays every tick).

A device whose work is per robot writes it as one compiled *rows* kernel
``rows(lo, hi, start, bodies, scene, params, keys, tick, state, out)`` that fills the rows
``i − start`` of ``out`` for the robots ``lo … hi − 1``, each robot reading its own key and
writing only its own rows. ``threads.chunked(rows)`` makes its parallel form, and
``threads.rows_plan`` picks the form for the group once and returns the tick's call: both
forms give the same numbers. A typical ``plan``::

    def plan(self, world, group, keys, out, state):
        params = (self.range_m, NOISE_KINDS[self.noise], self.noise_level)
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys, state, out)

A device computed with NumPy just returns a function that does so; one whose reading is a
transform of the body state subclasses :class:`BodyReading`.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Protocol

import numpy as np


class Device(Protocol):
    name: str
    scalar: bool
    stream: str

    def allocate(self, n: int) -> np.ndarray: ...

    def make_state(self, n: int) -> Any: ...

    def plan(self, world, group, keys: np.ndarray, out: np.ndarray,
             state: Any) -> Callable[[], None]: ...


class DeviceBase:
    """What most devices share: a reading per robot that is a vector (``scalar = True`` for
    one number), random keys derived from the device's own ``name``, no state."""

    scalar = False

    @property
    def stream(self) -> str:
        return self.name

    def make_state(self, n: int) -> Any:
        return None


class BodyReading(DeviceBase):
    """A device whose reading is a transform of the body state, computed with NumPy each tick.

    A subclass (a frozen dataclass with a ``name``) sets ``width``, the numbers per robot, and
    writes ``read(world, group, state, out)``; ``state`` is a dict, empty when a run starts,
    where ``read`` keeps what it remembers between ticks (the boot pose, the last reading)."""

    width = 3

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, self.width))

    def make_state(self, n: int) -> dict:
        return {}

    def plan(self, world, group, keys, out, state):
        return partial(self.read, world, group, state, out)
