"""Floor colour: a uniform grey, an image stretched over the arena, or painted regions.

All three become one RGB texture covering the arena bounds, so sensors sample the floor with a
single kernel whatever the user wrote. Grey level follows ARGoS (``CColor::ToGrayScale``):
``0.299 R + 0.587 G + 0.114 B``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

LUMA = np.array([0.299, 0.587, 0.114])


@dataclass(frozen=True)
class Floor:
    """``texture`` uint8[H, W, 3]: row 0 is the arena's y_max edge, column 0 its x_min edge."""

    texture: np.ndarray

    @staticmethod
    def uniform_grey(level: float = 1.0) -> "Floor":
        """A uniform floor; ``level`` 0 = black, 1 = white."""
        v = int(round(255 * min(1.0, max(0.0, level))))
        return Floor(np.full((1, 1, 3), v, dtype=np.uint8))

    @staticmethod
    def from_image(path: Path) -> "Floor":
        """Load a PNG/JPEG; it is stretched over the whole arena whatever its aspect ratio."""
        from PIL import Image  # only needed for image floors

        with Image.open(path) as img:
            rgb = np.asarray(img.convert("RGB"), dtype=np.uint8)
        return Floor(np.ascontiguousarray(rgb))

    @staticmethod
    def painted(bounds, background_rgb, regions, resolution_m: float = 0.002) -> "Floor":
        """Rasterise regions on a background. Each region is a dict with ``rgb`` and either
        ``rect = (x0, y0, x1, y1)``, ``circle = (cx, cy, r)`` or ``ring = (cx, cy, r_in, r_out)``;
        later regions paint over earlier ones."""
        x0, y0, x1, y1 = bounds
        w = max(1, int(round((x1 - x0) / resolution_m)))
        h = max(1, int(round((y1 - y0) / resolution_m)))
        tex = np.empty((h, w, 3), dtype=np.uint8)
        tex[:] = np.asarray(background_rgb, dtype=np.uint8)
        # pixel centres in world coordinates
        xs = x0 + (np.arange(w) + 0.5) * (x1 - x0) / w
        ys = y1 - (np.arange(h) + 0.5) * (y1 - y0) / h
        gx, gy = np.meshgrid(xs, ys)
        for region in regions:
            if "rect" in region:
                rx0, ry0, rx1, ry1 = region["rect"]
                mask = (gx >= min(rx0, rx1)) & (gx <= max(rx0, rx1)) & \
                       (gy >= min(ry0, ry1)) & (gy <= max(ry0, ry1))
            elif "circle" in region:
                cx, cy, r = region["circle"]
                mask = (gx - cx) ** 2 + (gy - cy) ** 2 <= r * r
            else:
                cx, cy, r_in, r_out = region["ring"]
                d2 = (gx - cx) ** 2 + (gy - cy) ** 2
                mask = (d2 >= r_in * r_in) & (d2 <= r_out * r_out)
            tex[mask] = np.asarray(region["rgb"], dtype=np.uint8)
        return Floor(tex)

    def grey(self) -> np.ndarray:
        """float64[H, W] grey level in [0, 255]."""
        return self.texture.astype(np.float64) @ LUMA


@njit(cache=True, error_model="numpy")
def sample_texture(texture, bounds, x, y):
    """Nearest-texel RGB at world point (x, y); points outside the arena clamp to the edge."""
    h, w = texture.shape[0], texture.shape[1]
    u = (x - bounds[0]) / (bounds[2] - bounds[0])
    v = (bounds[3] - y) / (bounds[3] - bounds[1])
    col = min(w - 1, max(0, int(u * w)))
    row = min(h - 1, max(0, int(v * h)))
    return texture[row, col, 0], texture[row, col, 1], texture[row, col, 2]
