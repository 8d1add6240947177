"""Frozen copy of the blob-camera kernel (``swarmstack/sensors/camera.py``) as it was before
the sensing kernels were rebuilt for speed: the oracle of the property tests.
"""

from __future__ import annotations

import math
import numpy as np
from numba import njit

from .nearby import boxes_near, cylinders_near, robots_near
from .rays import hit_candidates
from .light import _VISIBLE, emitter_reach, occluders_near_segment
from swarmstack.sensors.noise import NOISE_KINDS, draw
from swarmstack.world.rng import FIXED_WORDS as STREAM  # the old stream columns

@njit(cache=True, error_model="numpy", inline="always")
def _keep(d, col, row, r, g, b, kd, kf, cnt, cap):
    """Add a blob to the per-robot buffer, evicting the farthest when full; returns count."""
    if cnt < cap:
        slot = cnt
        cnt += 1
    else:
        slot = 0
        for m in range(1, cap):
            if kd[m] > kd[slot]:
                slot = m
        if d >= kd[slot]:
            return cnt
    kd[slot] = d
    kf[slot, 0] = col
    kf[slot, 1] = row
    kf[slot, 2] = r
    kf[slot, 3] = g
    kf[slot, 4] = b
    return cnt


@njit(cache=True, error_model="numpy")
def camera_kernel(start, stop, x, y, z, yaw, run, radius, height, boxes, cylinders,
                  gparams, cell_start, order, max_radius,
                  lights, light_rgb, em_world, em_rgb, em_count, em_reach,
                  cam_x, cam_y, cam_z, width, height_px, f_px, range_m, owner_occludes, out):
    """Fill ``out`` float64[stop − start, max_blobs, 5] for robots ``start … stop − 1``.

    Robots near the viewing wedge are gathered once per observer (from the spatial grid); for
    each target robot with an emitter in the image, the robots that could hide it are gathered
    once (see ``light.occluders_near_segment``) and every emitter's sight line is tested against
    that short list and the nearby static shapes.
    """
    n = x.shape[0]
    cap = out.shape[1]
    cx0 = 0.5 * (width - 1)
    cy0 = 0.5 * (height_px - 1)
    # half-angle of the image including the half-pixel margin, for the wedge pre-filter
    half = math.atan((cx0 + 0.5) / f_px)
    sh = math.sin(half)
    ch = math.cos(half)
    cam_off = math.sqrt(cam_x * cam_x + cam_y * cam_y)
    occ_reach = cam_off + range_m
    box_idx = np.empty(boxes.shape[0], dtype=np.int64)
    cyl_idx = np.empty(cylinders.shape[0], dtype=np.int64)
    rob_idx = np.empty(n, dtype=np.int64)
    occ_idx = np.empty(n, dtype=np.int64)
    kd = np.empty(max(cap, 1))
    kf = np.empty((max(cap, 1), 5))
    idx = np.empty(max(cap, 1), dtype=np.int64)
    r2max = range_m * range_m
    for i in range(start, stop):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        px0 = x[i] + c * cam_x - s * cam_y
        py0 = y[i] + s * cam_x + c * cam_y
        pz0 = z[i] + cam_z
        nb = boxes_near(px0, py0, range_m, boxes, box_idx)
        nc = cylinders_near(px0, py0, range_m, cylinders, cyl_idx)
        nr = robots_near(x[i], y[i], occ_reach + em_reach, run[i], i, x, y, radius, max_radius,
                         gparams, cell_start, order, rob_idx)
        # keep the robots whose disk, grown by the emitter reach, meets the viewing wedge
        nw = 0
        for q in range(nr):
            j = rob_idx[q]
            dx = x[j] - px0
            dy = y[j] - py0
            lx = c * dx + s * dy
            ly = -s * dx + c * dy
            w = radius[j] + em_reach
            if lx >= -w and -sh * lx + ch * ly <= w and -sh * lx - ch * ly <= w:
                rob_idx[nw] = j
                nw += 1
        cnt = 0
        for m in range(lights.shape[0]):
            if lights[m, 3] <= 0.0:
                continue
            if light_rgb[m, 0] == 0 and light_rgb[m, 1] == 0 and light_rgb[m, 2] == 0:
                continue
            tx = lights[m, 0]
            ty = lights[m, 1]
            tz = lights[m, 2]
            d2, col, row = _project(tx - px0, ty - py0, tz - pz0, c, s, cx0, cy0, f_px, width,
                                    height_px, r2max)
            if d2 < 0.0:
                continue
            no = occluders_near_segment(px0, py0, tx, ty, 0.0, rob_idx, nw, -1, x, y, radius,
                                        occ_idx)
            if hit_candidates(px0, py0, pz0, tx, ty, tz, box_idx, nb, cyl_idx, nc, occ_idx, no,
                              boxes, cylinders, x, y, z, radius, height) < _VISIBLE:
                continue
            cnt = _keep(math.sqrt(d2), col, row, float(light_rgb[m, 0]),
                        float(light_rgb[m, 1]), float(light_rgb[m, 2]), kd, kf, cnt, cap)
        for q in range(nw):
            j = rob_idx[q]
            no = -1  # occluders of this target: gathered on its first emitter in view
            for e in range(em_count[j]):
                rr = em_rgb[j, e, 0]
                gg = em_rgb[j, e, 1]
                bb = em_rgb[j, e, 2]
                if rr == 0 and gg == 0 and bb == 0:
                    continue
                tx = em_world[j, e, 0]
                ty = em_world[j, e, 1]
                tz = em_world[j, e, 2]
                d2, col, row = _project(tx - px0, ty - py0, tz - pz0, c, s, cx0, cy0, f_px,
                                        width, height_px, r2max)
                if d2 < 0.0:
                    continue
                if no < 0:
                    no = occluders_near_segment(px0, py0, x[j], y[j], em_reach, rob_idx, nw,
                                                -1 if owner_occludes else j, x, y, radius,
                                                occ_idx)
                if hit_candidates(px0, py0, pz0, tx, ty, tz, box_idx, nb, cyl_idx, nc, occ_idx,
                                  no, boxes, cylinders, x, y, z, radius, height) < _VISIBLE:
                    continue
                cnt = _keep(math.sqrt(d2), col, row, float(rr), float(gg), float(bb), kd, kf,
                            cnt, cap)
        # deterministic order: by column, then row, then colour
        for m in range(cnt):
            idx[m] = m
        for a in range(1, cnt):
            v = idx[a]
            b2 = a - 1
            while b2 >= 0 and _after(kf, idx[b2], v):
                idx[b2 + 1] = idx[b2]
                b2 -= 1
            idx[b2 + 1] = v
        for m in range(cap):
            for f in range(5):
                out[i - start, m, f] = kf[idx[m], f] if m < cnt else -1.0


