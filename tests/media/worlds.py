"""Hand-built worlds for the medium tests: bodies placed exactly where a test needs them."""

from __future__ import annotations

import numpy as np

from swarmstack.world.arena import Arena
from swarmstack.world.scene import GroupSlice, Scene
from swarmstack.world.state import Bodies, Emitters, World

RADIUS_M = 0.035
HEIGHT_M = 0.045


def make_world(poses_per_run, *, z=None, roll=None, pitch=None, boxes=(), cylinders=(),
               bounds=(-2.0, -2.0, 2.0, 2.0), radius=RADIUS_M, height=HEIGHT_M) -> World:
    """A world of disc robots; ``poses_per_run[r]`` = [(x, y, yaw), …] (same count per run).

    ``z``, ``roll``, ``pitch``: optional per-body values (body order: run 0's robots, then
    run 1's …). ``boxes`` rows are (cx, cy, half_x, half_y, yaw, height), ``cylinders`` rows
    (cx, cy, radius, height).
    """
    runs = len(poses_per_run)
    per_run = len(poses_per_run[0])
    assert all(len(p) == per_run for p in poses_per_run)
    flat = np.array([pose for poses in poses_per_run for pose in poses], dtype=np.float64)
    n = flat.shape[0]
    run = np.repeat(np.arange(runs), per_run)
    rid = np.tile(np.arange(per_run), runs)
    zs = np.zeros(n) if z is None else np.asarray(z, dtype=np.float64)
    bodies = Bodies(run, rid, flat[:, 0], flat[:, 1], zs, flat[:, 2], np.full(n, radius),
                    np.full(n, height))
    if roll is not None:
        bodies.roll[:] = roll
    if pitch is not None:
        bodies.pitch[:] = pitch
    arena = Arena(bounds=tuple(bounds), boxes=np.array(boxes, dtype=np.float64).reshape(-1, 6),
                  cylinders=np.array(cylinders, dtype=np.float64).reshape(-1, 4))
    scene = Scene.create(arena, [GroupSlice("r", "epuck2", 0, n, per_run, 0, 0)], runs, 0.1,
                         radius)
    emitters = Emitters(np.zeros((n, 0, 3)), np.zeros((n, 0, 3)),
                        np.zeros((n, 0, 3), dtype=np.uint8), np.zeros((n, 0)),
                        np.zeros(n, dtype=np.int64))
    return World(scene, bodies, emitters)


def row(xs, y=0.0, yaw=0.0):
    """Robots on a line parallel to x."""
    return [(float(x), y, yaw) for x in xs]


def heard(inbox, j) -> list[int]:
    """Sender body indices heard by body ``j``."""
    return inbox.sender[inbox.start[j]:inbox.start[j + 1]].tolist()
