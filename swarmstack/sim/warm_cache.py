"""Warm Numba's cache: compile the simulation kernels before the first run.

Numba compiles a kernel the first time a process calls it and caches the machine code (next
to the sources, or under ``NUMBA_CACHE_DIR``); later processes load it in milliseconds. Left
to itself, the first run after an install pays for every kernel it touches (10–30 s).
:func:`compile_kernels` runs, for every robot type, a few ticks of a scene that switches on
each of its devices, its radio, lights, obstacles and collisions — on one thread and, when the
machine has more than one core, with every parallel kernel form forced on — so that every
later run loads its kernels from the cache.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Literal, Optional, get_args, get_origin

from swarmstack.sim import threads
from swarmstack.actuators import flight
from swarmstack.controllers.api import BatchedController


@dataclass
class Compiled:
    robot_type: str
    threads: int
    seconds: float


def scene(robot_type: str, count: int = 3, variant: int = 0) -> dict:
    """A small scene that exercises every device of ``robot_type``: ``count`` robots a run, a
    light, a box and a cylinder, the radio on (the start of a run passes every body through
    the contact kernels). ``variant`` k > 0 sets every option of a device that is a choice
    among names (a battery's model, a noise kind …) to its k-th choice, where it has one."""
    from swarmstack.robots import base

    rt = base.get(robot_type)
    group = {"name": "g", "type": robot_type, "count": count,
             "sensors": {name: _choices(spec.options, variant) or True
                         for name, spec in rt.devices.items()},
             "controller": {"python": f"{__name__}:DrawAndListen",
                            "params": {"radio": rt.radio is not None}}}
    if rt.radio is not None:
        group["radio"] = True
    return {"simulation": {"ticks_per_second": 10, "duration": 1},
            "arena": {"size": [2.0, 2.0]},
            "lights": [{"position": [0.5, 0.5, 0.2]}],
            "boxes": [{"center": [0.0, 0.6], "size": [0.2, 0.1, 0.1]}],
            "cylinders": [{"center": [0.0, -0.6], "radius": 0.05}],
            "robots": [group]}


def variants(robot_type: str) -> int:
    """How many :func:`scene` variants cover every named choice of ``robot_type``'s devices."""
    from swarmstack.robots import base

    counts = [len(choices) for spec in base.get(robot_type).devices.values()
              for choices in _named_choices(spec.options).values()]
    return max(counts, default=1)


def _named_choices(options) -> dict:
    """Fields of a device's option model that are a choice among names, with the names."""
    out = {}
    for name, field in getattr(options, "model_fields", {}).items():
        if get_origin(field.annotation) is Literal:
            names = [a for a in get_args(field.annotation) if isinstance(a, str)]
            if len(names) > 1:
                out[name] = names
    return out


def _choices(options, variant: int) -> dict:
    if variant == 0:
        return {}
    return {name: names[variant] for name, names in _named_choices(options).items()
            if variant < len(names)}


class DrawAndListen(BatchedController):
    """The warm-up scenes' controller: what controllers commonly ask for every tick (random
    draws; with a radio, the neighbour sums), so that those kernels compile too, and random
    wheel speeds or flight velocities, so that the robots move (and touch: the contact pass)."""

    def init(self, group, params: dict) -> None:
        self.radio = bool(params.get("radio"))

    def step(self, group) -> None:
        draws = group.uniform(3) * 2.0 - 1.0
        if "wheels" in group.commands:
            group.wheels[:] = draws[:, :2] * 0.2
        if "velocity" in group.commands and "mode" in group.commands:
            if group.tick == 0:  # motors on, rising
                group.mode[:] = flight.TAKEOFF
                group.target[:] = (math.nan, math.nan, 0.5, math.nan)
            else:
                group.mode[:] = flight.CMD_VELOCITY
                group.velocity[:, :3] = draws * 0.5
        if self.radio:
            group.neighbour_sums(1.0)


def plan(robot_types: Optional[list[str]] = None) -> list[tuple[str, int]]:
    """The warm-up steps :func:`compile_kernels` takes, in order: (robot type, thread count),
    every type on one thread, then on two when the machine has more than one core."""
    import swarmstack.robots  # noqa: F401  (registers the built-in types)
    from swarmstack.robots import base

    names = robot_types or sorted(base.ROBOT_TYPES)
    passes = [1] + ([2] if threads.machine_threads() > 1 else [])
    return [(name, n) for n in passes for name in names]


def compile_kernels(robot_types: Optional[list[str]] = None,
                    on_done: Optional[Callable[[Compiled], None]] = None) -> list[Compiled]:
    """Run every robot type's :func:`scene` for a few ticks, each step of :func:`plan`;
    returns what was compiled and how long it took (``on_done`` is told after each step)."""
    done: list[Compiled] = []
    for name, n in plan(robot_types):
        c = _run_scenes(name, n)
        done.append(c)
        if on_done is not None:
            on_done(c)
    return done


def _run_scenes(name: str, n: int) -> Compiled:
    from swarmstack.sim.simulation import Simulation

    # with two threads, every kernel parallel from one robot on, in chunks of a few robots:
    # the parallel forms compile too
    t0 = time.perf_counter()
    with threads.using(n, parallel_min=1 if n > 1 else None, chunk_max=2 if n > 1 else None):
        sim = Simulation.from_dict(scene(name), seed=1, runs=2, source=f"<{name} kernels>")
        sim.run(3)
        if n == 1:  # a group of one robot (its columns are contiguous: other types)
            # with each named choice of its devices' options (battery models …)
            for variant in range(variants(name)):
                sim = Simulation.from_dict(scene(name, 1, variant), seed=1, runs=1,
                                           source=f"<{name} kernels>")
                sim.run(3)
    return Compiled(name, n, time.perf_counter() - t0)
