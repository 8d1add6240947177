"""Ambient-light sensors (the E-Puck2's 8 TCRT1000 phototransistors): light → 0–4095.

Transfer function (E-Puck2 paper, Eq. 2): every light source of intensity ``i > 0`` within
``range`` (0.5 m) of a sensor and in its line of sight adds ``(γ i)² / d²`` (γ = 0.075) to a sum
``s``; noise is added to ``s``; the reading is ``round(4095 (1 − s))`` clamped to 0–4095. The
scale is inverted like the real robot's: 4095 = dark, 0 = saturated (a light of intensity 1
saturates a sensor closer than γ = 7.5 cm).

Light sources are the arena's static lights and the lit LEDs (emitters) of *other* robots of the
same run — never the sensing robot's own LEDs, never a robot of another run. A source is hidden
when the 3-D segment sensor → source meets a wall, an obstacle or a robot body (the sensing
robot and the LED's owner excepted), so a light mounted above a low wall stays visible. The
sensors have no angular response (as in the paper and ARGoS): a sensor facing away still sees a
light its own body would hide on the real robot. Like the plug-in, the real sensor's inability
to see visible LEDs (it senses infrared) is not modelled.

The occlusion test and the sum over sources (:func:`illumination`) are shared by every light
sensor; a device only chooses the per-source term and its transfer (the RVR's lux meter,
:mod:`swarmstack.sensors.lux`, sums ``K·i/d²`` and clamps it in lux).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numba import njit

from swarmstack.actuators.leds import any_on
from swarmstack.geometry.nearby import (box_near_segment, boxes_near, boxes_near_segment,
                                        cylinder_near_segment, cylinders_near,
                                        cylinders_near_segment, disk_near_segment, robots_near,
                                        robots_near_segment)
from swarmstack.geometry.rays import _box_hit, _disk_hit, hit_candidates
from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.sim import threads

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
        if j != skip and disk_near_segment(ax, ay, dx, dy, ll, x[j], y[j], widen + radius[j]):
            out[m] = j
            m += 1
    return m


@njit(cache=True, error_model="numpy", inline="always")
def sight_blocked(x0, y0, z0, x1, y1, z1, box_idx, n_boxes, cyl_idx, n_cyl, rob_idx, n_rob,
                  boxes, cylinders, rx, ry, rz, radius, height):
    """Whether the segment meets one of the pre-gathered candidates before its end: the same
    answer as ``hit_candidates(…) < _VISIBLE`` (the first hit is before the end exactly when
    some hit is), but it stops at the first blocking shape. Robots are tried first: they are
    the shapes that usually hide a source."""
    dx = x1 - x0
    dy = y1 - y0
    dz = z1 - z0
    for m in range(n_rob):
        j = rob_idx[m]
        if _disk_hit(x0, y0, z0, dx, dy, dz, rx[j], ry[j], radius[j], rz[j],
                     rz[j] + height[j]) < _VISIBLE:
            return True
    for m in range(n_boxes):
        if _box_hit(x0, y0, z0, dx, dy, dz, boxes, box_idx[m]) < _VISIBLE:
            return True
    for m in range(n_cyl):
        k = cyl_idx[m]
        if _disk_hit(x0, y0, z0, dx, dy, dz, cylinders[k, 0], cylinders[k, 1], cylinders[k, 2],
                     0.0, cylinders[k, 3]) < _VISIBLE:
            return True
    return False


@njit(cache=True, error_model="numpy", inline="always")
def static_blocked(x0, y0, z0, x1, y1, z1, boxes, cylinders):
    """Whether a wall, box or cylinder hides the end of the segment: the answer of
    :func:`sight_blocked` over every static shape, each first put through the cheap
    conservative test of ``nearby.box_near_segment`` (``cylinder_near_segment``), so that
    only shapes close to the line pay for the exact one. For a few sight lines this is
    cheaper than gathering the shapes near the robot first."""
    dx = x1 - x0
    dy = y1 - y0
    dz = z1 - z0
    zl = min(z0, z1)
    for k in range(boxes.shape[0]):
        if box_near_segment(x0, y0, x1, y1, 0.0, zl, boxes, k) and _box_hit(
                x0, y0, z0, dx, dy, dz, boxes, k) < _VISIBLE:
            return True
    ll = dx * dx + dy * dy
    for k in range(cylinders.shape[0]):
        if cylinder_near_segment(x0, y0, dx, dy, ll, 0.0, zl, cylinders, k) and _disk_hit(
                x0, y0, z0, dx, dy, dz, cylinders[k, 0], cylinders[k, 1], cylinders[k, 2], 0.0,
                cylinders[k, 3]) < _VISIBLE:
            return True
    return False


# the fewest robots per work item of the parallel kernels (``threads.spread``; the result does
# not depend on it)
CHUNK = 64


@njit(cache=True, error_model="numpy")
def lit_robots(em_rgb, em_intensity, em_count, out):
    """``out[j]`` = whether robot ``j`` has an emitter that is a source: a colour other than
    black and, unless ``em_intensity`` is None, an intensity > 0; returns whether any robot
    has. Built once per call, so the sensing loops skip dark robots at once instead of
    inspecting their emitters from every neighbour (``out`` is left as it is when every
    emitter is black: nothing reads it then)."""
    if not any_on(em_rgb):  # the common case: every LED off
        return False
    some = False
    for j in range(em_count.shape[0]):
        lit = False
        for e in range(em_count[j]):
            if em_intensity is not None:
                if em_intensity[j, e] <= 0.0:
                    continue
            if em_rgb[j, e, 0] != 0 or em_rgb[j, e, 1] != 0 or em_rgb[j, e, 2] != 0:
                lit = True
                break
        out[j] = lit
        some |= lit
    return some


@njit(cache=True, error_model="numpy")
def _top(z, height):
    """The highest top of any body (m)."""
    top = -np.inf
    for j in range(z.shape[0]):
        top = max(top, z[j] + height[j])
    return top


def sources(world, intensity: bool = True) -> tuple:
    """The light sources a light sensor or camera reads: ``(arena lights, emitter positions,
    colours, intensities (all 1 with ``intensity`` False: a camera sees every lit emitter),
    slots in use, emitter reach)``. The arrays are the world's own (refreshed in place)."""
    em = world.emitters
    return (world.arena.lights, em.world, em.rgb,
            em.intensity if intensity else np.ones_like(em.intensity), em.count,
            emitter_reach(world))


