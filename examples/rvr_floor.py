"""Draw ``rvr_floor.png``, the floor image of ``rvr_aggregation.toml``: a light grey floor with
a red spot (the aggregation site) and a blue one (a decoy), 150 × 150 px over the 3 m × 3 m
arena (2 cm per pixel).

    python examples/rvr_floor.py
"""

from pathlib import Path

import numpy as np
from PIL import Image

SIZE_PX = 150
ARENA_M = 3.0
SPOTS = (((0.7, 0.6), 0.6, (220, 30, 30)),     # centre (m), radius (m), colour
         ((-0.8, -0.8), 0.4, (30, 60, 220)))


def floor() -> np.ndarray:
    img = np.full((SIZE_PX, SIZE_PX, 3), 200, dtype=np.uint8)
    centres = (np.arange(SIZE_PX) + 0.5) * ARENA_M / SIZE_PX - ARENA_M / 2
    x = centres[None, :]
    y = -centres[:, None]          # row 0 is the arena's top edge (y max)
    for (cx, cy), r, rgb in SPOTS:
        img[(x - cx) ** 2 + (y - cy) ** 2 <= r * r] = rgb
    return img


if __name__ == "__main__":
    Image.fromarray(floor()).save(Path(__file__).with_name("rvr_floor.png"), optimize=True)
