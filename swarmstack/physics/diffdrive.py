"""Differential-drive kinematics: wheel speeds → body motion, integrated exactly over a tick."""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from swarmstack.sim import threads
from numba import njit
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
    return integrate_rows(start, stop, start, x, y, yaw, wheel_speed, axle_m, dt, turning_moves)


@njit(cache=True, error_model="numpy", inline="always")
def integrate_rows(lo, hi, base, x, y, yaw, wheel_speed, axle_m, dt, turning_moves):
    """``integrate_range`` of bodies ``lo … hi − 1`` of a group whose first body is ``base``
    (row ``i − base`` of ``wheel_speed``)."""
    moved = False
    for i in range(lo, hi):
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


parallel_integrate = threads.chunked(integrate_rows, flag=True)


@njit(cache=True, error_model="numpy")
def substeps_by_run_range(start, stop, wheel_speed, axle_m, dt, half_x, half_y, turning_moves,
                          run, k_run):
    """Raises ``k_run[run[i]]`` to the sub-steps (``physics.substeps``) body i of ``start …
    stop − 1`` needs over ``dt`` seconds at its wheel speeds: a centre covers its arc,
    ``|v| dt``; with ``turning_moves`` (a box of half extents ``half_x``, ``half_y``) a corner
    also sweeps ``|w| dt`` times its distance from the centre. Returns the largest (≥ 1)."""
    most = 1
    for i in range(start, stop):
        v_left = wheel_speed[i - start, 0]
        v_right = wheel_speed[i - start, 1]
        travel = abs(0.5 * (v_left + v_right)) * dt
        if turning_moves:
            travel += abs((v_right - v_left) / axle_m) * dt * math.hypot(half_x[i], half_y[i])
        k = substeps_for(travel, half_x[i], half_y[i])
        if k > k_run[run[i]]:
            k_run[run[i]] = k
        most = max(most, k)
    return most


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
        return self._integrator(bodies, start, stop, state, dt)()

    def plan(self, bodies, start: int, stop: int, state: dict, dt: float, k_run: np.ndarray):
        """The tick's calls for bodies ``start … stop − 1`` over ``dt``, kernels' forms chosen
        here: ``count()`` raises ``k_run[r]`` (int64[runs]) to the sub-steps the bodies of run
        ``r`` need at their wheel speeds and returns the largest, moving nothing;
        ``integrate()`` moves them and returns whether one moved."""
        count = partial(substeps_by_run_range, start, stop, state["wheel_speed"], self.axle_m,
                        dt, bodies.half_x, bodies.half_y, self.turning_moves, bodies.run, k_run)
        return count, self._integrator(bodies, start, stop, state, dt)

    def _integrator(self, bodies, start: int, stop: int, state: dict, dt: float):
        return threads.form(integrate_rows, parallel_integrate, start, stop, start, bodies.x,
                            bodies.y, bodies.yaw, state["wheel_speed"], self.axle_m, dt,
                            self.turning_moves, min_items=PARALLEL_MIN, chunk_items=CHUNK)
