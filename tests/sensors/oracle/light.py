"""Frozen copy of the light-sensor kernels (``swarmstack/sensors/light.py`` and the lux
transfer of ``lux.py``) as they were before the sensing kernels were rebuilt for speed: the
oracle the property tests compare the new kernels with, bit for bit.
"""

from __future__ import annotations

import math
import numpy as np
from numba import njit

from .nearby import boxes_near, cylinders_near, robots_near
from .rays import hit_candidates
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.world.rng import FIXED_WORDS as STREAM  # the old stream columns

_VISIBLE = 1.0 - 1e-9   # a sight line blocked only at (numerically) its end point still sees
_SATURATING = 1e9       # contribution of a source sitting exactly on the sensor


@njit(cache=True, error_model="numpy")
def occluders_near_segment(ax, ay, bx, by, widen, rob_idx, nr, skip, x, y, radius, out):
    """Robots among ``rob_idx[:nr]`` (except ``skip``) whose disks come within ``widen`` of the
    2-D segment a → b; returns the count written to ``out``.

    Every sight line from a point within ``widen`` of ``a`` to a point within ``widen`` of ``b``
    stays within ``widen`` of the segment a → b, so only these robots can block any of them:
    one short list serves all the sensor × emitter sight lines between two robots.
    """
    dx = bx - ax
    dy = by - ay
    ll = dx * dx + dy * dy
    m = 0
    for q in range(nr):
        j = rob_idx[q]
        if j == skip:
            continue
        t = 0.0
        if ll > 1e-18:
            t = min(1.0, max(0.0, ((x[j] - ax) * dx + (y[j] - ay) * dy) / ll))
        ex = ax + t * dx - x[j]
        ey = ay + t * dy - y[j]
        rr = widen + radius[j]
        if ex * ex + ey * ey <= rr * rr:
            out[m] = j
            m += 1
    return m


@njit(cache=True, error_model="numpy")
def illumination_kernel(start, stop, x, y, z, yaw, run, radius, height, boxes, cylinders,
                        gparams, cell_start, order, max_radius,
                        lights, em_world, em_rgb, em_intensity, em_count, em_reach,
                        angle_rad, ring_m, elevation_m, range_m, coef, squared, out):
    """Fill ``out`` float64[stop − start, K] with each sensor's sum over the visible sources
    within ``range_m`` of ``coef·i²/d²`` (``squared``) or ``coef·i/d²`` for robots
    ``start … stop − 1`` — the part every light sensor shares; each device applies its own
    transfer (E-Puck2: Eq. 2 with ``coef = γ²``, squared; RVR: lux).

    ``em_reach`` bounds the horizontal distance of any emitter from its robot's centre, so the
    robots whose LEDs can be within range are found in the spatial grid, not by a scan. The
    robots that could block the sight lines towards one source robot are gathered once per pair
    (see :func:`occluders_near_segment`), then every sensor × emitter line is tested against
    that short list and the nearby static shapes.
    """
    n = x.shape[0]
    n_sens = angle_rad.shape[0]
    ring_max = 0.0
    for k in range(n_sens):
        ring_max = max(ring_max, ring_m[k])
    occ_reach = ring_max + range_m          # every sight line lies within this of the centre
    src_reach = occ_reach + em_reach
    widen_led = max(ring_max, em_reach)
    box_idx = np.empty(boxes.shape[0], dtype=np.int64)
    cyl_idx = np.empty(cylinders.shape[0], dtype=np.int64)
    rob_idx = np.empty(n, dtype=np.int64)
    occ_idx = np.empty(n, dtype=np.int64)
    sx = np.empty(n_sens)
    sy = np.empty(n_sens)
    sz = np.empty(n_sens)
    acc = np.empty(n_sens)
    r2max = range_m * range_m
    for i in range(start, stop):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for k in range(n_sens):
            lx = ring_m[k] * math.cos(angle_rad[k])
            ly = ring_m[k] * math.sin(angle_rad[k])
            sx[k] = x[i] + c * lx - s * ly
            sy[k] = y[i] + s * lx + c * ly
            sz[k] = z[i] + elevation_m[k]
            acc[k] = 0.0
        nb = boxes_near(x[i], y[i], occ_reach, boxes, box_idx)
        nc = cylinders_near(x[i], y[i], occ_reach, cylinders, cyl_idx)
        nr = robots_near(x[i], y[i], src_reach, run[i], i, x, y, radius, max_radius, gparams,
                         cell_start, order, rob_idx)
        # static lights (few: scanned)
        for m in range(lights.shape[0]):
            inten = lights[m, 3]
            if inten <= 0.0:
                continue
            px = lights[m, 0]
            py = lights[m, 1]
            pz = lights[m, 2]
            if (px - x[i]) ** 2 + (py - y[i]) ** 2 > occ_reach * occ_reach:
                continue
            no = occluders_near_segment(x[i], y[i], px, py, ring_max, rob_idx, nr, -1, x, y,
                                        radius, occ_idx)
            for k in range(n_sens):
                d2 = (px - sx[k]) ** 2 + (py - sy[k]) ** 2 + (pz - sz[k]) ** 2
                if d2 > r2max:
                    continue
                if hit_candidates(sx[k], sy[k], sz[k], px, py, pz, box_idx, nb, cyl_idx, nc,
                                  occ_idx, no, boxes, cylinders, x, y, z, radius,
                                  height) < _VISIBLE:
                    continue
                acc[k] += _SATURATING if d2 < 1e-18 else _term(coef, squared, inten, d2)
        # lit LEDs of robots of the same run whose emitters can be within range
        for q in range(nr):
            j = rob_idx[q]
            lit = False
            for e in range(em_count[j]):
                if em_intensity[j, e] > 0.0 and (em_rgb[j, e, 0] != 0 or em_rgb[j, e, 1] != 0
                                                 or em_rgb[j, e, 2] != 0):
                    lit = True
                    break
            if not lit:
                continue
            no = occluders_near_segment(x[i], y[i], x[j], y[j], widen_led, rob_idx, nr, j, x, y,
                                        radius, occ_idx)
            for e in range(em_count[j]):
                inten = em_intensity[j, e]
                if inten <= 0.0:
                    continue
                if em_rgb[j, e, 0] == 0 and em_rgb[j, e, 1] == 0 and em_rgb[j, e, 2] == 0:
                    continue
                px = em_world[j, e, 0]
                py = em_world[j, e, 1]
                pz = em_world[j, e, 2]
                for k in range(n_sens):
                    d2 = (px - sx[k]) ** 2 + (py - sy[k]) ** 2 + (pz - sz[k]) ** 2
                    if d2 > r2max:
                        continue
                    if hit_candidates(sx[k], sy[k], sz[k], px, py, pz, box_idx, nb, cyl_idx, nc,
                                      occ_idx, no, boxes, cylinders, x, y, z, radius,
                                      height) < _VISIBLE:
                        continue
                    acc[k] += _SATURATING if d2 < 1e-18 else _term(coef, squared, inten, d2)
        for k in range(n_sens):
            out[i - start, k] = acc[k]


