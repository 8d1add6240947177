"""Collisions counted per robot, for the run summaries.

A robot *collides* when the contacts have to push it back — out of another body, a wall or an
obstacle, or to where it stood — after a step in which they did not. Pressing on against a wall
for many ticks is one collision; a robot standing still that another runs into holds its place
(the mover takes the correction, ``physics.contacts``), so the collision is the mover's.
"""

from __future__ import annotations

import numpy as np

from swarmstack.kernels import njit


@njit(cache=True, error_model="numpy")
def count_collisions(x, y, yaw, before_x, before_y, before_yaw, pushed, collisions):
    """After a contact pass: ``pushed[i]`` becomes whether the pass moved body i (its pose
    against ``before_*``, the pose the pass started from), and ``collisions[i]`` grows by one
    where it did and had not been pushed the pass before."""
    for i in range(x.shape[0]):
        now = x[i] != before_x[i] or y[i] != before_y[i] or yaw[i] != before_yaw[i]
        if now and not pushed[i]:
            collisions[i] += 1
        pushed[i] = now


def per_run(collisions: np.ndarray, run: np.ndarray, n_runs: int) -> list[int]:
    """Collisions of every run (the sum over its robots)."""
    return np.bincount(run, weights=collisions, minlength=n_runs).astype(np.int64).tolist()
