"""Collisions counted per robot, for the run summaries.

A robot *collides* when the contacts have to push it back — out of another body, a wall or an
obstacle, or to where it stood — after a step of its run in which they did not. Pressing on
against a wall for many ticks is one collision; a robot standing still that another runs into
holds its place (the mover takes the correction, ``physics.contacts``), so the collision is
the mover's. A step counts for a run when one of its bodies moved (translated, rose or sank,
or, for a box, turned): steps in which only other runs of a batch moved leave its counts as
they are, so each run counts what it would count alone.
"""

from __future__ import annotations

import numpy as np

from swarmstack.geometry.overlap import SHAPE_BOX
from numba import njit


@njit(cache=True, error_model="numpy")
def count_collisions(pose, before, prev, shape, run, n_runs, pushed, collisions):
    """After a contact pass: for the bodies of every run that moved in the step (``prev`` the
    poses before the step, ``before`` after it and before the pass; float64[6, N]),
    ``pushed[i]`` becomes whether the pass moved body i (``pose`` against ``before``), and
    ``collisions[i]`` grows by one where it did and had not been pushed the pass before."""
    n = pose.shape[1]
    stepped = np.zeros(n_runs, dtype=np.bool_)
    for i in range(n):
        if (before[0, i] != prev[0, i] or before[1, i] != prev[1, i]
                or before[2, i] != prev[2, i]
                or (shape[i] == SHAPE_BOX and before[5, i] != prev[5, i])):
            stepped[run[i]] = True
    for i in range(n):
        if not stepped[run[i]]:
            continue
        now = pose[0, i] != before[0, i] or pose[1, i] != before[1, i] or \
            pose[5, i] != before[5, i]
        if now and not pushed[i]:
            collisions[i] += 1
        pushed[i] = now


def per_run(collisions: np.ndarray, run: np.ndarray, n_runs: int) -> list[int]:
    """Collisions of every run (the sum over its robots)."""
    return np.bincount(run, weights=collisions, minlength=n_runs).astype(np.int64).tolist()
