"""The phases of a tick as closures over what a simulation holds.

``Simulation`` binds each group's kernel calls once (``Simulation._bind``); the functions here
turn them, with the controllers and the world's arrays, into calls without arguments, so that
a tick does no look-up it can avoid: a one-robot tick costs about 2 µs, and the attribute
look-ups and method calls of a phase-by-phase step were a third of it.
"""

from __future__ import annotations

from typing import Callable


def control_phase(batched: list, per_robot: list, hold: list, failed) -> Callable[[], None]:
    """The control phase over ``batched`` ((group, controller, view) of each batched group),
    ``per_robot`` ((group, [(controller, view) of each live robot])) and ``hold`` ((command
    array, rows, safe value) of the stopped runs' robots); ``failed(group, view)`` is called
    inside the ``except`` of a controller that raised."""
    batched = tuple((g, ctrl, view._new_tick, view) for g, ctrl, view in batched)

    def control_batched() -> None:
        for g, ctrl, new_tick, view in batched:
            new_tick()
            try:
                ctrl.step(view)
            except Exception:
                failed(g, view)

    if len(batched) == 1:  # the usual case, without the loop (a tenth of a small tick)
        (g1, ctrl1, new_tick1, view1), = batched

        def control_batched() -> None:
            new_tick1()
            try:
                ctrl1.step(view1)
            except Exception:
                failed(g1, view1)

    if not (per_robot or hold):
        return control_batched

    def control() -> None:
        if batched:
            control_batched()
        for g, pairs in per_robot:
            while pairs:
                k = 0
                try:
                    for k, (ctrl, view) in enumerate(pairs):
                        ctrl.step(view)
                    break
                except Exception:
                    run = pairs[k][1].run
                    failed(g, pairs[k][1])  # raises unless isolate_runs
                    pairs = [p for p in pairs[k + 1:] if p[1].run != run]
        # stopped runs: whatever a batched controller wrote, safe commands
        for arr, rows, safe in hold:
            arr[rows] = safe

    return control


def physics_phase(bodies, motion: tuple, measure, contacts, substeps,
                  place) -> Callable[[], None]:
    """The physics phase: keep the pose before the tick, then each group's ``motion`` call
    (1: it moved a body, 0: not, −k: it moved nothing and the tick needs k sub-steps), or
    ``measure(bodies)`` for dynamics without a bound; then ``contacts(prev_x, prev_y,
    prev_yaw)`` if a body moved and ``place()`` (lit emitters, or None), or ``substeps(k)``
    for the whole tick again in k sub-steps."""
    # the pose before the tick (contacts, velocities), copied as bytes: for a small world a
    # memoryview's copy costs half of `prev_pose[...] = pose` and a sixth of np.copyto
    prev_pose, pose = (memoryview(a).cast("B") for a in (bodies.prev_pose, bodies.pose))
    prev = bodies.prev_x, bodies.prev_y, bodies.prev_yaw

    def physics() -> None:
        prev_pose[:] = pose
        moved = False
        k = 1
        for step in motion:
            r = step()
            if r < 0:
                k = max(k, -r)  # this group moved nothing: it needs −r sub-steps
            elif r:
                moved = True
        if measure is not None:  # dynamics without a bound: what they moved, measured
            k = max(k, measure(bodies))
        if k > 1:
            substeps(k)
            return
        if moved:
            contacts(*prev)
        if place is not None:
            place()

    if len(motion) == 1 and measure is None:  # one group, bounded: the same, without the loop
        move, = motion

        def physics() -> None:
            prev_pose[:] = pose
            r = move()
            if r < 0:
                substeps(-r)
                return
            if r:
                contacts(*prev)
            if place is not None:
                place()

    return physics