@njit(cache=True, error_model="numpy")
def sensor_offsets(angle_rad, ring_m, elevation_m):
    """float64[K, 3]: each sensor's body-frame (x, y) on its ring and its elevation, computed
    once per device with the arithmetic the per-robot loop always used."""
    t = np.empty((angle_rad.shape[0], 3))
    for k in range(angle_rad.shape[0]):
        t[k, 0] = ring_m[k] * math.cos(angle_rad[k])
        t[k, 1] = ring_m[k] * math.sin(angle_rad[k])
        t[k, 2] = elevation_m[k]
    return t


@njit(cache=True, error_model="numpy")
def illumination_rows(lo, hi, start, bodies, scene, sources, sensors, out):
    """Fill rows ``i − start`` of ``out`` float64[·, K] with each sensor's sum over the visible
    sources within ``range_m`` of ``coef·i²/d²`` (``squared``) or ``coef·i/d²``, for robots
    ``lo … hi − 1`` — the part every light sensor shares; each device applies its own
    transfer (E-Puck2: Eq. 2 with ``coef = γ²``, squared; RVR: lux).

    ``sources`` (:func:`sources`): ``em_reach`` bounds the horizontal distance of any emitter
    from its robot's centre, so the robots whose LEDs can be within range are found in the
    spatial grid, not by a scan; ``lit`` (:func:`lit_robots`) says at once which of them have
    a source at all. ``sensors`` = (body-frame
    offsets of :func:`sensor_offsets`, largest ring radius, range, coef, squared). The robots
    that could block the sight lines towards a static light are gathered from the grid cells
    along the part of it still below ``top_max``, the highest top of any
    body (``nearby.robots_near_segment``); those towards one source robot once per pair (see
    :func:`occluders_near_segment`). Then every sensor × source line is tested against that
    short list and the static shapes near it. Sources are summed in the order they always
    were (static lights, then robots in grid order, emitters in slot order): a float sum
    depends on its order.
    """
    pose, run, radius, height = bodies
    boxes, cylinders, gparams, cell_start, order, _, _, _, _, max_radius = scene
    lights, em_world, em_rgb, em_intensity, em_count, em_reach = sources
    offsets, ring_max, range_m, coef, squared = sensors
    lit = np.empty(em_count.shape[0], dtype=np.bool_)
    any_lit = lit_robots(em_rgb, em_intensity, em_count, lit)
    top_max = _top(pose[2], height)
    x, y, z, yaw = pose[0], pose[1], pose[2], pose[5]
    n = x.shape[0]
    n_sens = offsets.shape[0]
    n_lights = lights.shape[0]
    occ_reach = ring_max + range_m          # every sight line lies within this of the centre
    src_reach = occ_reach + em_reach
    widen_led = max(ring_max, em_reach)
    nb_all = boxes.shape[0]
    nc_all = cylinders.shape[0]
    box_idx = np.empty(nb_all, dtype=np.int64)
    cyl_idx = np.empty(nc_all, dtype=np.int64)
    seg_box = np.empty(nb_all, dtype=np.int64)
    seg_cyl = np.empty(nc_all, dtype=np.int64)
    rob_idx = np.empty(n, dtype=np.int64)
    occ_idx = np.empty(n, dtype=np.int64)
    sx = np.empty(n_sens)
    sy = np.empty(n_sens)
    sz = np.empty(n_sens)
    acc = np.empty(n_sens)
    r2max = range_m * range_m
    for i in range(lo, hi):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        for k in range(n_sens):
            lx = offsets[k, 0]
            ly = offsets[k, 1]
            sx[k] = x[i] + c * lx - s * ly
            sy[k] = y[i] + s * lx + c * ly
            sz[k] = z[i] + offsets[k, 2]
            acc[k] = 0.0
        z_sens = np.inf
        z_sens_hi = -np.inf
        for k in range(n_sens):
            z_sens = min(z_sens, sz[k])
            z_sens_hi = max(z_sens_hi, sz[k])
        nb = -1  # static shapes near the robot: gathered at the first source in range
        nc = 0
        nr = 0  # robots whose lit emitters may be in range: only looked for when some are lit
        if any_lit:
            nr = robots_near(x[i], y[i], src_reach, run[i], i, x, y, radius, max_radius,
                             gparams, cell_start, order, rob_idx)
        # the sources: static lights (few: scanned), then the lit LEDs of the robots of the
        # same run whose emitters can be within range, each robot's in slot order
        for m in range(n_lights + nr):
            j = -1 if m < n_lights else rob_idx[m - n_lights]
            if j < 0:
                if lights[m, 3] <= 0.0 or ((lights[m, 0] - x[i]) ** 2 + (lights[m, 1] - y[i]) ** 2
                                           > occ_reach * occ_reach):
                    continue
            elif not lit[j]:
                continue
            no = -1  # what could hide the source: gathered for its first sensor in range
            nbs = ncs = 0
            for e in range(1 if j < 0 else em_count[j]):
                if j < 0:
                    px, py, pz, inten = lights[m, 0], lights[m, 1], lights[m, 2], lights[m, 3]
                else:
                    inten = em_intensity[j, e]
                    if inten <= 0.0 or (em_rgb[j, e, 0] == 0 and em_rgb[j, e, 1] == 0
                                        and em_rgb[j, e, 2] == 0):
                        continue
                    px, py, pz = em_world[j, e, 0], em_world[j, e, 1], em_world[j, e, 2]
                for k in range(n_sens):
                    d2 = (px - sx[k]) ** 2 + (py - sy[k]) ** 2 + (pz - sz[k]) ** 2
                    if d2 > r2max:
                        continue
                    if no < 0:
                        if nb < 0:
                            nb = boxes_near(x[i], y[i], occ_reach, boxes, box_idx)
                            nc = cylinders_near(x[i], y[i], occ_reach, cylinders, cyl_idx)
                        if j < 0:
                            # A sight line from a sensor passes, at parameter t, within
                            # ring_max of the point at t of the line centre → light. For a light
                            # above every sensor, the sight lines rise: past t = (top − lowest
                            # sensor) / (light − highest sensor) they are above the tallest
                            # body, and no robot can hide the light.
                            f = 1.0
                            if pz > z_sens_hi:
                                f = min(1.0, max(0.0, (top_max - z_sens) / (pz - z_sens_hi))
                                        + 1e-9)
                            no = robots_near_segment(x[i], y[i], x[i] + f * (px - x[i]),
                                                     y[i] + f * (py - y[i]), ring_max, run[i], i,
                                                     x, y, radius, max_radius, gparams,
                                                     cell_start, order, occ_idx)
                            ex, ey, widen, zl = px, py, ring_max, min(z_sens, pz)
                        else:
                            no = occluders_near_segment(x[i], y[i], x[j], y[j], widen_led,
                                                        rob_idx, nr, j, x, y, radius, occ_idx)
                            # emitters sit at any height on their robot: the floor bounds them
                            ex, ey, widen, zl = x[j], y[j], widen_led, 0.0
                        nbs = boxes_near_segment(x[i], y[i], ex, ey, widen, zl, boxes, box_idx,
                                                 nb, seg_box)
                        ncs = cylinders_near_segment(x[i], y[i], ex, ey, widen, zl, cylinders,
                                                     cyl_idx, nc, seg_cyl)
                    if no + nbs + ncs > 0 and hit_candidates(
                            sx[k], sy[k], sz[k], px, py, pz, seg_box, nbs, seg_cyl, ncs, occ_idx,
                            no, boxes, cylinders, x, y, z, radius, height) < _VISIBLE:
                        continue
                    acc[k] += _SATURATING if d2 < 1e-18 else _term(coef, squared, inten, d2)
        for k in range(n_sens):
            out[i - start, k] = acc[k]


