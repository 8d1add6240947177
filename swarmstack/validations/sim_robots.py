"""What the ``sim-*`` validations share: Buzz scripts of ``examples/buzz`` on simulated
E-Puck2 robots (group ``r``) at given poses, and reading a script global of every robot per
run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional, Sequence

GROUP = "r"
TICKS_PER_SECOND = 20  # 50 ms control steps, as in the papers


def examples_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "examples" / "buzz"


def circle_poses(n: int, radius: float,
                 center: tuple[float, float] = (0.0, 0.0)) -> list[list[float]]:
    """``n`` robots evenly spaced on a circle, facing outwards."""
    cx, cy = center
    angles = [2 * math.pi * i / n for i in range(n)]
    return [[cx + radius * math.cos(a), cy + radius * math.sin(a), a] for a in angles]


def buzz_simulation(script: str, poses: Sequence[Sequence[float]], params: dict, radio: dict,
                    seed: int, runs: int = 1, run_params: Optional[list[dict]] = None,
                    arena: float = 4.0):
    """A started simulation of E-Puck2 robots (group ``r``) at ``poses`` running ``script``
    (a file of ``examples/buzz``) with ``params``; ``radio`` is the group's radio table
    (``range``, ``payload_bytes``, ``drop`` ...). ``run_params`` (one dict per run) gives
    each run of the batch its own script parameters."""
    from swarmstack.sim.simulation import Simulation

    ex = examples_dir()
    data = {
        "simulation": {"ticks_per_second": TICKS_PER_SECOND},
        "arena": {"size": [arena, arena], "walls": True},
        "robots": [{"name": GROUP, "type": "epuck2",
                    "placement": {"kind": "explicit", "poses": [list(p) for p in poses]},
                    "controller": {"buzz": str(ex / script), "params": dict(params)},
                    "radio": dict(radio)}],
    }
    kw = {}
    if run_params is not None:
        kw["params"] = [{GROUP: dict(p)} for p in run_params]
    sim = Simulation.from_dict(data, base_dir=ex, seed=seed, runs=runs, **kw)
    sim.start()
    return sim


def per_run(sim, name: str) -> list[list[Any]]:
    """Global ``name`` of every robot, as one list per run ordered by robot id."""
    ctrl = sim.buzz(GROUP)
    out: list[dict[int, Any]] = [dict() for _ in range(sim.runs)]
    for k, view in enumerate(ctrl.views):
        out[view.run][view.id] = ctrl.get_global(k, name)
    return [[d[i] for i in sorted(d)] for d in out]


def check_failures(sim) -> None:
    failures = sim.robot_failures()
    if failures:
        f = failures[0]
        raise RuntimeError(f"run {f['run']} robot {f['robot']} failed at tick {f['tick']}: "
                           f"{f['report'] or f['error']}")


def done(values: Sequence[Any]) -> bool:
    return all(v not in (None, -1) for v in values)
