"""Floor colour: a uniform grey, an image stretched over the arena, or painted regions.

All three become one RGB texture covering the arena bounds, so sensors sample the floor with a
single kernel whatever the user wrote. Grey level follows ARGoS (``CColor::ToGrayScale``):
``0.299 R + 0.587 G + 0.114 B``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from numba import njit

LUMA = np.array([0.299, 0.587, 0.114])


# A floor is one RGB texture over the arena; these bound what an experiment may ask for.
MAX_FLOOR_TEXELS = 1 << 24   # 16.8 M texels (48 MiB): an 8 m × 8 m arena at 2 mm
MAX_PAINT_TEXELS = 1 << 27   # texels painted over all regions (each paints its bounding box)


class FloorTooLarge(ValueError):
    """The floor asked for would be too large to build; the message says how large."""


def raster_size(bounds, resolution_m: float) -> tuple[float, float]:
    """(width, height) in texels of a floor painted over ``bounds`` at ``resolution_m``, as
    floats (infinite when absurd) so that the size can be checked before anything is built."""
    x0, y0, x1, y1 = bounds
    out = []
    for extent in (x1 - x0, y1 - y0):
        q = extent / resolution_m
        out.append(max(1.0, float(round(q))) if math.isfinite(q) and q < 1e15 else math.inf)
    return out[0], out[1]


def texels(bounds, resolution_m: float) -> float:
    w, h = raster_size(bounds, resolution_m)
    return w * h


def _span(inside: np.ndarray) -> tuple[int, int]:
    """[first, last + 1) of the True entries (0, 0 if none)."""
    idx = np.flatnonzero(inside)
    return (int(idx[0]), int(idx[-1]) + 1) if idx.size else (0, 0)


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
            w, h = img.size
            if w * h > MAX_FLOOR_TEXELS:
                raise FloorTooLarge(f"the image has {w} × {h} = {w * h / 1e6:.3g} M pixels; "
                                    f"at most {MAX_FLOOR_TEXELS / 1e6:.3g} M")
            rgb = np.asarray(img.convert("RGB"), dtype=np.uint8)
        return Floor(np.ascontiguousarray(rgb))

    @staticmethod
    def painted(bounds, background_rgb, regions, resolution_m: float = 0.002) -> "Floor":
        """Rasterise regions on a background. Each region is a dict with ``rgb`` and either
        ``rect = (x0, y0, x1, y1)``, ``circle = (cx, cy, r)`` or ``ring = (cx, cy, r_in, r_out)``;
        later regions paint over earlier ones. Each region is tested only over its bounding
        box of texels; :class:`FloorTooLarge` when the raster or the painting would be huge."""
        x0, y0, x1, y1 = bounds
        n = texels(bounds, resolution_m)
        if n > MAX_FLOOR_TEXELS:
            raise FloorTooLarge(f"{n / 1e6:.3g} M texels at {resolution_m:g} m; at most "
                                f"{MAX_FLOOR_TEXELS / 1e6:.3g} M")
        w = max(1, int(round((x1 - x0) / resolution_m)))
        h = max(1, int(round((y1 - y0) / resolution_m)))
        tex = np.empty((h, w, 3), dtype=np.uint8)
        tex[:] = np.asarray(background_rgb, dtype=np.uint8)
        # pixel centres in world coordinates (texel (i, j) is at (xs[j], ys[i]))
        xs = x0 + (np.arange(w) + 0.5) * (x1 - x0) / w
        ys = y1 - (np.arange(h) + 0.5) * (y1 - y0) / h
        # per region: the texel block that can be inside (1-D tests that the 2-D test implies:
        # a square distance only grows when the other axis's square is added) and the test
        blocks = []
        for region in regions:
            if "rect" in region:
                rx0, ry0, rx1, ry1 = region["rect"]
                cols = (xs >= min(rx0, rx1)) & (xs <= max(rx0, rx1))
                rows = (ys >= min(ry0, ry1)) & (ys <= max(ry0, ry1))
            else:
                cx, cy, r = region["circle"] if "circle" in region else \
                    (region["ring"][0], region["ring"][1], region["ring"][3])
                cols, rows = (xs - cx) ** 2 <= r * r, (ys - cy) ** 2 <= r * r
            (c0, c1), (q0, q1) = _span(cols), _span(rows)
            blocks.append((region, c0, c1, q0, q1))
        work = sum((c1 - c0) * (q1 - q0) for _, c0, c1, q0, q1 in blocks)
        if work > MAX_PAINT_TEXELS:
            raise FloorTooLarge(f"painting {len(blocks)} regions tests {work / 1e6:.3g} M "
                                f"texels; at most {MAX_PAINT_TEXELS / 1e6:.3g} M")
        for region, c0, c1, q0, q1 in blocks:
            if c0 == c1 or q0 == q1:
                continue
            if "rect" in region:
                rx0, ry0, rx1, ry1 = region["rect"]
                gx, gy = xs[None, c0:c1], ys[q0:q1, None]
                mask = (gx >= min(rx0, rx1)) & (gx <= max(rx0, rx1)) & \
                       (gy >= min(ry0, ry1)) & (gy <= max(ry0, ry1))
            else:
                cx, cy = region["circle" if "circle" in region else "ring"][:2]
                d2 = (xs[None, c0:c1] - cx) ** 2 + (ys[q0:q1, None] - cy) ** 2
                if "circle" in region:
                    r = region["circle"][2]
                    mask = d2 <= r * r
                else:
                    r_in, r_out = region["ring"][2:]
                    mask = (d2 >= r_in * r_in) & (d2 <= r_out * r_out)
            tex[q0:q1, c0:c1][mask] = np.asarray(region["rgb"], dtype=np.uint8)
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
