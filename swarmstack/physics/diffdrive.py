"""Differential-drive kinematics: wheel speeds → body motion, integrated exactly over a tick."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numba import njit

from swarmstack.physics.substeps import substeps_for


@njit(cache=True, error_model="numpy")
def integrate_range(start, stop, x, y, yaw, wheel_speed, axle_m, dt, turning_moves):
    """Move bodies ``start … stop − 1`` along the arcs their wheel speeds describe during
    ``dt`` seconds; ``wheel_speed`` float64[stop − start, 2] (left, right) m/s, one axle.

    Writes ``x``, ``y``, ``yaw`` in place; yaw is wrapped to (−π, π]. Arcs are integrated in
    closed form, so the result does not depend on the tick length beyond the commands being
    constant. Returns True when a body translated (or turned, if ``turning_moves``).
    """
    moved = False
    for i in range(start, stop):
        v_left = wheel_speed[i - start, 0]
        v_right = wheel_speed[i - start, 1]
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
    k = 1
    for i in range(start, stop):
        v_left = wheel_speed[i - start, 0]
        v_right = wheel_speed[i - start, 1]
        travel = abs(0.5 * (v_left + v_right)) * dt
        if turning_moves:
            travel += abs((v_right - v_left) / axle_m) * dt * math.hypot(half_x[i], half_y[i])
        k = max(k, substeps_for(travel, half_x[i], half_y[i]))
    return k


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
        return integrate_range(start, stop, bodies.x, bodies.y, bodies.yaw, state["wheel_speed"],
                               self.axle_m, dt, self.turning_moves)

    def try_integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> int:
        """``integrate`` (returning 1 if a body moved, else 0) unless a body of the range would
        travel further than its safe step (``physics.substeps``) at this tick's wheel speeds:
        then nothing moves and the result is −k, the number of equal sub-steps the tick needs."""
        return try_integrate_range(start, stop, bodies.pose, state["wheel_speed"], self.axle_m,
                                   dt, self.turning_moves, bodies.half_x, bodies.half_y)