@njit(cache=True, error_model="numpy", inline="always")
def _project(dx, dy, dz, c, s, cx0, cy0, f_px, width, height_px, r2max):
    """(d², col, row) of a world offset from the camera, or d² = −1 when not in the image."""
    d2 = dx * dx + dy * dy + dz * dz
    if d2 > r2max:
        return -1.0, 0.0, 0.0
    lx = c * dx + s * dy
    if lx <= 0.0:
        return -1.0, 0.0, 0.0
    ly = -s * dx + c * dy
    col = cx0 - f_px * ly / lx
    row = cy0 - f_px * dz / lx
    if col < -0.5 or col > width - 0.5 or row < -0.5 or row > height_px - 0.5:
        return -1.0, 0.0, 0.0
    return d2, min(width - 1.0, max(0.0, col)), min(height_px - 1.0, max(0.0, row))


@njit(cache=True, error_model="numpy")
def _jitter(out, kind, level, keys, tick, width, height_px):
    """Pixel noise on every reported blob (level in px), clamped to the image."""
    for i in range(out.shape[0]):
        for m in range(out.shape[1]):
            if out[i, m, 0] < 0.0:
                break
            col = out[i, m, 0] + draw(kind, level, keys[i], tick, 2 * m)
            row = out[i, m, 1] + draw(kind, level, keys[i], tick, 2 * m + 1)
            out[i, m, 0] = min(width - 1.0, max(0.0, col))
            out[i, m, 1] = min(height_px - 1.0, max(0.0, row))


def to_grey(out) -> None:
    """Blobs of ``out`` float64[n, max_blobs, 5] → their BT.601 luma in r, g and b, in place."""
    seen = out[..., 0] >= 0.0
    luma = np.rint(out[..., 2] * 0.299 + out[..., 3] * 0.587 + out[..., 4] * 0.114)
    for f in (2, 3, 4):
        out[..., f] = np.where(seen, luma, out[..., f])


@njit(cache=True, error_model="numpy", inline="always")
def _after(kf, a, b):
    """True if blob ``a`` sorts after blob ``b``."""
    for f in range(5):
        if kf[a, f] > kf[b, f]:
            return True
        if kf[a, f] < kf[b, f]:
            return False
    return False


def camera(dev, world, group, keys, out):
    """``Camera.update`` as it was: ``dev`` a ``Camera``."""
    reach = emitter_reach(world)
    b = world.bodies
    em = world.emitters
    arena = world.arena
    px, py, pz = dev.position_m
    camera_kernel(group.start, group.stop, b.x, b.y, b.z, b.yaw, b.run, b.radius, b.height,
                  arena.boxes, arena.cylinders, world.grid, world.cell_start, world.order,
                  world.max_radius, arena.lights, arena.light_rgb, em.world, em.rgb,
                  em.count, reach, float(px), float(py), float(pz),
                  int(dev.width_px), int(dev.height_px), dev.focal_px,
                  float(dev.range_m), bool(dev.owner_occludes), out)
    if dev.noise != "none" and dev.noise_level > 0.0:
        _jitter(out, NOISE_KINDS[dev.noise], dev.noise_level, keys[:, STREAM["camera"]],
                world.tick, float(dev.width_px), float(dev.height_px))
    if dev.grey:
        to_grey(out)
