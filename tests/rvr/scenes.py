"""Small RVR scenes for the tests: explicit poses, chosen sensors, optional obstacles."""

from __future__ import annotations

from swarmstack.sim.simulation import Simulation


def rvr_sim(poses, sensors, *, size=(4.0, 4.0), walls=None, boxes=(), cylinders=(), lights=(),
            floor=None, controller=None, seed=1, others=()):
    cfg = {"simulation": {"ticks_per_second": 10, "seed": seed},
           "arena": {"size": list(size), "walls": walls if walls is not None else False},
           "boxes": list(boxes), "cylinders": list(cylinders), "lights": list(lights),
           "robots": [{"name": "rvr", "type": "rvr",
                       "placement": {"kind": "explicit", "poses": [list(p) for p in poses]},
                       "sensors": sensors}, *others]}
    if floor is not None:
        cfg["floor"] = floor
    if controller is not None:
        cfg["robots"][0]["controller"] = controller
    sim = Simulation.from_dict(cfg)
    sim.start()
    return sim


def readings(sim, name="rvr"):
    return next(g for g in sim.groups if g.slice.name == name).readings


def commands(sim, name="rvr"):
    return next(g for g in sim.groups if g.slice.name == name).commands