@njit(cache=True, error_model="numpy", inline="always")
def _term(coef, squared, inten, d2):
    # (coef·i)·i, not coef·(i·i): the E-Puck2's recorded readings depend on the rounding
    return coef * inten * inten / d2 if squared else coef * inten / d2


@njit(cache=True, error_model="numpy")
def sum_rows(lo, hi, start, bodies, scene, params, keys, tick, state, out):
    """:func:`illumination_rows` as a per-rows kernel: ``params`` = sources + sensors (one
    flat tuple: Numba's parallel loops take no tuple inside a tuple)."""
    illumination_rows(lo, hi, start, bodies, scene, params[:6], params[6:11], out)


parallel_sums = threads.chunked(sum_rows)


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, sums, out):
    """The E-Puck2 light sensors of robots ``lo … hi − 1`` (rows ``i − start``): the sums
    (:func:`illumination_rows` with ``coef = γ²``, squared) into ``sums``, then Eq. 2: noise
    on the sum ``s``, reading ``round(4095 (1 − s))`` clamped. ``params`` = sources + sensors +
    (
    full scale, noise kind, noise level), one flat tuple."""
    full_scale, kind, level = params[11], params[12], params[13]
    illumination_rows(lo, hi, start, bodies, scene, params[:6], params[6:11], sums)
    for row in range(lo - start, hi - start):
        for k in range(sums.shape[1]):
            v = sums[row, k]
            if kind != NOISE_NONE:  # a draw of the "none" model adds 0.0: skip its hashing
                v += draw(kind, level, keys[row], tick, k)
            out[row, k] = min(full_scale, max(0, int(round(full_scale * (1.0 - v)))))


