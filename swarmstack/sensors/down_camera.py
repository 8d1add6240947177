"""Downward camera: which ground targets a flying robot sees below it (blob detection).

The search-and-rescue drones of Dah-Achinanon et al. (BittyBuzz thesis §5.4.1) find their
targets -- ground robots -- with a downward-facing camera and blob detection. The model is the
camera's footprint on the ground: a target is seen when the point of it nearest the camera lies
inside the cone of half-angle ``fov / 2`` under the camera, i.e. when its horizontal distance
from the drone is at most ``(h − top) · tan(fov / 2) + radius`` (``h`` the camera's height,
``top`` the target's top, ``radius`` its footprint), and the drone is above it. Each seen target
is missed with probability ``miss`` in each tick (motion blur, a failed blob match), drawn from
the robot's ``camera`` stream.

Targets are the robots of the groups named in ``targets`` (every other group when it is empty),
in the same run. A group with no controller stands still: that is a static marker.

Reading float64[n, max_targets, 3] per robot: ``(robot id, x, y)`` of each seen target, world
frame, metres, nearest first; unused slots have id −1 (and x = y = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from numba import njit

from swarmstack.sensors.device import DeviceBase
from swarmstack.world.rng import uniform01

# the miss draws use channels far above those the AI-deck camera's noise uses on the same stream
_MISS_CHANNEL = 1 << 16


@njit(cache=True, error_model="numpy")
def _see(start, stop, bodies, robot_id, targets, params, keys, tick, out):
    """Rows ``start … stop − 1`` (drones); ``targets`` = (t_start, t_per_run): the target
    groups' slices (run r's targets of group g are ``t_start[g] + r · t_per_run[g]``
    onward); ``params`` = (tan of half the field of view, miss probability)."""
    pose, run, radius, height = bodies
    t_start, t_per_run = targets
    t_groups = t_start.shape[0]
    tan_half, miss = params
    m = out.shape[1]
    for i in range(stop - start):
        b = start + i
        for k in range(m):
            out[i, k, 0] = -1.0
            out[i, k, 1] = 0.0
            out[i, k, 2] = 0.0
        cam = pose[2, b]
        bx = pose[0, b]
        by = pose[1, b]
        r = run[b]
        found = 0
        for g in range(t_groups):
            lo = t_start[g] + r * t_per_run[g]
            for t in range(lo, lo + t_per_run[g]):
                if t == b:
                    continue
                depth = cam - (pose[2, t] + height[t])
                if depth <= 0.0:
                    continue
                dx = pose[0, t] - bx
                dy = pose[1, t] - by
                d = math.sqrt(dx * dx + dy * dy)
                if d > depth * tan_half + radius[t]:
                    continue
                if miss > 0.0 and uniform01(keys[i], tick, _MISS_CHANNEL + t - lo + g * 4096) \
                        < miss:
                    continue
                # insertion by distance: nearest first, the farthest dropped when full
                k = found if found < m else m
                while k > 0 and out[i, k - 1, 0] >= 0.0:
                    px = out[i, k - 1, 1] - bx
                    py = out[i, k - 1, 2] - by
                    if px * px + py * py <= d * d:
                        break
                    if k < m:
                        out[i, k, 0] = out[i, k - 1, 0]
                        out[i, k, 1] = out[i, k - 1, 1]
                        out[i, k, 2] = out[i, k - 1, 2]
                    k -= 1
                if k < m:
                    out[i, k, 0] = float(robot_id[t])
                    out[i, k, 1] = pose[0, t]
                    out[i, k, 2] = pose[1, t]
                    if found < m:
                        found += 1


@dataclass(frozen=True)
class DownCamera(DeviceBase):
    """``fov_rad`` full cone angle; ``targets`` the target groups' names (empty: every group
    but the camera's own); ``miss`` probability
    of missing a seen target in one tick; ``max_targets`` slots per reading."""

    fov_rad: float
    targets: tuple[str, ...]
    miss: float = 0.0
    max_targets: int = 4
    name: str = "down_camera"

    @property
    def reads_groups(self) -> tuple[str, ...]:
        """The groups it watches (checked against the experiment's groups when it is built)."""
        return self.targets

    def allocate(self, n: int) -> np.ndarray:
        out = np.zeros((n, self.max_targets, 3))
        out[:, :, 0] = -1.0
        return out

    def plan(self, world, group, keys, out, state):
        groups = [world.group(name) for name in self.targets] if self.targets else \
            [g for g in world.groups if g.name != group.name]
        targets = (np.array([g.start for g in groups], dtype=np.int64),
                   np.array([g.per_run for g in groups], dtype=np.int64))
        params = (math.tan(0.5 * self.fov_rad), self.miss)
        robot_id = world.bodies.robot_id

        def sense():
            _see(group.start, group.stop, world.bodies_args, robot_id, targets, params, keys,
                 world.tick, out)
        return sense


def targets_table(reading) -> dict:
    """One robot's reading as script languages see it: ``{0 = {id, x, y}, …}`` (m, world
    frame), nearest first; empty when nothing is seen."""
    out = {}
    for k in range(reading.shape[0]):
        if reading[k, 0] < 0.0:
            break
        out[k] = {"id": int(reading[k, 0]), "x": float(reading[k, 1]),
                  "y": float(reading[k, 2])}
    return out
