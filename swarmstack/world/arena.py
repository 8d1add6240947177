"""The static world: arena bounds, boxes (walls), cylinders, lights and the floor.

Everything here is fixed for a run and shared by every run of a batch. Shapes are packed into
small float64 arrays so that the geometry kernels can read them without Python objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from swarmstack.world.floor import Floor

# Column layout of the packed box rows (the other arrays: see Arena).
BOX_COLUMNS = ("cx", "cy", "half_x", "half_y", "yaw", "height", "cos_yaw", "sin_yaw")


@dataclass(frozen=True)
class Arena:
    """A rectangular arena ``[x_min, x_max] × [y_min, y_max]`` and its static entities.

    ``boxes``: float64[B, 8] (centre x, y, half-sizes, yaw rad CCW, height m, cos yaw, sin yaw);
    six columns may be given, the trigonometry is added here so kernels never recompute it.
    ``cylinders``: float64[C, 4] (centre x, y, radius, height).
    ``lights``: float64[L, 4] (x, y, z, intensity) with ``light_rgb`` uint8[L, 3].
    """

    bounds: tuple[float, float, float, float]
    boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))
    cylinders: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    lights: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    light_rgb: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.uint8))
    floor: Floor = field(default_factory=Floor.uniform_grey)

    def __post_init__(self):
        b = np.asarray(self.boxes, dtype=np.float64)
        if b.size == 0:
            b = np.zeros((0, 8))
        elif b.shape[1] == 6:
            b = np.column_stack([b, np.cos(b[:, 4]), np.sin(b[:, 4])])
        object.__setattr__(self, "boxes", np.ascontiguousarray(b))

    @property
    def size(self) -> tuple[float, float]:
        x0, y0, x1, y1 = self.bounds
        return x1 - x0, y1 - y0


def wall_boxes(bounds, thickness: float, height: float) -> np.ndarray:
    """Four boxes lining the inside of ``bounds`` (so the free area is bounds shrunk by thickness)."""
    x0, y0, x1, y1 = bounds
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hx, hy, t = (x1 - x0) / 2, (y1 - y0) / 2, thickness / 2
    return np.array([
        [cx, y1 - t, hx, t, 0.0, height],   # north
        [cx, y0 + t, hx, t, 0.0, height],   # south
        [x1 - t, cy, t, hy, 0.0, height],   # east
        [x0 + t, cy, t, hy, 0.0, height],   # west
    ])


def box_row(center, size, yaw: float) -> np.ndarray:
    """Pack a box given by centre (x, y), full size (x, y, z) and yaw into a BOX_COLUMNS row."""
    return np.array([center[0], center[1], size[0] / 2, size[1] / 2, yaw, size[2]])
