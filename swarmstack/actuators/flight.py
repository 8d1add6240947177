"""The flight actuator of quadrotors: set-point commands → the flight model's drive state.

Commands of a group (``physics.quadrotor`` flies what this writes into the drive state):

* ``mode`` int8[n, 1] (one per drone; a row, so that a per-robot view can write it) —
  ``HOLD`` (0, the safe value: keep the set-point last applied),
  ``POSITION`` (1: fly to ``target``), ``VELOCITY`` (2: follow ``velocity``), ``LAND`` (3),
  ``TAKEOFF`` (4: motors on, from the floor too, and fly to ``target``: with NaN x, y and yaw,
  as ``takeoff()`` writes, the drone rises to ``target[2]`` where it is; with x, y given it
  takes off and flies to that point), ``MOVE_BY`` (5: ``target[:3]``
  is a displacement from where the drone is, applied once: the command then reads
  ``POSITION`` with the absolute target it gave).
* ``target`` float64[n, 4] — x, y, z (m, world frame), yaw (rad); NaN keeps that component
  of the current set-point (the current pose when the drone was not holding a position).
* ``velocity`` float64[n, 4] — vx, vy, vz (m/s, world frame), yaw rate (rad/s).

As the firmware does, a set-point outside the flight envelope is clamped: a height below the
floor or above the ceiling (the body's top stays below ``ceiling``), a speed above the
maximum (norm of vx, vy, vz), a yaw rate above the maximum; each clamped set-point adds one
to the drive state's ``clamped`` count. Position and velocity commands to a drone on the floor
or landing (not taken off) are ignored and counted in ``rejected``; the host functions raise
instead, and a batched controller that takes off and flies to a point in one tick writes
``TAKEOFF`` with that point as ``target``.
A drone whose battery (drive state ``battery``, written by its battery device) reaches 0
lands (``on_empty = "land"``) or cuts its motors and falls (``"fall"``) and obeys no command
afterwards (``dead``).
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.sim import threads
from numba import njit
from swarmstack.physics.quadrotor import LAND, OFF, POSITION, VELOCITY

HOLD, CMD_POSITION, CMD_VELOCITY, CMD_LAND, TAKEOFF, MOVE_BY = 0, 1, 2, 3, 4, 5


# drones per work item of the parallel form, and the group size from which it pays
CHUNK = 4096
PARALLEL_MIN = 32768


@njit(cache=True, error_model="numpy")
def flight_rows(lo, hi, start, cmd_mode, cmd_target, cmd_velocity, pose, mode, target,
                velocity_cmd, integral, clamped, rejected, battery, dead, floor_z, top_z,
                max_speed, max_yaw_rate, fall_when_empty):
    """Apply the commands of group rows ``lo … hi − 1`` (robots ``start + lo …``) to their
    drive state (see the module): each drone writes only its own rows."""
    for j in range(lo, hi):
        i = start + j
        x, y, z, yaw = pose[0, i], pose[1, i], pose[2, i], pose[5, i]
        if dead[j]:
            continue
        if battery[j] <= 0.0:
            dead[j] = 1
            if fall_when_empty or mode[j] == OFF:
                mode[j] = OFF
            else:
                mode[j] = LAND
                target[j, 0], target[j, 1], target[j, 3] = x, y, yaw
            continue
        c = cmd_mode[j]
        if c == HOLD:
            continue
        if c == CMD_LAND:
            if mode[j] != OFF and mode[j] != LAND:
                mode[j] = LAND
                target[j, 0], target[j, 1], target[j, 3] = x, y, yaw
            continue
        if c == TAKEOFF:
            # motors on (from the floor too), then a position set-point: a NaN component keeps
            # the current set-point's, or the pose's when not holding a position
            holding = mode[j] == POSITION
            if holding:
                bx, by, bz, byaw = target[j, 0], target[j, 1], target[j, 2], target[j, 3]
            else:
                bx, by, bz, byaw = x, y, z, yaw
            tx, ty, h, tyaw = cmd_target[j, 0], cmd_target[j, 1], cmd_target[j, 2], \
                cmd_target[j, 3]
            tx = bx if tx != tx else tx
            ty = by if ty != ty else ty
            tyaw = byaw if tyaw != tyaw else tyaw
            hc = bz
            if h == h:  # not NaN
                hc = min(max(h, floor_z), top_z)
                if hc != h and hc != target[j, 2]:
                    clamped[j] += 1
            if (not holding or tx != target[j, 0] or ty != target[j, 1]
                    or hc != target[j, 2]):
                integral[j, 0] = integral[j, 1] = integral[j, 2] = 0.0
            target[j, 0], target[j, 1], target[j, 2], target[j, 3] = tx, ty, hc, tyaw
            mode[j] = POSITION
            continue
        if mode[j] == OFF or mode[j] == LAND:  # on the floor (or landing): not flying
            if c == CMD_POSITION or c == CMD_VELOCITY or c == MOVE_BY:
                rejected[j] += 1
            continue
        if c == CMD_VELOCITY:
            vx, vy, vz, w = (cmd_velocity[j, 0], cmd_velocity[j, 1], cmd_velocity[j, 2],
                             cmd_velocity[j, 3])
            vx = 0.0 if vx != vx else vx
            vy = 0.0 if vy != vy else vy
            vz = 0.0 if vz != vz else vz
            w = 0.0 if w != w else w
            s = math.sqrt(vx * vx + vy * vy + vz * vz)
            was_clamped = False
            if s > max_speed:
                f = max_speed / s
                vx *= f
                vy *= f
                vz *= f
                was_clamped = True
            if w > max_yaw_rate:
                w = max_yaw_rate
                was_clamped = True
            elif w < -max_yaw_rate:
                w = -max_yaw_rate
                was_clamped = True
            if was_clamped and (mode[j] != VELOCITY or velocity_cmd[j, 0] != vx
                                or velocity_cmd[j, 1] != vy or velocity_cmd[j, 2] != vz
                                or velocity_cmd[j, 3] != w):
                clamped[j] += 1
            velocity_cmd[j, 0], velocity_cmd[j, 1], velocity_cmd[j, 2] = vx, vy, vz
            velocity_cmd[j, 3] = w
            mode[j] = VELOCITY
            continue
        # a position set-point: the current one, or the pose when not holding a position
        if mode[j] == POSITION:
            bx, by, bz, byaw = target[j, 0], target[j, 1], target[j, 2], target[j, 3]
        else:
            bx, by, bz, byaw = x, y, z, yaw
        tx, ty, tz, tyaw = cmd_target[j, 0], cmd_target[j, 1], cmd_target[j, 2], cmd_target[j, 3]
        if c == MOVE_BY:
            tx = x + tx if tx == tx else bx
            ty = y + ty if ty == ty else by
            tz = z + tz if tz == tz else bz
            tyaw = byaw if tyaw != tyaw else tyaw
        else:
            tx = bx if tx != tx else tx
            ty = by if ty != ty else ty
            tz = bz if tz != tz else tz
            tyaw = byaw if tyaw != tyaw else tyaw
        tzc = min(max(tz, floor_z), top_z)
        new = (mode[j] != POSITION or tx != target[j, 0] or ty != target[j, 1]
               or tzc != target[j, 2])
        if tzc != tz and new:
            clamped[j] += 1
        if new:
            integral[j, 0] = integral[j, 1] = integral[j, 2] = 0.0
        target[j, 0], target[j, 1], target[j, 2], target[j, 3] = tx, ty, tzc, tyaw
        mode[j] = POSITION
        if c == MOVE_BY:  # applied once: from now on an absolute position command
            cmd_mode[j] = CMD_POSITION
            cmd_target[j, 0], cmd_target[j, 1], cmd_target[j, 2] = tx, ty, tzc
            cmd_target[j, 3] = tyaw


parallel_flight = threads.chunked(flight_rows)


class Flight:
    """The ``flight`` actuator of one group: position gains (Kp, Ki, Kd), ceiling (m), the
    body's height (the top stays below the ceiling), limits of velocity commands, and what an
    empty battery does."""

    def __init__(self, kp: float, ki: float, kd: float, ceiling: float, height_m: float,
                 max_speed: float, max_yaw_rate: float, on_empty: str):
        self.gains = np.array([kp, ki, kd, ceiling], dtype=np.float64)
        self.top_z = ceiling - height_m
        self.max_speed = max_speed
        self.max_yaw_rate = max_yaw_rate
        self.fall = on_empty == "fall"

    def plan(self, world, group, keys, commands, drive):
        """The tick's call for this group (``threads.form``), bound to its arrays (``keys``
        unused)."""
        mode = commands["mode"]
        kernel = threads.form(
            flight_rows, parallel_flight, 0, len(mode), group.start, mode[:, 0],
            commands["target"], commands["velocity"], world.bodies.pose, drive["mode"],
            drive["target"], drive["velocity_cmd"], drive["integral"], drive["clamped"],
            drive["rejected"], drive["battery"], drive["dead"], 0.0, self.top_z, self.max_speed,
            self.max_yaw_rate, self.fall, min_items=PARALLEL_MIN, chunk_items=CHUNK)

        def apply() -> None:
            drive["gains"][:] = self.gains
            kernel()
        return apply
