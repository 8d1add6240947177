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


def physics_phase(bodies, bounded: tuple, trials: tuple, measure, contacts, substeps,
                  place) -> Callable[[], None]:
    """The physics phase: keep the pose before the tick, then move every group over the tick
    unless some run needs sub-steps (``physics.substeps``), then ``contacts(prev_pose)`` if a
    body moved and ``place()`` (lit emitters, or None); or ``substeps()``: the whole tick again,
    each run in the sub-steps it needs.

    ``bounded``: per group whose dynamics bounds its own bodies, ``(try_step, need)``, calls
    without arguments: ``try_step()`` integrates unless the group needs sub-steps (1 moved,
    0 not, −k nothing moved), ``need()`` the sub-steps it needs, moving nothing. ``trials``:
    the integrations of the other groups, measured after the fact by ``measure(bodies)``."""
    # the pose before the tick (contacts, velocities), copied as bytes: for a small world a
    # memoryview's copy costs half of `prev_pose[...] = pose` and a sixth of np.copyto
    prev_pose, pose = (memoryview(a).cast("B") for a in (bodies.prev_pose, bodies.pose))
    prev = bodies.prev_pose

    if len(bounded) == 1 and not trials:  # one group, bounded (the usual case): one call
        (move, _), = bounded

        def physics() -> None:
            prev_pose[:] = pose
            r = move()
            if r < 0:
                substeps()
                return
            if r:
                contacts(prev)
            if place is not None:
                place()

        return physics

    # the groups before the last bounded one are asked first (nothing moves until every group
    # is known to fit in one step); they then integrate with their ``try_step`` (which finds
    # k = 1 again), the last one checks and integrates in its own
    needs = tuple(need for _, need in bounded[:-1])
    steps = tuple(try_step for try_step, _ in bounded[:-1])
    last = bounded[-1][0] if bounded else None

    def physics() -> None:
        prev_pose[:] = pose
        moved = False
        if trials:  # dynamics without a bound: what a trial of the whole tick moved, measured
            for integrate in trials:
                moved |= bool(integrate())
            if measure(bodies) > 1:
                substeps()
                return
        for need in needs:
            if need() > 1:
                substeps()
                return
        if last is not None:
            r = last()
            if r < 0:
                substeps()
                return
            moved |= r > 0
            for step in steps:
                moved |= step() > 0
        if moved:
            contacts(prev)
        if place is not None:
            place()

    return physics
