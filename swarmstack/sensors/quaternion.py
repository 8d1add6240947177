"""Orientation quaternions and the RVR's quaternion sensor (Mercator report §4.2.8, Eq. 13).

Quaternions are float64[..., 4] ``(w, x, y, z)``; Euler angles follow the aerospace ZYX
convention of the pose rows (yaw about z, then pitch about y, then roll about x). The helpers
are vectorised over robots and shared by the velocity, accelerometer and gyroscope sensors.

The sensor reads ``Q_rel = Q_i⁻¹ · Q_c``: the current orientation relative to the one the robot
had when it booted (its first reading of the run).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from swarmstack.sensors.device import BodyReading


def from_euler(roll, pitch, yaw) -> np.ndarray:
    """Unit quaternions of ZYX Euler angles (rad), broadcast together."""
    cr, sr = np.cos(np.multiply(roll, 0.5)), np.sin(np.multiply(roll, 0.5))
    cp, sp = np.cos(np.multiply(pitch, 0.5)), np.sin(np.multiply(pitch, 0.5))
    cy, sy = np.cos(np.multiply(yaw, 0.5)), np.sin(np.multiply(yaw, 0.5))
    return np.stack([cr * cp * cy + sr * sp * sy,
                     sr * cp * cy - cr * sp * sy,
                     cr * sp * cy + sr * cp * sy,
                     cr * cp * sy - sr * sp * cy], axis=-1)


def multiply(a, b) -> np.ndarray:
    """Hamilton product ``a · b``."""
    aw, ax, ay, az = np.moveaxis(np.asarray(a), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.asarray(b), -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def inverse(q) -> np.ndarray:
    """Inverse of unit quaternions (their conjugate)."""
    return np.asarray(q) * np.array([1.0, -1.0, -1.0, -1.0])


def to_euler(q) -> np.ndarray:
    """float64[..., 3] roll, pitch, yaw (rad) of unit quaternions."""
    w, x, y, z = np.moveaxis(np.asarray(q), -1, 0)
    roll = np.arctan2(2.0 * (w * x + y * z), 1.0 - 2.0 * (x * x + y * y))
    pitch = np.arcsin(np.clip(2.0 * (w * y - z * x), -1.0, 1.0))
    yaw = np.arctan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))
    return np.stack([roll, pitch, yaw], axis=-1)


def of_bodies(bodies, sl: slice) -> np.ndarray:
    """Current orientation quaternions of the robots in ``sl``."""
    return from_euler(bodies.roll[sl], bodies.pitch[sl], bodies.yaw[sl])


def boot_relative(bodies, sl: slice, state: dict) -> np.ndarray:
    """``Q_i⁻¹ · Q_c`` (Eqs. 4, 7, 13), remembering ``Q_i`` in ``state`` on the first call."""
    q = of_bodies(bodies, sl)
    return multiply(inverse(state.setdefault("boot", q.copy())), q)


@dataclass(frozen=True)
class QuaternionSensor(BodyReading):
    """float64[4] ``(w, x, y, z)``: orientation relative to the boot orientation (Eq. 13)."""

    name: str = "quaternion"
    width = 4

    def allocate(self, n: int) -> np.ndarray:
        out = np.zeros((n, 4))
        out[:, 0] = 1.0
        return out

    def read(self, world, group, state, out):
        out[...] = boot_relative(world.bodies, group.slice, state)
