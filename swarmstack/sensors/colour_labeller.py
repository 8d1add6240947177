"""Colour labeller (Mercator report §3, Eqs. 1–2): a raw RGB reading → the nearest label.

``label = argmin_i d_i`` with ``d_i = (R − R_i)² + (G − G_i)² + (B − B_i)²``; the output is the
RGB value of that label (the real robot publishes it on ``/rvr/fixed_color``), which hides the
per-robot bias of the real sensor. Ties go to the first label of the palette.

The ``fixed_color`` device labels the colour ground sensor's reading: it re-derives that reading
with the same stream and settings (so both agree bit for bit) and labels it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from numba import njit

from swarmstack.sensors.colour_ground import plan_colour
from swarmstack.sensors.device import DeviceBase
from swarmstack.sim import threads

# The palette of the real robot's labelling node: red, green, yellow, grey (report §3 names no
# palette; this is the one shipped with the ROS driver) — experiments set their own.
DEFAULT_PALETTE = ((255, 0, 0), (0, 255, 0), (255, 255, 0), (127, 127, 127))

# robots per work item of the parallel form, and the group size from which it pays
CHUNK = 4096
PARALLEL_MIN = 32768


@njit(cache=True, error_model="numpy")
def label_rows(lo, hi, start, bodies, scene, palette, keys, tick, rgb, out_index):
    """Index of the nearest ``palette`` entry (Eqs. 1–2) for rows ``lo − start … hi − start −
    1`` of ``rgb`` int[n, 3], into ``out_index``."""
    for i in range(lo - start, hi - start):
        best = -1
        best_d = 0
        for k in range(palette.shape[0]):
            d = 0
            for ch in range(3):
                e = int(rgb[i, ch]) - int(palette[k, ch])
                d += e * e
            if best < 0 or d < best_d:
                best = k
                best_d = d
        out_index[i] = best


parallel_label = threads.chunked(label_rows)


def label(rgb, palette) -> np.ndarray:
    """Nearest-label indices (Eqs. 1–2) for RGB readings ``rgb`` (…, 3)."""
    a = np.asarray(rgb, dtype=np.int64)
    flat = np.ascontiguousarray(a.reshape(-1, 3))
    idx = np.empty(flat.shape[0], dtype=np.int64)
    label_rows(0, flat.shape[0], 0, None, None, np.asarray(palette, dtype=np.int64).reshape(-1, 3),
               None, 0, flat, idx)
    return idx.reshape(a.shape[:-1])


@dataclass(frozen=True)
class FixedColour(DeviceBase):
    """int32[4]: R, G, B of the nearest palette label and its index in the palette."""

    positions_m: tuple           # one (x, y) point, as for ColourGround
    palette: tuple = DEFAULT_PALETTE
    noise_mean: float = 0.0
    noise_std: float = 5.0
    name: str = "fixed_color"

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, 4), dtype=np.int32)

    def make_state(self, n: int) -> dict:
        return {"raw": np.zeros((n, 3), dtype=np.int32), "index": np.zeros(n, dtype=np.int64),
                "palette": np.asarray(self.palette, dtype=np.int64).reshape(-1, 3)}

    def plan(self, world, group, keys, out, state):
        raw, index, palette = state["raw"], state["index"], state["palette"]
        read = plan_colour(world, group, keys, raw, self.positions_m[0], self.noise_mean,
                           self.noise_std)
        label_call = threads.rows_plan(label_rows, parallel_label, world, group, palette, None,
                                       raw, index, min_items=PARALLEL_MIN, chunk_items=CHUNK)

        def sense():
            read()
            label_call()
            out[:, :3] = palette[index]
            out[:, 3] = index
        return sense
