"""Placing robot groups at the start of a run: explicit, uniform or gaussian, never overlapping.

Bodies are checked by their true shapes (a disc as its circle, a box as its rotated rectangle)
against walls, boxes, cylinders, the arena border and the bodies placed before them, where
their height ranges overlap. Random placements put bodies on the floor; explicit poses
``[x, y, z, yaw]`` may start a flying robot at a height ``z`` (its base above the floor).

Set-up code (runs once per run), so plain Python with a coarse occupancy dictionary is fine.
Failures raise :class:`PlacementError` with a message the config layer turns into
``FILE: robots[i].placement: …``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from swarmstack.geometry.overlap import SHAPE_BOX, SHAPE_DISC, bodies_overlap, clear_of_static

MAX_ATTEMPTS = 2000


class PlacementError(ValueError):
    def __init__(self, group_index: int, message: str):
        super().__init__(message)
        self.group_index = group_index


@dataclass
class Placed:
    """A body placed so far: pose, true shape and height range."""

    x: float
    y: float
    z: float
    yaw: float
    body: object       # robots.base.Body
    label: str         # how an error names it: "robot 2 of group 'rvr'"


@dataclass
class Occupancy:
    """Bodies placed so far in one run, bucketed in cells (by their bounding circles) for quick
    overlap tests; the test itself compares true shapes."""

    cell: float
    bodies: dict

    @staticmethod
    def empty(cell: float) -> "Occupancy":
        return Occupancy(cell, {})

    def _key(self, x, y):
        return (math.floor(x / self.cell), math.floor(y / self.cell))

    def overlapping(self, x: float, y: float, z: float, yaw: float, body, gap: float):
        """The first placed body that the body at (x, y, z, yaw), grown by ``gap`` m,
        overlaps; None when it is clear of all."""
        shape = SHAPE_BOX if body.shape == "box" else SHAPE_DISC
        kx, ky = self._key(x, y)
        for gx in range(kx - 2, kx + 3):
            for gy in range(ky - 2, ky + 3):
                for o in self.bodies.get((gx, gy), ()):
                    b = o.body
                    if bodies_overlap(x, y, yaw, shape, body.half_x, body.half_y, z,
                                      body.height_m, o.x, o.y, o.yaw,
                                      SHAPE_BOX if b.shape == "box" else SHAPE_DISC, b.half_x,
                                      b.half_y, o.z, b.height_m, gap):
                        return o
        return None

    def add(self, placed: Placed) -> None:
        self.bodies.setdefault(self._key(placed.x, placed.y), []).append(placed)


def _clear_of_static(x, y, z, yaw, body, gap, boxes, cylinders, bounds) -> bool:
    shape = SHAPE_BOX if body.shape == "box" else SHAPE_DISC
    return clear_of_static(x, y, yaw, shape, body.radius_m, body.half_x, body.half_y, z,
                           body.height_m, gap, boxes, cylinders,
                           np.asarray(bounds, dtype=np.float64))


def _static_overlap(x, y, z, yaw, body, arena) -> str:
    """What the body at (x, y, z, yaw) overlaps among the static shapes, for an error."""
    anywhere = np.array([-math.inf, -math.inf, math.inf, math.inf])
    no_boxes, no_cylinders = np.zeros((0, 8)), np.zeros((0, 4))

    def clear(boxes, cylinders, bounds):
        return _clear_of_static(x, y, z, yaw, body, 0.0, boxes, cylinders, bounds)

    for k in range(arena.boxes.shape[0]):
        if not clear(arena.boxes[k:k + 1], no_cylinders, anywhere):
            return (f"the wall or box centred at ({arena.boxes[k, 0]:g}, "
                    f"{arena.boxes[k, 1]:g})")
    for k in range(arena.cylinders.shape[0]):
        if not clear(no_boxes, arena.cylinders[k:k + 1], anywhere):
            return (f"the cylinder centred at ({arena.cylinders[k, 0]:g}, "
                    f"{arena.cylinders[k, 1]:g})")
    return "the arena border"


def _pose_text(x, y, z, yaw) -> str:
    return f"({x:g}, {y:g}" + (f", z {z:g} m" if z else "") + f", yaw {yaw:g} rad)"


def _yaw(placement, rng) -> float:
    if placement.yaw == "uniform":
        return rng.uniform(-math.pi, math.pi)
    if placement.yaw_std:
        return rng.normal(placement.yaw, placement.yaw_std)
    return float(placement.yaw)


def place_group(index: int, name: str, n: int, body, placement, arena, occupancy,
                rng: np.random.Generator, can_fly: bool = False,
                type_name: str = "robot") -> np.ndarray:
    """Poses float64[n, 4] (x, y, z, yaw) for one group in one run; updates ``occupancy``.

    ``body`` (``robots.base.Body``) is checked by its true shape: a disc as a circle, a box
    as its rotated rectangle. Explicit poses may give a height ``z`` (the body's base above the
    floor) only when ``can_fly``."""
    gap = placement.clearance
    radius = body.radius_m
    poses = np.empty((n, 4))
    if placement.kind == "explicit":
        for k, pose in enumerate(placement.poses):
            x, y, yaw = pose[0], pose[1], pose[-1]
            z = pose[2] if len(pose) == 4 else 0.0
            where = f"robot {k} of group {name!r} at {_pose_text(x, y, z, yaw)}"
            if z < 0.0:
                raise PlacementError(index, f"{where}: z = {z:g} m is below the floor")
            if z > 0.0 and not can_fly:
                raise PlacementError(index, f"{where}: {type_name} robots cannot fly and start "
                                            "on the floor; give [x, y, yaw] (a height z is for "
                                            "flying robots only)")
            if not _clear_of_static(x, y, z, yaw, body, 0.0, arena.boxes, arena.cylinders,
                                    arena.bounds):
                raise PlacementError(index, f"{where} overlaps "
                                            f"{_static_overlap(x, y, z, yaw, body, arena)}")
            other = occupancy.overlapping(x, y, z, yaw, body, 0.0)
            if other is not None:
                raise PlacementError(index, f"{where} overlaps {other.label}")
            occupancy.add(Placed(x, y, z, yaw, body, f"robot {k} of group {name!r}"))
            poses[k] = (x, y, z, yaw)
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
    # a disc's footprint does not turn: its yaw is drawn once it is placed; a box is tried
    # at each drawn pose with its own yaw
    is_box = body.shape == "box"
    for k in range(n):
        for _ in range(MAX_ATTEMPTS):
            if placement.kind == "uniform":
                x = rng.uniform(x0 + radius, x1 - radius)
                y = rng.uniform(y0 + radius, y1 - radius)
            else:
                x, y = rng.normal(placement.mean, placement.std)
            yaw = _yaw(placement, rng) if is_box else 0.0
            if _clear_of_static(x, y, 0.0, yaw, body, gap, arena.boxes, arena.cylinders,
                                arena.bounds) and \
                    occupancy.overlapping(x, y, 0.0, yaw, body, gap) is None:
                break
        else:
            raise PlacementError(
                index, f"could not place robot {k} of {n} of group {name!r} after "
                       f"{MAX_ATTEMPTS} attempts: the placement area is too crowded")
        if not is_box:
            yaw = _yaw(placement, rng)
        yaw = math.atan2(math.sin(yaw), math.cos(yaw))
        occupancy.add(Placed(x, y, 0.0, yaw, body, f"robot {k} of group {name!r}"))
        poses[k] = (x, y, 0.0, yaw)
    return poses
