"""Compile the simulation kernels ahead of the first run.

Numba compiles a kernel the first time a process calls it and caches the machine code next to
the sources; later processes load it in milliseconds. Left to itself, the first run after an
install pays for every kernel it touches (10–30 s). :func:`compile_kernels` runs, for every
robot type, a few ticks of a scene that switches on each of its devices, its radio, lights,
obstacles and collisions — on one thread and, when the machine has more than one core, with
every parallel kernel form forced on — so that every later run starts from the cache.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Optional

from swarmstack import threads


@dataclass
class Compiled:
    robot_type: str
    threads: int
    seconds: float


def scene(robot_type: str) -> dict:
    """A small scene that exercises every device of ``robot_type``: two runs of three robots,
    a light, a box and a cylinder, the radio on (the start of a run passes every body through
    the contact kernels)."""
    from swarmstack.robots import base

    rt = base.get(robot_type)
    group = {"name": "g", "type": robot_type, "count": 3,
             "sensors": {name: True for name in rt.devices}}
    if rt.radio is not None:
        group["radio"] = True
    return {"simulation": {"ticks_per_second": 10, "duration": 1},
            "arena": {"size": [2.0, 2.0]},
            "lights": [{"position": [0.5, 0.5, 0.2]}],
            "boxes": [{"center": [0.0, 0.6], "size": [0.2, 0.1, 0.1]}],
            "cylinders": [{"center": [0.0, -0.6], "radius": 0.05}],
            "robots": [group]}


def compile_kernels(robot_types: Optional[list[str]] = None,
                    on_done: Optional[Callable[[Compiled], None]] = None) -> list[Compiled]:
    """Run every robot type's :func:`scene` for a few ticks (then again with the parallel
    kernel forms when the machine has several cores); returns what was compiled and when."""
    import swarmstack.robots  # noqa: F401  (registers the built-in types)
    from swarmstack.experiments.simulation import Simulation
    from swarmstack.robots import base

    names = robot_types or sorted(base.ROBOT_TYPES)
    passes = [1] + ([2] if threads.machine_threads() > 1 else [])
    done = []
    for n in passes:
        # two threads, every kernel parallel from one robot on, in chunks of a few robots:
        # the parallel forms compile too
        with threads.using(n, parallel_min=1 if n > 1 else None,
                           chunk_max=2 if n > 1 else None):
            for name in names:
                t0 = time.perf_counter()
                sim = Simulation.from_dict(scene(name), seed=1, runs=2,
                                           source=f"<{name} kernels>")
                sim.run(3)
                c = Compiled(name, n, time.perf_counter() - t0)
                done.append(c)
                if on_done is not None:
                    on_done(c)
    return done
