"""What the validations that run robots share: a started simulation, and Buzz scripts of
``examples/buzz`` run in the standalone harness or on simulated E-Puck2 robots (group ``r``)
at given poses, with a script global of every robot read per run."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional, Sequence

GROUP = "r"
TICKS_PER_SECOND = 20  # 50 ms control steps, as in the papers
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "buzz"


def started(cfg: dict, **kwargs):
    """``Simulation.from_dict(cfg, **kwargs)``, started."""
    from swarmstack.sim.simulation import Simulation

    sim = Simulation.from_dict(cfg, **kwargs)
    sim.start()
    return sim


def explicit(name: str, poses, **keys) -> dict:
    """A robot group ``name`` placed at ``poses`` ([x, y, yaw] each), with its other keys."""
    return {"name": name, "placement": {"kind": "explicit", "poses": poses}, **keys}


def harness(script: str, robots: int, until: str, max_steps: int, **kwargs):
    """``script`` (a file of ``examples/buzz``) on ``robots`` robots of the standalone harness
    (``kwargs``: its topology, drop, seed, params …), stepped until every robot has set the
    global ``until`` or for ``max_steps`` steps; a robot that failed raises."""
    from swarmstack.buzz.swarm import Harness

    h = Harness((EXAMPLES / script).read_text(), robots, filename=script, **kwargs).load()
    for _ in range(max_steps):
        h.step()
        if done([h.get_global(i, until) for i in range(robots)]):
            break
    bad = [r for r in h.results if r.failed]
    if bad:
        raise RuntimeError(f"robot {bad[0].id} failed: {bad[0].error}")
    return h


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
    data = {
        "simulation": {"ticks_per_second": TICKS_PER_SECOND},
        "arena": {"size": [arena, arena], "walls": True},
        "robots": [explicit(GROUP, [list(p) for p in poses], type="epuck2",
                            controller={"buzz": str(EXAMPLES / script), "params": dict(params)},
                            radio=dict(radio))],
    }
    kw = {}
    if run_params is not None:
        kw["params"] = [{GROUP: dict(p)} for p in run_params]
    return started(data, base_dir=EXAMPLES, seed=seed, runs=runs, **kw)


def step_until(sim, until: str, max_steps: int, each=None) -> None:
    """Step ``sim`` until every robot has set the script global ``until`` (at most
    ``max_steps`` ticks; ``each()`` after every tick); a robot that failed raises."""
    ctrl = sim.buzz(GROUP)
    for _ in range(max_steps):
        sim.step()
        if each is not None:
            each()
        if done([ctrl.get_global(k, until) for k in range(len(ctrl.robots))]):
            break
    failures = sim.robot_failures()
    if failures:
        f = failures[0]
        raise RuntimeError(f"run {f['run']} robot {f['robot']} failed at tick {f['tick']}: "
                           f"{f['report'] or f['error']}")


def per_run(sim, name: str) -> list[list[Any]]:
    """Global ``name`` of every robot, as one list per run ordered by robot id."""
    ctrl = sim.buzz(GROUP)
    out: list[dict[int, Any]] = [dict() for _ in range(sim.runs)]
    for k, view in enumerate(ctrl.views):
        out[view.run][view.id] = ctrl.get_global(k, name)
    return [[d[i] for i in sorted(d)] for d in out]


def done(values: Sequence[Any]) -> bool:
    return all(v not in (None, -1) for v in values)
