"""Missions: an experiment file (arena, floor, robots) and an objective over a run, scored for
every run of a batch at once (float64[runs], higher is better).

The objective reads the mission's areas from the floor the experiment paints, so a mission's
geometry is written once, in its file: black and white regions are the areas that count.

- ``aggregation`` (aggregation with ambient cues): the fraction of robot-time spent on black,
  ``Σ_t N_black(t) / (N · T)`` — time in the black zone.
- ``foraging``: items delivered: a robot picks one up by entering a black source and delivers
  it by entering the white nest.
- ``shelter`` (shelter with constrained access): the fraction of robot-time inside the white
  shelter (walled on three sides in its file).
- ``coverage`` (coverage with forbidden areas): minus the mean distance (m) from a point of the
  allowed floor to the nearest robot that is not in a black (forbidden) area, at the end.

- ``rvr_mission`` (colour aggregation, the RVRs of AutoMoDe-Watermelon): the fraction of
  robot-time on red, ``Σ_t N_red(t) / (N · T)``; red as Watermelon's colour condition sees it.

Grey levels follow the Chocolate conditions (``chocolate.BLACK_BELOW``, ``WHITE_ABOVE``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from swarmstack.design.chocolate import BLACK_BELOW, WHITE_ABOVE
from swarmstack.design.watermelon import COLOURS, colour_index
from numba import njit
from swarmstack.world.floor import LUMA

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "design"


def rgb_at(sim, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The floor's colour (uint8[…, 3]) at world points, nearest texel."""
    arena = sim.world.scene.arena
    tex = arena.floor.texture
    x0, y0, x1, y1 = arena.bounds
    h, w = tex.shape[:2]
    col = np.clip(((x - x0) / (x1 - x0) * w).astype(np.int64), 0, w - 1)
    row = np.clip(((y1 - y) / (y1 - y0) * h).astype(np.int64), 0, h - 1)
    return tex[row, col]


def grey_at(sim, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The floor's grey level (0 black … 1 white) at world points, nearest texel."""
    return (rgb_at(sim, x, y).astype(np.float64) @ LUMA) / 255.0


class Objective:
    """Accumulates a score over a run for every run of ``sim``; ``observe`` after each tick."""

    def __init__(self, sim, group: str):
        self.sim = sim
        g = sim.group(group)
        self.rows = g.slice.slice
        self.run = sim.world.bodies.run[self.rows]
        self.runs = sim.runs
        self.per_run = g.slice.per_run
        self.ticks = 0

    def positions(self):
        b = self.sim.world.bodies
        return b.x[self.rows], b.y[self.rows]

    def count(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.run[mask], minlength=self.runs).astype(np.float64)

    def observe(self) -> None:
        self.ticks += 1

    def score(self) -> np.ndarray:
        raise NotImplementedError


def texel_grey(sim) -> np.ndarray:
    """float64[h, w]: the grey level of every texel of the floor, as :func:`grey_at` gives it
    at any point of that texel."""
    tex = sim.world.scene.arena.floor.texture
    h, w = tex.shape[:2]
    return ((tex.reshape(h * w, -1).astype(np.float64) @ LUMA) / 255.0).reshape(h, w)


@njit(cache=True)
def _count_in_zone(x, y, run, x0, y0, x1, y1, zone, total):
    """total[run] += 1 for every robot whose texel (picked as :func:`rgb_at` picks it) is in
    ``zone`` bool[h, w]."""
    h, w = zone.shape
    for i in range(x.shape[0]):
        col = min(max(np.int64((x[i] - x0) / (x1 - x0) * w), 0), w - 1)
        row = min(max(np.int64((y1 - y[i]) / (y1 - y0) * h), 0), h - 1)
        if zone[row, col]:
            total[run[i]] += 1.0


class Aggregation(Objective):
    """Robot-time in a zone of the floor (black), counted per tick from a mask of the
    floor's texels made once: the texture does not change during a run."""

    def __init__(self, sim, group):
        super().__init__(sim, group)
        self.total = np.zeros(self.runs)
        self.zone = self.zone_of(sim)
        self.bounds = tuple(float(v) for v in sim.world.scene.arena.bounds)

    @staticmethod
    def zone_of(sim) -> np.ndarray:
        """bool[h, w]: the texels that count."""
        return texel_grey(sim) <= BLACK_BELOW

    def observe(self):
        super().observe()
        _count_in_zone(*self.positions(), self.run, *self.bounds, self.zone, self.total)

    def score(self):
        return self.total / (self.per_run * max(self.ticks, 1))


class Shelter(Aggregation):
    @staticmethod
    def zone_of(sim) -> np.ndarray:
        return texel_grey(sim) >= WHITE_ABOVE


class ColourAggregation(Aggregation):
    """The fraction of robot-time on red (hue within 15° of red, as Watermelon's colour
    condition sees it)."""

    @staticmethod
    def zone_of(sim) -> np.ndarray:
        return colour_index(sim.world.scene.arena.floor.texture) == COLOURS.index("red")


class Foraging(Objective):
    def __init__(self, sim, group):
        super().__init__(sim, group)
        self.carrying = np.zeros(self.run.shape[0], bool)
        self.delivered = np.zeros(self.runs)

    def observe(self):
        super().observe()
        g = grey_at(self.sim, *self.positions())
        deliver = self.carrying & (g >= WHITE_ABOVE)
        self.delivered += self.count(deliver)
        self.carrying = (self.carrying & ~deliver) | (g <= BLACK_BELOW)

    def score(self):
        return self.delivered


class Coverage(Objective):
    SPACING_M = 0.05   # the allowed floor is sampled on this grid

    def __init__(self, sim, group):
        super().__init__(sim, group)
        x0, y0, x1, y1 = sim.world.scene.arena.bounds
        gx, gy = np.meshgrid(np.arange(x0 + self.SPACING_M / 2, x1, self.SPACING_M),
                             np.arange(y0 + self.SPACING_M / 2, y1, self.SPACING_M))
        gx, gy = gx.ravel(), gy.ravel()
        keep = grey_at(sim, gx, gy) > BLACK_BELOW
        self.points = np.stack([gx[keep], gy[keep]], axis=1)

    def score(self):
        x, y = self.positions()
        counts = grey_at(self.sim, x, y) > BLACK_BELOW
        # robots of run r are rows r·n … r·n + n − 1 of the group (group-major layout)
        px = np.where(counts, x, np.inf).reshape(self.runs, self.per_run)
        py = np.where(counts, y, np.inf).reshape(self.runs, self.per_run)
        d = np.hypot(self.points[None, :, 0, None] - px[:, None, :],
                     self.points[None, :, 1, None] - py[:, None, :]).min(axis=2)
        diag = np.hypot(*np.ptp(self.points, axis=0))
        return -np.minimum(d, diag).mean(axis=1)


OBJECTIVES = {"aggregation": Aggregation, "foraging": Foraging, "shelter": Shelter,
              "coverage": Coverage, "rvr_mission": ColourAggregation}


def run_scores(sim, objective: str, group: str, ticks: int | None = None) -> np.ndarray:
    """Run every run of ``sim`` (already reset) to its end; float64[runs] scores."""
    if objective not in OBJECTIVES:
        raise ValueError(f"no objective {objective!r}; known: {', '.join(OBJECTIVES)}")
    obj = OBJECTIVES[objective](sim, group)
    ticks = sim.cfg.simulation.total_ticks if ticks is None else ticks
    sim.start()
    for _ in range(ticks):
        sim.step()
        obj.observe()
    return obj.score()
