"""Quadrotor flight as a point mass with the Crazyflie's set-point controllers.

The model follows the structure of ARGoS's point-mass quadrotor (position p, velocity v, yaw ψ,
yaw rate ω; either a position/yaw set-point or a velocity/yaw-rate set-point), with a
controller of our own tuned to the published behaviour of the Crazyflie plug-in (Stolfi &
Danoy, arXiv 2401.16948, Table 1 and Table 2) rather than the plug-in's gains:

* velocity loop: first-order tracking ``dv/dt = (v_cmd − v)/τ_v`` per axis and
  ``dω/dt = (ω_cmd − ω)/τ_ω`` — integrated exactly for a set-point held over a step. The lag
  delays a move but not its extent: a rate ω_cmd held for T turns ω_cmd·T in all (with
  τ_ω = 0.32 s a 180° turn at 90 or 180 °/s peaks at Table 1's 89.6 and 170.6 °/s and ends at
  180°);
* position loop (mode ``POSITION``): ``v_cmd = Kp·(target − p)`` — with the velocity loop's
  lag a PD on position (the paper's default) — or, the ``pid`` controller,
  ``v_cmd = Kp·e + Ki·∫e − Kd·v`` (the error integrated only within ``PID_INTEGRAL_BAND_M``
  of the set-point, its term bounded; the integral restarts with each new set-point); the
  norm is clamped to 10 m/s. Yaw: ``ω_cmd = Kψ·wrap(ψ_target − ψ) − Kdψ·ω``, clamped to
  ±90 °/s;
* ``LAND``: the position loop in x, y and a bounded descent until the floor, then ``OFF``;
* ``OFF``: motors off — a body above the floor falls under gravity and stops on it.

Everything runs in one Numba kernel over a group's slice (no per-robot Python), in internal
steps of at most ``MAX_STEP_S`` (the plug-in's 10 physics iterations per 0.1 s tick). The
model is gravity-compensated while flying (as the plug-in's). z is the height of the body's
base, kept in ``[0, ceiling − height]``; contacts (walls, boxes, other bodies by real heights)
are resolved by the tick after each (sub-)step.

Drive state (``Quadrotor.make_state``): ``velocity`` float64[n, 4] (vx, vy, vz world frame m/s,
yaw rate rad/s) · ``mode`` int8[n] (``OFF``, ``POSITION``, ``VELOCITY``, ``LAND``) ·
``target`` float64[n, 4] (x, y, z m, yaw rad) · ``velocity_cmd`` float64[n, 4] ·
``integral`` float64[n, 3] (the pid term's ∫e, m·s) · ``gains`` float64[n, 4] (position
Kp, Ki, Kd, ceiling m) · ``clamped`` int64[n] (set-points clamped to the flight envelope so
far) · ``rejected`` int64[n] (position commands given on the ground,
ignored) · ``battery`` float64[n] (last charge read, 1 without a battery) · ``dead`` int8[n]
(1 once the battery was found empty: the drone lands or falls and no longer obeys commands).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial

import numpy as np

from swarmstack.sim import threads
from numba import njit
from swarmstack.physics.substeps import substeps_for

OFF, POSITION, VELOCITY, LAND = 0, 1, 2, 3

GRAVITY_M_S2 = 9.81
MAX_STEP_S = 0.01            # internal integration step (plug-in: 10 iterations per 0.1 s tick)

# --- the controller: DERIVED defaults (robot-models.md §2.3), tuned to Tables 1–2 -------------
TAU_V_S = 0.2                # velocity loop time constant, per axis
TAU_YAW_S = 0.32             # yaw-rate loop time constant: Table 1's 89.6 / 170.6 °/s peaks of
                             # turns held for 180° / rate (the loop's lag delays a turn, the
                             # angle turned is the commanded one)
POSITION_KP = 1.5            # 1/s: v_cmd = Kp·e
POSITION_KI = 0.0            # 1/s²: no integral term (the paper's PD)
POSITION_KD = 0.0            # no extra damping: the velocity loop's lag is the derivative part
YAW_KP = 3.0                 # 1/s: ω_cmd = Kψ·e_ψ − Kdψ·ω in position mode
YAW_KD = 0.76                # damping on the measured yaw rate: ζ ≈ 0.9 with τ_ω
MAX_SPEED_M_S = 10.0         # position mode: Table 2 / Fig. 8(b)
MAX_YAW_RATE_RAD_S = math.radians(90.0)   # position mode: Fig. 8(d)
# pid (beyond the paper): a stiffer loop with explicit damping on the measured velocity and an
# integral term, integrated only near the set-point and bounded (no wind-up during a move)
PID_KP = 4.0
PID_KI = 1.0
PID_KD = 0.8
PID_INTEGRAL_LIMIT_M_S = 0.5  # largest contribution of the integral term
PID_INTEGRAL_BAND_M = 0.05    # the error is integrated only within this distance of the target
DEFAULT_CEILING_M = 2.5       # highest point of the body by default (an option of the actuator)
LAND_SPEED_M_S = 0.3          # fastest descent when landing
LAND_MIN_SPEED_M_S = 0.05     # slowest descent (so that landing ends)

# drones per work item of the parallel forms, and the group size from which they pay (a drone
# costs ~0.1 µs per tick: only very large fleets gain from a second thread)
CHUNK = 256
PARALLEL_MIN = 2048


@njit(cache=True, error_model="numpy", inline="always")
def _wrap(a):
    if a > math.pi or a <= -math.pi:
        a -= 2.0 * math.pi * math.floor((a + math.pi) / (2.0 * math.pi))
        if a <= -math.pi:
            a += 2.0 * math.pi
    return a


@njit(cache=True, error_model="numpy")
def fly_rows(start, stop, base, pose, velocity, mode, target, velocity_cmd, integral, gains, dt,
             int_limit, int_band, yaw_kp, yaw_kd, tau_v, tau_yaw, max_speed, max_yaw_rate,
             height, land_speed, land_min_speed, gravity, max_step):
    """Integrate drones ``start … stop − 1`` of a group whose first body is ``base`` over
    ``dt`` s (internal steps ≤ ``max_step``).

    ``pose`` float64[6, N] (rows x, y, z, roll, pitch, yaw); the drive arrays are the group's
    (row ``i − base``); ``gains`` float64[n, 4] per drone: position Kp, Ki, Kd and the
    ceiling (m). Returns True when a body moved."""
    n_int = max(1, int(math.ceil(dt / max_step - 1e-9)))
    h = dt / n_int
    a_v = 1.0 - math.exp(-h / tau_v)
    a_w = 1.0 - math.exp(-h / tau_yaw)
    moved = False
    for i in range(start, stop):
        j = i - base
        m = mode[j]
        x, y, z, yaw = pose[0, i], pose[1, i], pose[2, i], pose[5, i]
        vx, vy, vz, w = velocity[j, 0], velocity[j, 1], velocity[j, 2], velocity[j, 3]
        if m == OFF and z <= 0.0 and vx == 0.0 and vy == 0.0 and vz == 0.0 and w == 0.0:
            continue  # resting on the floor
        kp, ki, kd = gains[j, 0], gains[j, 1], gains[j, 2]
        top = gains[j, 3] - height
        for _ in range(n_int):
            if m == OFF:
                vz -= gravity * h
                w = 0.0
            else:
                if m == VELOCITY:
                    cx, cy, cz = velocity_cmd[j, 0], velocity_cmd[j, 1], velocity_cmd[j, 2]
                    cw = velocity_cmd[j, 3]
                else:
                    ex = target[j, 0] - x
                    ey = target[j, 1] - y
                    ez = target[j, 2] - z
                    # derivative of the error on the measurement (target held): −kd·v
                    cx, cy, cz = kp * ex - kd * vx, kp * ey - kd * vy, kp * ez - kd * vz
                    if ki != 0.0:
                        # conditional integration: only near the set-point (no wind-up
                        # during a move), bounded contribution
                        if abs(ex) < int_band:
                            integral[j, 0] += ex * h
                        if abs(ey) < int_band:
                            integral[j, 1] += ey * h
                        if abs(ez) < int_band:
                            integral[j, 2] += ez * h
                        lim = int_limit / ki
                        for a in range(3):
                            if integral[j, a] > lim:
                                integral[j, a] = lim
                            elif integral[j, a] < -lim:
                                integral[j, a] = -lim
                        cx += ki * integral[j, 0]
                        cy += ki * integral[j, 1]
                        cz += ki * integral[j, 2]
                    if m == LAND:
                        cz = -kp * z
                        if cz < -land_speed:
                            cz = -land_speed
                        elif cz > -land_min_speed:
                            cz = -land_min_speed
                    s = math.sqrt(cx * cx + cy * cy + cz * cz)
                    if s > max_speed:
                        f = max_speed / s
                        cx *= f
                        cy *= f
                        cz *= f
                    cw = yaw_kp * _wrap(target[j, 3] - yaw) - yaw_kd * w
                    if cw > max_yaw_rate:
                        cw = max_yaw_rate
                    elif cw < -max_yaw_rate:
                        cw = -max_yaw_rate
                vx += (cx - vx) * a_v
                vy += (cy - vy) * a_v
                vz += (cz - vz) * a_v
                w += (cw - w) * a_w
            x += vx * h
            y += vy * h
            z += vz * h
            yaw = _wrap(yaw + w * h)
            if z <= 0.0:
                z = 0.0
                if vz < 0.0:
                    vz = 0.0
                if m == OFF or m == LAND:  # touched down: motors off, at rest
                    m = OFF
                    vx = vy = vz = w = 0.0
            elif z > top:
                z = top
                if vz > 0.0:
                    vz = 0.0
        if x != pose[0, i] or y != pose[1, i] or z != pose[2, i]:
            moved = True
        pose[0, i], pose[1, i], pose[2, i], pose[5, i] = x, y, z, yaw
        velocity[j, 0], velocity[j, 1], velocity[j, 2], velocity[j, 3] = vx, vy, vz, w
        mode[j] = m
    return moved


parallel_fly = threads.chunked(fly_rows, flag=True)


@njit(cache=True, error_model="numpy")
def substeps_by_run_range(start, stop, pose, velocity, mode, target, velocity_cmd, gains, dt,
                          int_limit, max_speed, half_x, half_y, gravity, run, k_run):
    """Raises ``k_run[run[i]]`` to the sub-steps (``physics.substeps``) drone i of ``start …
    stop − 1`` needs: a bound on its travel over ``dt`` — its speed can only move towards the
    set-point speed (velocity, bounded position command) or grow under gravity when falling.
    Returns the largest (≥ 1)."""
    most = 1
    for i in range(start, stop):
        j = i - start
        m = mode[j]
        kp, ki = gains[j, 0], gains[j, 1]
        s = math.sqrt(velocity[j, 0] ** 2 + velocity[j, 1] ** 2 + velocity[j, 2] ** 2)
        if m == VELOCITY:
            c = math.sqrt(velocity_cmd[j, 0] ** 2 + velocity_cmd[j, 1] ** 2
                          + velocity_cmd[j, 2] ** 2)
        elif m == OFF:
            c = s + gravity * dt
        else:
            ex = target[j, 0] - pose[0, i]
            ey = target[j, 1] - pose[1, i]
            ez = target[j, 2] - pose[2, i]
            c = kp * (math.sqrt(ex * ex + ey * ey + ez * ez) + s * dt) + int_limit * (ki != 0.0)
            if m == LAND:
                c += LAND_SPEED_M_S
            if c > max_speed:
                c = max_speed
        k = substeps_for(max(s, c) * dt, half_x[i], half_y[i])
        if k > k_run[run[i]]:
            k_run[run[i]] = k
        most = max(most, k)
    return most


@dataclass(frozen=True)
class Quadrotor:
    """The Crazyflie's point-mass flight (see the module) for bodies ``height_m`` high. The
    position gains and the ceiling are per drone, in the drive state ``gains`` (Kp, Ki, Kd,
    ceiling m), written by the flight actuator from the group's options."""

    height_m: float
    yaw_kp: float = YAW_KP
    yaw_kd: float = YAW_KD
    tau_v: float = TAU_V_S
    tau_yaw: float = TAU_YAW_S
    max_speed: float = MAX_SPEED_M_S
    max_yaw_rate: float = MAX_YAW_RATE_RAD_S
    int_limit: float = PID_INTEGRAL_LIMIT_M_S
    int_band: float = PID_INTEGRAL_BAND_M
    # drive-state counters the run summary totals per group and run
    counters = ("clamped", "rejected")
    flies = True   # bodies may start above the floor (see ``start_flying``)

    def make_state(self, n: int) -> dict[str, np.ndarray]:
        gains = np.empty((n, 4))
        gains[:] = (POSITION_KP, POSITION_KI, POSITION_KD, DEFAULT_CEILING_M)
        return {"velocity": np.zeros((n, 4)), "mode": np.zeros(n, dtype=np.int8),
                "target": np.zeros((n, 4)), "velocity_cmd": np.zeros((n, 4)),
                "integral": np.zeros((n, 3)), "gains": gains,
                "clamped": np.zeros(n, dtype=np.int64), "rejected": np.zeros(n, dtype=np.int64),
                "battery": np.ones(n), "dead": np.zeros(n, dtype=np.int8)}

    def start_flying(self, state: dict, rows, pose) -> None:
        """Drone rows ``rows`` start in the air: motors on, holding ``pose`` (float64[k, 4]:
        x, y, z m, yaw rad) in position mode, as after a take-off to that height."""
        state["mode"][rows] = POSITION
        state["target"][rows] = pose

    def integrate(self, bodies, start: int, stop: int, state: dict, dt: float) -> bool:
        return self._integrator(bodies, start, stop, state, dt)()

    def plan(self, bodies, start: int, stop: int, state: dict, dt: float, k_run: np.ndarray):
        """The tick's calls for drones ``start … stop − 1`` over ``dt``, kernels' forms chosen
        here: ``count()`` raises ``k_run[r]`` (int64[runs]) to the sub-steps the drones of run
        ``r`` may need at this tick's drive state and returns the largest, moving nothing;
        ``integrate()`` flies them and returns whether one moved."""
        count = partial(substeps_by_run_range, start, stop, bodies.pose, state["velocity"],
                        state["mode"], state["target"], state["velocity_cmd"], state["gains"],
                        dt, self.int_limit, self.max_speed, bodies.half_x, bodies.half_y,
                        GRAVITY_M_S2, bodies.run, k_run)
        return count, self._integrator(bodies, start, stop, state, dt)

    def _integrator(self, bodies, start: int, stop: int, state: dict, dt: float):
        return threads.form(
            fly_rows, parallel_fly, start, stop, start, bodies.pose, state["velocity"],
            state["mode"], state["target"], state["velocity_cmd"], state["integral"],
            state["gains"], dt, self.int_limit, self.int_band, self.yaw_kp, self.yaw_kd,
            self.tau_v, self.tau_yaw, self.max_speed, self.max_yaw_rate, self.height_m,
            LAND_SPEED_M_S, LAND_MIN_SPEED_M_S, GRAVITY_M_S2, MAX_STEP_S,
            min_items=PARALLEL_MIN, chunk_items=CHUNK)