parallel_rows = threads.chunked(rows)


def reading(distances, intensities, *, gamma: float, range_m: float, full_scale: int,
            axis=None):
    """Noise-free Eq. 2 reading (NumPy reference for validations and tests).

    ``distances`` (m) and ``intensities`` broadcast together. With ``axis=None`` every element
    is one sensor seeing one source; with ``axis`` given, the sources along that axis are summed
    into one reading. Sources beyond ``range_m`` or with intensity ≤ 0 add nothing.
    """
    d, i = np.broadcast_arrays(np.asarray(distances, dtype=np.float64),
                               np.asarray(intensities, dtype=np.float64))
    contrib = np.where((d <= range_m) & (i > 0),
                       (gamma * i) ** 2 / np.maximum(d * d, 1e-18), 0.0)
    s = contrib if axis is None else contrib.sum(axis=axis)
    return np.clip(np.round(full_scale * (1.0 - s)), 0, full_scale).astype(np.int64)


def emitter_reach(world) -> float:
    """Largest horizontal distance of an emitter slot from its robot's centre (m)."""
    loc = world.emitters.local
    if loc.size == 0:
        return 0.0
    return float(np.sqrt(loc[..., 0] ** 2 + loc[..., 1] ** 2).max())


@dataclass(frozen=True)
class Light(DeviceBase):
    """Sensors at ``angles_rad`` (CCW from heading) on a ring of ``ring_m`` at ``elevation_m``."""

    angles_rad: tuple
    ring_m: float
    elevation_m: float
    range_m: float
    gamma: float
    full_scale: int
    noise: str = "none"
    noise_level: float = 0.0
    name: str = "light"
    # the runner places and colours emitters only when some device looks at them
    needs_emitters: ClassVar[bool] = True

    def allocate(self, n: int) -> np.ndarray:
        return np.zeros((n, len(self.angles_rad)), dtype=np.int32)

    def make_state(self, n: int):
        return illumination_state(self.angles_rad, self.ring_m, self.elevation_m, n)

    def plan(self, world, group, keys, out, state):
        src = sources(world)
        params = (src + sensors(state, self.range_m, self.gamma * self.gamma, True)
                  + (self.full_scale, NOISE_KINDS[self.noise], self.noise_level))
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys,
                                 state["sums"], out, chunk_items=CHUNK)


