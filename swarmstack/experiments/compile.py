"""Compile the simulation kernels ahead of the first run.

Numba compiles a kernel the first time a process calls it and caches the machine code next to
the sources; later processes load it in milliseconds. Left to itself, the first run after an
install pays for every kernel it touches (10–30 s). :func:`compile_kernels` runs, for every
robot type, a few ticks of a scene that switches on each of its devices, its radio, lights,
obstacles and collisions — on one thread and, when the machine has more than one core, with
every parallel kernel form forced on — so that every later run starts from the cache. The
serial kernels are then also built ahead of time into one extension module
(:mod:`swarmstack.kernels.ahead`): a run whose kernels are all there loads them without
starting Numba.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, Optional, get_args, get_origin

from swarmstack import threads
from swarmstack.actuators import flight
from swarmstack.controllers.api import BatchedController
from swarmstack.kernels import ahead


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


def compile_kernels(robot_types: Optional[list[str]] = None,
                    on_done: Optional[Callable[[Compiled], None]] = None,
                    build_ahead: bool = False) -> list[Compiled]:
    """Run every robot type's :func:`scene` for a few ticks (then again with the parallel
    kernel forms when the machine has several cores); returns what was compiled and when.

    ``build_ahead``: also build the serial kernels ahead of time, in a child process that
    starts once they are compiled and works while the parallel forms compile
    (:func:`built_ahead` waits for it and tells what it made)."""
    import swarmstack.robots  # noqa: F401  (registers the built-in types)
    from swarmstack.robots import base

    global _builder
    names = robot_types or sorted(base.ROBOT_TYPES)
    passes = [1] + ([2] if threads.machine_threads() > 1 else [])
    done: list[Compiled] = []
    for n in passes:
        with ahead.disabled():  # every kernel through Numba, so that the cache has them all
            _run_scenes(names, n, done, on_done)
        if n == 1 and build_ahead:
            _builder = subprocess.Popen(
                [sys.executable, "-c", "from swarmstack.experiments.compile import "
                 f"_build_ahead; _build_ahead({names!r})"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return done


_builder: Optional[subprocess.Popen] = None


def built_ahead() -> ahead.Built:
    """Wait for the build started by :func:`compile_kernels` and tell what it made."""
    global _builder
    if _builder is None:
        return ahead.Built(None, 0, "no build was started")
    out, err = _builder.communicate()
    code, _builder = _builder.returncode, None
    try:
        row = json.loads(out.strip().splitlines()[-1])
        return ahead.Built(Path(row["path"]) if row["path"] else None, row["functions"],
                           row["skipped"])
    except (ValueError, IndexError, KeyError, TypeError):
        tail = (err.strip().splitlines() or [f"exit status {code}"])[-1]
        return ahead.Built(None, 0, tail[:200])


def _build_ahead(names: list[str]) -> None:
    """In a fresh process: the serial kernels the scenes call from Python, loaded from the
    cache (only those: a kernel compiled fresh also lists the callees it compiled), built
    ahead; prints what was built as JSON."""
    with ahead.disabled():
        _run_scenes(names, 1, [], None)
    built = ahead.build()
    print(json.dumps({"path": str(built.path) if built.path else None,
                      "functions": built.functions, "skipped": built.skipped}))


def _run_scenes(names: list[str], n: int, done: list[Compiled],
                on_done: Optional[Callable[[Compiled], None]]) -> None:
    from swarmstack.experiments.simulation import Simulation

    # with two threads, every kernel parallel from one robot on, in chunks of a few robots:
    # the parallel forms compile too
    with threads.using(n, parallel_min=1 if n > 1 else None, chunk_max=2 if n > 1 else None):
        for name in names:
            t0 = time.perf_counter()
            sim = Simulation.from_dict(scene(name), seed=1, runs=2, source=f"<{name} kernels>")
            sim.run(3)
            if n == 1:  # a group of one robot (its columns are contiguous: other types)
                # with each named choice of its devices' options (battery models …)
                for variant in range(variants(name)):
                    sim = Simulation.from_dict(scene(name, 1, variant), seed=1, runs=1,
                                               source=f"<{name} kernels>")
                    sim.run(3)
            c = Compiled(name, n, time.perf_counter() - t0)
            done.append(c)
            if on_done is not None:
                on_done(c)
