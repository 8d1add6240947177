"""Placing robot groups at the start of a run: explicit, uniform or gaussian, never overlapping.

Set-up code (runs once per run), so plain Python with a coarse occupancy dictionary is fine.
Failures raise :class:`PlacementError` with a message the config layer turns into
``FILE: robots[i].placement: …``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from swarmstack.geometry.overlap import SHAPE_DISC, clear_of_static

MAX_ATTEMPTS = 2000


class PlacementError(ValueError):
    def __init__(self, group_index: int, message: str):
        super().__init__(message)
        self.group_index = group_index


@dataclass
class Occupancy:
    """Discs placed so far in one run, bucketed in cells for quick overlap tests."""

    cell: float
    discs: dict

    @staticmethod
    def empty(cell: float) -> "Occupancy":
        return Occupancy(cell, {})

    def _key(self, x, y):
        return (math.floor(x / self.cell), math.floor(y / self.cell))

    def free(self, x: float, y: float, r: float, gap: float) -> bool:
        kx, ky = self._key(x, y)
        for gx in range(kx - 2, kx + 3):
            for gy in range(ky - 2, ky + 3):
                for ox, oy, orad in self.discs.get((gx, gy), ()):
                    rr = r + orad + gap
                    if (x - ox) ** 2 + (y - oy) ** 2 < rr * rr:
                        return False
        return True

    def add(self, x: float, y: float, r: float) -> None:
        self.discs.setdefault(self._key(x, y), []).append((x, y, r))


def _clear_of_static(x, y, r, gap, arena) -> bool:
    # bodies are placed on the floor by their (bounding) disc, which every static shape reaches
    return clear_of_static(x, y, 0.0, SHAPE_DISC, r, r, r, 0.0, math.inf, gap, arena.boxes,
                           arena.cylinders, np.asarray(arena.bounds, dtype=np.float64))


def place_group(index: int, name: str, n: int, radius: float, placement, arena, occupancy,
                rng: np.random.Generator) -> np.ndarray:
    """Poses float64[n, 3] (x, y, yaw) for one group in one run; updates ``occupancy``."""
    gap = placement.clearance
    poses = np.empty((n, 3))
    if placement.kind == "explicit":
        for k, (x, y, yaw) in enumerate(placement.poses):
            if not _clear_of_static(x, y, radius, 0.0, arena):
                raise PlacementError(index, f"pose {k} ({x:g}, {y:g}) of group {name!r} "
                                            "overlaps a wall, an obstacle or the arena border")
            if not occupancy.free(x, y, radius, 0.0):
                raise PlacementError(index, f"pose {k} ({x:g}, {y:g}) of group {name!r} "
                                            "overlaps another robot")
            occupancy.add(x, y, radius)
            poses[k] = (x, y, yaw)
        return poses

    x0, y0, x1, y1 = arena.bounds
    if placement.min is not None:
        x0, y0 = placement.min
        x1, y1 = placement.max
    if placement.kind == "uniform":
        if x1 - x0 < 2 * radius or y1 - y0 < 2 * radius:
            what = "placement area" if placement.min is not None else "arena"
            raise PlacementError(
                index, f"the {what} ({x1 - x0:g} m × {y1 - y0:g} m) is narrower than a robot of "
                       f"group {name!r} ({2 * radius:g} m across)")
        area = max(0.0, (x1 - x0) * (y1 - y0))
        needed = n * math.pi * (radius + gap / 2) ** 2
        if needed > 0.7 * area:  # random sequential packing jams near 55 % coverage
            raise PlacementError(
                index, f"cannot fit {n} robots of group {name!r} (radius {radius:g} m) in "
                       f"{area:.3g} m²: they need {needed:.3g} m²; enlarge the area or place "
                       "fewer robots")
    for k in range(n):
        for _ in range(MAX_ATTEMPTS):
            if placement.kind == "uniform":
                x = rng.uniform(x0 + radius, x1 - radius)
                y = rng.uniform(y0 + radius, y1 - radius)
            else:
                x, y = rng.normal(placement.mean, placement.std)
            if _clear_of_static(x, y, radius, gap, arena) and occupancy.free(x, y, radius, gap):
                break
        else:
            raise PlacementError(
                index, f"could not place robot {k} of {n} of group {name!r} after "
                       f"{MAX_ATTEMPTS} attempts: the placement area is too crowded")
        if placement.yaw == "uniform":
            yaw = rng.uniform(-math.pi, math.pi)
        elif placement.yaw_std:
            yaw = rng.normal(placement.yaw, placement.yaw_std)
        else:
            yaw = float(placement.yaw)
        occupancy.add(x, y, radius)
        poses[k] = (x, y, math.atan2(math.sin(yaw), math.cos(yaw)))
    return poses
