"""Sub-steps: how finely a tick is cut so that contacts hold at any tick rate.

Contacts only see where bodies are at the end of a step. A body that is clear of a shape (a
wall, a box, a cylinder, another body) has its centre at least its inscribed radius — its
smallest half extent ``e`` (a disc's radius, the smaller half side of a box) — away from it.
While every point of every body travels less than ``SAFE_FRACTION · e`` of its own body during
a step, no centre can reach the middle of anything it was clear of, however thin: the push-out
of the contacts (along the line from the nearest point, or the separating axis, to the centre)
then sends each body back to the side it came from. Two bodies closing on each other head-on
cover together less than ``SAFE_FRACTION · (e_i + e_j)`` and cannot swap places either.

A tick of ``dt`` is therefore integrated, run by run, in ``k`` equal sub-steps of ``dt / k``,
with the contacts after each, where ``k`` is the smallest count that keeps every body *of that
run* within its safe step this tick (1 whenever that already holds: an E-Puck2 at full speed
and 10 ticks/s covers 15.4 mm, its safe step is 21 mm). The thickness of the obstacles does not
enter the rule. Each run of a batch has its own ``k``: a fast body in one run never changes how
the bodies of another are integrated, so each run moves exactly as it would alone.

A dynamics may bound its own bodies: ``plan(bodies, start, stop, state, dt, k_run)`` returns
the tick's two calls, ``count()`` (raises ``k_run[r]`` to the ``k`` the bodies of run ``r`` in
the range need and returns the largest, moving nothing) and ``integrate()`` (the whole tick),
and the tick counts before integrating (``physics.diffdrive`` and ``physics.quadrotor`` do).
For a dynamics without it, the tick measures what a trial integration of the whole tick moved
(``measure_by_run``): exact for motion along straight lines. The drive state is set once per
tick; every sub-step reuses it.
"""

from __future__ import annotations

import math

from swarmstack.geometry.overlap import SHAPE_BOX
from numba import njit

# fraction of a body's smallest half extent it may travel in one sub-step (below 1 suffices for
# two discs or a disc and a static shape; at most 0.5 keeps one centre out of the other body
# whatever the pair; 0.6 keeps a margin for wheel noise at 10 ticks/s with E-Puck2s). Kernels
# of physics.diffdrive compile it in: their Numba cache must be cleared after a change here.
SAFE_FRACTION = 0.6
# beyond this many sub-steps a tick is cut no further (a tick of ~10⁹ s of motion)
MAX_SUBSTEPS = 1 << 40


@njit(cache=True, error_model="numpy", inline="always")
def substeps_for(travel, half_x, half_y):
    """Sub-steps (≥ 1) so that a body with half extents ``half_x``, ``half_y`` (m), any point of
    which covers at most ``travel`` (m) during the step, moves at most its safe step in each."""
    safe = SAFE_FRACTION * min(half_x, half_y)
    if not travel > safe or not safe > 0.0:  # within the safe step (or NaN, or no size)
        return 1
    ratio = travel / safe
    if not ratio < MAX_SUBSTEPS:  # also an infinite travel
        return MAX_SUBSTEPS
    return int(math.ceil(ratio))


@njit(cache=True, error_model="numpy")
def measured_substeps_by_run(x, y, yaw, prev_x, prev_y, prev_yaw, shape, radius, half_x, half_y,
                             box_shape, run, k_run):
    """Raises ``k_run[run[i]]`` to the sub-steps body i needs, from what it moved since
    ``prev_*``: its centre's straight displacement, plus, for shapes equal to ``box_shape``, a
    corner's sweep by the turn. Returns the largest (≥ 1)."""
    most = 1
    for i in range(x.shape[0]):
        dx = x[i] - prev_x[i]
        dy = y[i] - prev_y[i]
        travel = math.sqrt(dx * dx + dy * dy)
        if shape[i] == box_shape:
            turn = abs(yaw[i] - prev_yaw[i])
            if turn > math.pi:  # the short way round
                turn = abs(2.0 * math.pi - turn)
            travel += turn * radius[i]
        k = substeps_for(travel, half_x[i], half_y[i])
        if k > k_run[run[i]]:
            k_run[run[i]] = k
        most = max(most, k)
    return most


def measure_by_run(bodies, k_run) -> int:
    """Raises ``k_run[r]`` (int64[runs]) to the sub-steps the bodies of run ``r`` need for what
    they moved since ``prev_pose`` (a trial integration of the whole tick); returns the
    largest."""
    return measured_substeps_by_run(bodies.x, bodies.y, bodies.yaw, bodies.prev_x,
                                    bodies.prev_y, bodies.prev_yaw, bodies.shape, bodies.radius,
                                    bodies.half_x, bodies.half_y, SHAPE_BOX, bodies.run, k_run)


def bounded(dynamics) -> bool:
    """Whether ``dynamics`` bounds its own bodies' sub-steps (``plan``); the others are
    measured after a trial integration."""
    return callable(getattr(dynamics, "plan", None))