def illumination_state(angles_rad, ring_m, elevation_m, n: int) -> dict:
    """Sensor geometry and scratch of :func:`illumination` for ``n`` robots."""
    a = np.asarray(angles_rad, dtype=np.float64)
    ring = np.broadcast_to(np.asarray(ring_m, float), a.shape).copy()
    elev = np.broadcast_to(np.asarray(elevation_m, float), a.shape).copy()
    return {"angle": a, "ring": ring, "elev": elev, "offsets": sensor_offsets(a, ring, elev),
            "ring_max": float(max(0.0, ring.max(initial=0.0))),
            "sums": np.zeros((n, a.shape[0]))}


def sensors(state: dict, range_m: float, coef: float, squared: bool) -> tuple:
    """The ``sensors`` of :func:`illumination_rows` for the geometry in ``state``
    (:func:`illumination_state`) and a source term ``coef·i²/d²`` (``squared``) or
    ``coef·i/d²`` up to ``range_m``."""
    return (state["offsets"], state["ring_max"], float(range_m), float(coef), bool(squared))


def illumination(world, group, state, range_m: float, coef: float, squared: bool) -> np.ndarray:
    """Per robot of ``group`` and sensor: the occlusion-aware source sum of
    :func:`illumination_rows` (float64[n, K], a scratch array of ``state``)."""
    params = sources(world) + sensors(state, range_m, coef, squared)
    threads.rows_plan(sum_rows, parallel_sums, world, group, params, None, None, state["sums"],
                      chunk_items=CHUNK)()
    return state["sums"]
