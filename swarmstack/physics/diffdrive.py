"""Differential-drive kinematics: wheel speeds → body motion, integrated exactly over a tick."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from swarmstack.sim import threads
from numba import njit, prange
from swarmstack.physics.substeps import substeps_for

# bodies per work item of the parallel kernels (results do not depend on it); below
# PARALLEL_MIN bodies a group integrates on one thread, cheaper than waking the pool
CHUNK = 2048
PARALLEL_MIN = 16384


@njit(cache=True, error_model="numpy")
def integrate_range(start, stop, x, y, yaw, wheel_speed, axle_m, dt, turning_moves):
    """Move bodies ``start … stop − 1`` along the arcs their wheel speeds describe during
    ``dt`` seconds; ``wheel_speed`` float64[stop − start, 2] (left, right) m/s, one axle.

    Writes ``x``, ``y``, ``yaw`` in place; yaw is wrapped to (−π, π]. Arcs are integrated in
    closed form, so the result does not depend on the tick length beyond the commands being
    constant. Returns True when a body translated (or turned, if ``turning_moves``).
    """
    return _integrate_rows(start, start, stop, x, y, yaw, wheel_speed, axle_m, dt,
                           turning_moves)


@njit(cache=True, error_model="numpy", inline="always")
def _integrate_rows(base, start, stop, x, y, yaw, wheel_speed, axle_m, dt, turning_moves):
    """``integrate_range`` of bodies ``start … stop − 1`` of a group whose first body is
    ``base`` (row ``i − base`` of ``wheel_speed``): the body both kernel forms share."""
    moved = False
    for i in range(start, stop):
        v_left = wheel_speed[i - base, 0]
        v_right = wheel_speed[i - base, 1]
        v = 0.5 * (v_left + v_right)
        w = (v_right - v_left) / axle_m
        th = yaw[i]
        half = 0.5 * w * dt
        # chord of the arc: length v dt · sin(half)/half, along the mid-arc heading
        # (one form for arcs and straight lines, without the cancellation of r·(sin θ2 − sin θ))
        if v != 0.0:  # turning on the spot moves nothing: skip the trigonometry
            chord = v * dt
            if abs(half) > 1e-9:
                chord *= math.sin(half) / half
            mid = th + half
            x[i] += chord * math.cos(mid)
            y[i] += chord * math.sin(mid)
            moved = True
        elif turning_moves and half != 0.0:  # a box's corners sweep as it turns
            moved = True
        th += 2.0 * half
        # wrap to (−π, π] without trigonometry (|w dt| is below 2π at usual tick rates)
        if th > math.pi:
            th -= 2.0 * math.pi
        elif th <= -math.pi:
            th += 2.0 * math.pi
        if th > math.pi or th <= -math.pi:  # more than a turn in one step (a very long tick)
            th -= 2.0 * math.pi * math.floor((th + math.pi) / (2.0 * math.pi))
            if th <= -math.pi:
                th += 2.0 * math.pi
            elif th > math.pi:
                th -= 2.0 * math.pi
        yaw[i] = th
    return moved


@njit(cache=True, error_model="numpy")
def substeps_range(start, stop, wheel_speed, axle_m, dt, half_x, half_y, turning_moves):
    """Sub-steps (``physics.substeps``) bodies ``start … stop − 1`` need over ``dt`` seconds at
    their wheel speeds: a centre covers its arc, ``|v| dt``; with ``turning_moves`` (a box of
    half extents ``half_x``, ``half_y``) a corner also sweeps ``|w| dt`` times its distance
    from the centre."""
    return _substeps_rows(start, start, stop, wheel_speed, axle_m, dt, half_x, half_y,
                          turning_moves)


@njit(cache=True, error_model="numpy", inline="always")
def _substeps_rows(base, start, stop, wheel_speed, axle_m, dt, half_x, half_y, turning_moves):
    k = 1
    for i in range(start, stop):
        v_left = wheel_speed[i - base, 0]
        v_right = wheel_speed[i - base, 1]
        travel = abs(0.5 * (v_left + v_right)) * dt
        if turning_moves:
            travel += abs((v_right - v_left) / axle_m) * dt * math.hypot(half_x[i], half_y[i])
        k = max(k, substeps_for(travel, half_x[i], half_y[i]))
    return k


@njit(cache=True, error_model="numpy")
def substeps_by_run_range(start, stop, wheel_speed, axle_m, dt, half_x, half_y, turning_moves,
                          run, k_run):
    """``substeps_range`` run by run: raises ``k_run[run[i]]`` to what body i needs."""
    for i in range(start, stop):
        k = _substeps_rows(start, i, i + 1, wheel_speed, axle_m, dt, half_x, half_y,
                           turning_moves)
        if k > k_run[run[i]]:
            k_run[run[i]] = k


@njit(cache=True, error_model="numpy")
def try_integrate_range(start, stop, pose, wheel_speed, axle_m, dt, turning_moves, half_x,
                        half_y):
    """``integrate_range`` on the rows x, y, yaw of ``pose`` (float64[6, N]) when no body needs
    more than one step over ``dt``: returns 1 if a body moved, else 0. When some body does
    (``substeps_range`` gives k > 1), moves nothing and returns −k."""
    k = substeps_range(start, stop, wheel_speed, axle_m, dt, half_x, half_y, turning_moves)
    if k > 1:
        return -k
    if integrate_range(start, stop, pose[0], pose[1], pose[5], wheel_speed, axle_m, dt,
                       turning_moves):
        return 1
    return 0


@njit(cache=True, error_model="numpy", parallel=True)
def try_integrate_parallel(start, stop, pose, wheel_speed, axle_m, dt, turning_moves, half_x,
                           half_y, chunk):
    """``try_integrate_range`` over chunks of ``chunk`` bodies on the thread pool: each body
    writes only its own pose, and the chunks' sub-step counts and moved flags are combined
    after their loops (integers and booleans: the same whatever the order)."""
    n_chunks = (stop - start + chunk - 1) // chunk
    ks = np.ones(n_chunks, dtype=np.int64)
    for c in prange(n_chunks):
        lo = start + c * chunk
        ks[c] = _substeps_rows(start, lo, min(stop, lo + chunk), wheel_speed, axle_m, dt,
                               half_x, half_y, turning_moves)
    k = 1
    for c in range(n_chunks):
        k = max(k, ks[c])
    if k > 1:
        return -k
    moved = np.zeros(n_chunks, dtype=np.bool_)
    for c in prange(n_chunks):
        lo = start + c * chunk
        moved[c] = _integrate_rows(start, lo, min(stop, lo + chunk), pose[0], pose[1], pose[5],
                                   wheel_speed, axle_m, dt, turning_moves)
    for c in range(n_chunks):
        if moved[c]:
            return 1
    return 0


@njit(cache=True, error_model="numpy", parallel=True)
def integrate_parallel(start, stop, x, y, yaw, wheel_speed, axle_m, dt, turning_moves, chunk):
    """``integrate_range`` over chunks of ``chunk`` bodies on the thread pool."""
    n_chunks = (stop - start + chunk - 1) // chunk
    moved = np.zeros(n_chunks, dtype=np.bool_)
    for c in prange(n_chunks):
        lo = start + c * chunk
        moved[c] = _integrate_rows(start, lo, min(stop, lo + chunk), x, y, yaw, wheel_speed,
                                   axle_m, dt, turning_moves)
    for c in range(n_chunks):
        if moved[c]:
            return True
    return False


@dataclass(frozen=True)
class DiffDrive:
    """Two wheels ``axle_m`` apart driven at the speeds the wheel actuator applied.

    Drive state: ``wheel_speed`` float64[n, 2] (left, right) m/s, written by the actuator each
    tick and read by encoders; ``wheels_clamped`` int64[n], the ticks in which a commanded
    speed was above the motors' maximum (the run summary totals it: a controller written in
    cm/s shows up there). ``turning_moves``: a turn on the spot sweeps a box body's corners
    (so contacts must be checked) but not a disc's. Sub-steps of a tick reuse the tick's wheel
    speeds: the arcs of ``k`` sub-steps of ``dt / k`` join into the arc of ``dt``.
    """

    axle_m: float
    turning_moves: bool = False
    counters = ("wheels_clamped",)   # totalled per group and run in the summary

    def make_state(self, n: int) -> dict[str, np.ndarray]:
        return {"wheel_speed": np.zeros((n, 2)), "wheels_clamped": np.zeros(n, dtype=np.int64)}

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool:
        n = stop - start
        kernel = (integrate_range if n < threads.floor  # a small group: one comparison
                  else threads.pick(n, integrate_range, integrate_parallel, PARALLEL_MIN, CHUNK))
        return kernel(start, stop, bodies.x, bodies.y, bodies.yaw, state["wheel_speed"],
                      self.axle_m, dt, self.turning_moves)

    def try_integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> int:
        """``integrate`` (returning 1 if a body moved, else 0) unless a body of the range would
        travel further than its safe step (``physics.substeps``) at this tick's wheel speeds:
        then nothing moves and the result is −k, the number of equal sub-steps the tick needs."""
        n = stop - start
        kernel = (try_integrate_range if n < threads.floor
                  else threads.pick(n, try_integrate_range, try_integrate_parallel, PARALLEL_MIN,
                                    CHUNK))
        return kernel(start, stop, bodies.pose, state["wheel_speed"], self.axle_m, dt,
                      self.turning_moves, bodies.half_x, bodies.half_y)

    def needed_substeps(self, bodies, start: int, stop: int, state: dict, dt: float) -> int:
        """Sub-steps (``physics.substeps``) bodies ``start … stop − 1`` need over ``dt`` at
        their wheel speeds; moves nothing."""
        return substeps_range(start, stop, state["wheel_speed"], self.axle_m, dt, bodies.half_x,
                              bodies.half_y, self.turning_moves)

    def bind_need(self, bodies, start: int, stop: int, state: dict, dt: float):
        """:meth:`needed_substeps` of bodies ``start … stop − 1`` over ``dt`` as a call without
        arguments, bound to the compiled kernel."""
        from functools import partial

        args = (start, stop, state["wheel_speed"], self.axle_m, dt, bodies.half_x,
                bodies.half_y, self.turning_moves)
        return partial(substeps_range, *args)

    def substeps_by_run(self, bodies, start: int, stop: int, state: dict, dt: float,
                        k_run: np.ndarray) -> None:
        """Raises ``k_run[r]`` (int64[runs]) to the sub-steps the bodies of run ``r`` among
        ``start … stop − 1`` need over ``dt``; moves nothing."""
        substeps_by_run_range(start, stop, state["wheel_speed"], self.axle_m, dt, bodies.half_x,
                              bodies.half_y, self.turning_moves, bodies.run, k_run)

    def bind_try(self, bodies, start: int, stop: int, state: dict, dt: float):
        """:meth:`try_integrate` of bodies ``start … stop − 1`` over ``dt`` as a call without
        arguments, bound to the compiled serial kernel; None when the range may go parallel."""
        from functools import partial

        if not threads.stays_serial(stop - start, PARALLEL_MIN):
            return None
        args = (start, stop, bodies.pose, state["wheel_speed"], self.axle_m, dt,
                self.turning_moves, bodies.half_x, bodies.half_y)
        return partial(try_integrate_range, *args)