@njit(cache=True, error_model="numpy", inline="always")
def _term(coef, squared, inten, d2):
    # (coef·i)·i, not coef·(i·i): the E-Puck2's recorded readings depend on the rounding
    return coef * inten * inten / d2 if squared else coef * inten / d2


@njit(cache=True, error_model="numpy")
def eq2_transfer(sums, full_scale, kind, level, keys, tick, out):
    """E-Puck2 Eq. 2: noise on the sum ``s``, reading ``round(4095 (1 − s))`` clamped."""
    for i in range(sums.shape[0]):
        for k in range(sums.shape[1]):
            v = sums[i, k] + draw(kind, level, keys[i], tick, k)
            out[i, k] = min(full_scale, max(0, int(round(full_scale * (1.0 - v)))))


def emitter_reach(world) -> float:
    """Largest horizontal distance of an emitter slot from its robot's centre (m)."""
    loc = world.emitters.local
    if loc.size == 0:
        return 0.0
    return float(np.sqrt(loc[..., 0] ** 2 + loc[..., 1] ** 2).max())


def illumination_state(angles_rad, ring_m, elevation_m, n: int) -> dict:
    """Sensor geometry and scratch of :func:`illumination` for ``n`` robots."""
    a = np.asarray(angles_rad, dtype=np.float64)
    # emitter layouts are fixed for a run: their reach is measured once, on first use
    return {"angle": a, "ring": np.broadcast_to(np.asarray(ring_m, float), a.shape).copy(),
            "elev": np.broadcast_to(np.asarray(elevation_m, float), a.shape).copy(),
            "reach": None, "sums": np.zeros((n, a.shape[0]))}


def illumination(world, group, state, range_m: float, coef: float, squared: bool) -> np.ndarray:
    """Per robot of ``group`` and sensor: the occlusion-aware source sum of
    :func:`illumination_kernel` (float64[n, K], a scratch array of ``state``)."""
    if state["reach"] is None:
        state["reach"] = emitter_reach(world)
    b = world.bodies
    em = world.emitters
    arena = world.arena
    sums = state["sums"]
    illumination_kernel(group.start, group.stop, b.x, b.y, b.z, b.yaw, b.run, b.radius,
                        b.height, arena.boxes, arena.cylinders, world.grid, world.cell_start,
                        world.order, world.max_radius, arena.lights, em.world, em.rgb,
                        em.intensity, em.count, state["reach"], state["angle"], state["ring"],
                        state["elev"], range_m, coef, squared, sums)
    return sums


@njit(cache=True, error_model="numpy")
def lux_transfer(sums, max_lux, kind, level, keys, tick, out):
    for i in range(sums.shape[0]):
        v = sums[i, 0] + draw(kind, level, keys[i], tick, 0)
        out[i] = min(max_lux, max(0.0, v))


def light(dev, world, group, keys, out):
    """``Light.update`` as it was: ``dev`` a ``Light``, ``keys`` the group's stream keys."""
    state = illumination_state(dev.angles_rad, dev.ring_m, dev.elevation_m, group.n)
    sums = illumination(world, group, state, dev.range_m, dev.gamma * dev.gamma, True)
    eq2_transfer(sums, dev.full_scale, NOISE_KINDS[dev.noise], dev.noise_level,
                 keys[:, STREAM["light"]], world.tick, out)


def lux(dev, world, group, keys, out):
    """``Lux.update`` as it was."""
    x, y, z = (float(v) for v in dev.position_m)
    state = illumination_state([np.arctan2(y, x)], np.hypot(x, y), z, group.n)
    sums = illumination(world, group, state, dev.range_m, dev.gain, False)
    lux_transfer(sums, dev.max_lux, NOISE_KINDS[dev.noise], dev.noise_level,
                 keys[:, STREAM["light"]], world.tick, out)
