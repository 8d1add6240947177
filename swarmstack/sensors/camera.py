"""Coloured-blob perspective camera (E-Puck2 front camera, OV7670 at 160×120 px; Crazyflie
AI-deck, Himax HM01B0 at 320×320 px greyscale — ``robots/crazyflie_decks.py``).

Like ARGoS's coloured-blob perspective camera, the device does not render an image: it reports
the lit light sources it can see — the arena's lights and the lit LEDs of *other* robots of the
same run — as blobs ``(column, row, r, g, b)``.

Field of view. The E-Puck2 paper (§4.1.6, Table 4) measures α = 2·atan(y / 2x) from the
separation ``y`` of two objects at the image borders at depth ``x``: 32.1°/29.5° on the robot,
30.0°/30.1° in the plug-in, and chooses α = 30°. ``y`` is the full separation, so 30° is the
*full* horizontal angle (half-angle 15°), even where 30° has been described as a half-angle;
the measured values decide. The vertical field of view follows from the same focal length and
the 4:3 pixel grid (≈ 22.7°), and the range is 1 m.

Projection. With the optical axis along the body's +x from ``position_m`` and a point at
camera-frame (x, y, z), x > 0: ``col = (W−1)/2 − f·y/x`` and ``row = (H−1)/2 − f·z/x`` with
``f = ((W−1)/2) / tan(15°)`` pixels, so a point exactly 15° left of the axis lands on column 0,
15° right on column W−1 (as the plug-in's border LEDs do in the paper's Fig. 9c) and the axis on
the centre ``(W−1)/2`` = 79.5. Coordinates are sub-pixel (float); a point up to half a pixel
outside the grid still lights the border pixel and is reported clamped to it.

A blob is reported when the source is in front of the camera, within range (3-D distance),
inside the image and not occluded: the 3-D sight line camera → source must not meet a wall, an
obstacle or a robot body (the observing robot and, unless ``owner_occludes``, the source's
owner are ignored). Output float64[n, max_blobs, 5], rows sorted by column then row (then
colour) so results do not depend on robot order; unused rows are −1. When more than
``max_blobs`` sources are visible the nearest ``max_blobs`` are kept.

Other cameras are the same device with other parameters: any pixel grid (the focal length comes
from the width and the full horizontal angle; square pixels, so a square image has the same
vertical angle), range and mounting point. A greyscale sensor (``grey=True``) reports each blob's
luma ``round(0.299 r + 0.587 g + 0.114 b)`` (ITU-R BT.601) in all three colour fields: what a
monochrome sensor can tell of a light's colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from numba import njit

from swarmstack.geometry.grid import cell_box
from swarmstack.geometry.nearby import (boxes_near, boxes_near_segment, cylinders_near,
                                        cylinders_near_segment, robots_near_segment)
from swarmstack.sensors.device import DeviceBase
from swarmstack.sensors.light import (_top, lit_robots, occluders_near_segment, sight_blocked,
                                      sources, static_blocked)
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.sim import threads

BLOB_FIELDS = ("col_px", "row_px", "r", "g", "b")


@njit(cache=True, error_model="numpy", inline="always")
def _keep(d, col, row, r, g, b, kd, kf, cnt, cap):
    """Add a blob to the per-robot buffer (distances ``kd``, fields ``kf``: five per blob),
    evicting the farthest when full; returns count."""
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
    kf[5 * slot + 0] = col
    kf[5 * slot + 1] = row
    kf[5 * slot + 2] = r
    kf[5 * slot + 3] = g
    kf[5 * slot + 4] = b
    return cnt


# the fewest robots per work item of the parallel kernels (``threads.spread``; the result does
# not depend on it)
CHUNK = 64
_SLACK_M = 1e-9  # added to the gathering box: covers rounding in the wedge test


@njit(cache=True, error_model="numpy")
def _gather(i, x, y, run, radius, max_radius, gparams, cell_start, order, px0, py0, c, s,
            sh, ch, reach, em_reach, out):
    """The robots the viewing wedge of robot ``i`` may hold (count written to ``out``): those
    of its run whose body comes within ``reach`` of its centre (``nearby.robots_near``'s test)
    and whose disk grown by ``em_reach`` meets the wedge of half-angle (sin, cos) = (sh, ch)
    from the camera at (px0, py0) heading (c, s).

    Only the grid cells under the bounding box of that region are visited, in the grid's
    row-major order, so the list is the same sequence ``robots_near`` followed by the wedge
    filter gives. The region lies in the sector of the wedge widened by the largest grown
    radius ``w``, whose apex is ``w / sin(half)`` behind the camera.
    """
    nx = int(gparams[3])
    base = run[i] * nx * int(gparams[4])
    w = max_radius + em_reach + _SLACK_M
    far = reach + max_radius  # no centre kept lies farther from robot i's centre
    # the disk's box …
    x_lo = x[i] - far
    x_hi = x[i] + far
    y_lo = y[i] - far
    y_hi = y[i] + far
    if sh > 1e-6:  # … cut down to the sector's box
        back = w / sh
        ax = px0 - back * c
        ay = py0 - back * s
        rad = far + math.sqrt((px0 - x[i]) ** 2 + (py0 - y[i]) ** 2) + back + _SLACK_M
        e1x = ax + rad * (c * ch - s * sh)
        e1y = ay + rad * (s * ch + c * sh)
        e2x = ax + rad * (c * ch + s * sh)
        e2y = ay + rad * (s * ch - c * sh)
        bx0 = min(ax, e1x, e2x)
        bx1 = max(ax, e1x, e2x)
        by0 = min(ay, e1y, e2y)
        by1 = max(ay, e1y, e2y)
        lim = ch - 1e-12  # an axis direction inside the wedge pushes the box to the arc
        if c >= lim:
            bx1 = max(bx1, ax + rad)
        if -c >= lim:
            bx0 = min(bx0, ax - rad)
        if s >= lim:
            by1 = max(by1, ay + rad)
        if -s >= lim:
            by0 = min(by0, ay - rad)
        x_lo = max(x_lo, bx0 - _SLACK_M)
        x_hi = min(x_hi, bx1 + _SLACK_M)
        y_lo = max(y_lo, by0 - _SLACK_M)
        y_hi = min(y_hi, by1 + _SLACK_M)
    if x_lo > x_hi or y_lo > y_hi:
        return 0
    gx0, gx1, gy0, gy1 = cell_box(gparams, x_lo, x_hi, y_lo, y_hi)
    m = 0
    for gy in range(gy0, gy1 + 1):
        row = base + gy * nx
        for q in range(cell_start[row + gx0], cell_start[row + gx1 + 1]):
            j = order[q]
            if j == i:
                continue
            dx = x[j] - x[i]
            dy = y[j] - y[i]
            rr = reach + radius[j]
            if dx * dx + dy * dy > rr * rr:
                continue
            dx = x[j] - px0
            dy = y[j] - py0
            lx = c * dx + s * dy
            ly = -s * dx + c * dy
            wj = radius[j] + em_reach
            if lx >= -wj and -sh * lx + ch * ly <= wj and -sh * lx - ch * ly <= wj:
                out[m] = j
                m += 1
    return m


# the camera's float and integer parameters (the last two of the ``params`` of :func:`rows`)
F_CAM_X, F_CAM_Y, F_CAM_Z, F_FOCAL, F_RANGE, F_LEVEL = range(6)
I_WIDTH, I_HEIGHT, I_OWNER_OCCLUDES, I_KIND, I_GREY = range(5)


# robots whose camera poses and light pre-tests are worked out together in rows
BLOCK = 64


@njit(cache=True, error_model="numpy", inline="always")
def _cut(scratch, o, n):
    """``scratch[o:o + n]`` and the offset after it: one allocation serves many lists."""
    return scratch[o:o + n], o + n


@njit(cache=True, error_model="numpy", inline="always")
def _may_see(dx, dy, dz, c, s, f_px, kx, ky, r2, eta):
    """False only for a point (offset from the camera) that :func:`_project` surely rejects:
    behind, out of range, or more than a pixel outside the image (``kx``, ``ky``: the half
    width and height plus 1.5 px, a margin far above the rounding of the exact test). Written
    without branches or divisions: about one point in twenty passes, so a branch per test
    would mostly be mispredicted.

    ``eta`` (m) bounds the error of the camera-frame coordinates when (c, s) and the offset
    are only approximate (:func:`_approx_cos_sin`; 0 when exact); ``r2`` is then the squared
    range grown by it."""
    lx = c * dx + s * dy
    ly = -s * dx + c * dy
    d2 = dx * dx + dy * dy + dz * dz
    lxe = lx + eta
    # as a rejection, so that a NaN is left to the exact test as before; the pixel bounds
    # only where lx is far from underflow
    return not ((lxe <= 0.0) | (d2 > r2)
                | (((abs(f_px * ly) > kx * lxe + abs(f_px) * eta) | (abs(f_px * dz) > ky * lxe))
                   & (lxe >= 1e-100)))


# Cody-Waite split of π/2 (fdlibm's): q·_PIO2_HI is exact for |q| < 2**20
_PIO2_HI = 1.57079632673412561417e+00
_PIO2_LO = 6.07710050650619224932e-11
_YAW_APPROX_MAX = 1e5   # beyond this |yaw| (or NaN) the approximation is not used
# bound on |cos − approx|, |sin − approx| for |yaw| ≤ _YAW_APPROX_MAX (the polynomials are
# good to 1e-11 on [−π/4, π/4]): far above the truth, it only widens the pre-test a little
APPROX_EPS = 1e-9


@njit(cache=True, error_model="numpy", inline="always")
def _approx_cos_sin(a):
    """(cos a, sin a) within :data:`APPROX_EPS`, by polynomials after reduction to
    [−π/4, π/4]: no call and no branch, so a loop over robots runs on vector lanes; NaN for
    a beyond ±_YAW_APPROX_MAX (then every pre-test passes and the exact path decides)."""
    qf = math.floor(a * (2.0 / math.pi) + 0.5)
    r = (a - qf * _PIO2_HI) - qf * _PIO2_LO
    r2 = r * r
    sp = r * (1.0 + r2 * (-1.0 / 6.0 + r2 * (1.0 / 120.0 + r2 * (-1.0 / 5040.0 + r2 * (
        1.0 / 362880.0 + r2 * (-1.0 / 39916800.0))))))
    cp = 1.0 + r2 * (-0.5 + r2 * (1.0 / 24.0 + r2 * (-1.0 / 720.0 + r2 * (1.0 / 40320.0 + r2 * (
        -1.0 / 3628800.0 + r2 * (1.0 / 479001600.0))))))
    ok = abs(a) <= _YAW_APPROX_MAX
    qi = int(qf) & 3 if ok else 0
    # the quadrant by arithmetic, not a switch (which would keep the loop off vector lanes):
    # odd quadrants swap cos and sin, quadrants 1, 2 negate cos, 2, 3 negate sin
    swap = float(qi & 1)
    c = (cp + swap * (sp - cp)) * (1.0 - float((qi + 1) & 2))
    s = (sp + swap * (cp - sp)) * (1.0 - float(qi & 2))
    return (c if ok else np.nan), (s if ok else np.nan)


@njit(cache=True, error_model="numpy")
def rows(lo, hi, start, bodies, scene, params, keys, tick, used, out):
    """Fill rows ``i − start`` of ``out`` float64[·, max_blobs, 5] for robots
    ``lo … hi − 1``. ``params`` = ``light.sources`` without intensities + (the arena lights'
    colours; float64 ``F_*``: x, y, z of the
    camera in the body frame, focal length px, range m, pixel noise level px; int64 ``I_*``:
    width, height px, whether the owner of an emitter hides it, noise kind, grey). ``used``
    int64[·]: how many blob rows of each robot's reading are not −1 (at most that many are
    cleared; set to the new count), so a robot that saw 2 blobs last time rewrites 2 rows,
    not all ``max_blobs``. A grey camera writes each blob's BT.601 luma in r, g and b.

    Every arena light is first put through :func:`_may_see`, a few flops without branches,
    for a block of robots at once and from approximate headings (:func:`_approx_cos_sin`);
    only a robot with a light that may be in view (or any robot, when some LED is lit)
    computes its exact heading, and only the pairs that passed get the exact projection. A
    light in the image is tested against the robots along its sight line (from the grid
    cells under it: ``nearby.robots_near_segment``), for a light above the camera only along
    the part of the line below ``top_max``, the highest top of any body, since no robot can
    hide it past there; then against each wall, box and cylinder (``light.static_blocked``).
    The test stops at the first shape that blocks (``light.sight_blocked``). The robots of the
    viewing wedge (:func:`_gather`) are only gathered when some robot has a lit emitter
    (``any_lit``), and only the lit ones are looked at as targets: for each target with an
    emitter in the image, the robots that could hide it are gathered once (see
    ``light.occluders_near_segment``) and every emitter's sight line is tested against that
    short list and the static shapes near it.
    Pixel noise is drawn per robot from its own key.
    """
    pose, run, radius, height = bodies
    boxes, cylinders, gparams, cell_start, order, _, _, _, _, max_radius = scene
    lights, em_world, em_rgb, em_intensity, em_count, em_reach, light_rgb, cam, ip = params
    lit = np.empty(em_count.shape[0], dtype=np.bool_)
    any_lit = lit_robots(em_rgb, em_intensity, em_count, lit)
    top_max = _top(pose[2], height)
    width = ip[I_WIDTH]
    height_px = ip[I_HEIGHT]
    owner_occludes = ip[I_OWNER_OCCLUDES] != 0
    kind = ip[I_KIND]
    level = cam[F_LEVEL]
    x, y, z, yaw = pose[0], pose[1], pose[2], pose[5]
    n = x.shape[0]
    cap = out.shape[1]
    cam_x = cam[0]
    cam_y = cam[1]
    cam_z = cam[2]
    f_px = cam[3]
    range_m = cam[4]
    cx0 = 0.5 * (width - 1)
    cy0 = 0.5 * (height_px - 1)
    kx = cx0 + 1.5
    ky = cy0 + 1.5
    # half-angle of the image including the half-pixel margin, for the wedge pre-filter
    # (only gathered when some LED is lit)
    sh = ch = 0.0
    if any_lit:
        half = math.atan((cx0 + 0.5) / f_px)
        sh = math.sin(half)
        ch = math.cos(half)
    cam_off = math.sqrt(cam_x * cam_x + cam_y * cam_y)
    occ_reach = cam_off + range_m
    # index lists: boxes and cylinders near the camera, those near one sight line, robots of
    # the wedge, occluders of one sight line, active lights, the pre-test of each (active
    # light, robot of the block) and whether any passed for each robot, sort order
    nb, nc, nl, cap1 = boxes.shape[0], cylinders.shape[0], lights.shape[0], max(cap, 1)
    iscr = np.empty(2 * nb + 2 * nc + 2 * n + nl * (1 + BLOCK) + BLOCK + cap1, dtype=np.int64)
    box_idx, o = _cut(iscr, 0, nb)
    cyl_idx, o = _cut(iscr, o, nc)
    seg_box, o = _cut(iscr, o, nb)
    seg_cyl, o = _cut(iscr, o, nc)
    rob_idx, o = _cut(iscr, o, n)
    occ_idx, o = _cut(iscr, o, n)
    act, o = _cut(iscr, o, nl)
    may, o = _cut(iscr, o, nl * BLOCK)
    looks, o = _cut(iscr, o, BLOCK)
    idx, o = _cut(iscr, o, cap1)
    # the block's camera headings and positions, the kept blobs' distances and fields
    blk = np.empty((5, BLOCK))
    cc, ss, pxs, pys, pzs = blk[0], blk[1], blk[2], blk[3], blk[4]
    kd = np.empty(cap1)
    kf = np.empty(5 * cap1)
    # the arena's lights that are sources (intensity > 0, not black), in order
    n_act = 0
    for m in range(lights.shape[0]):
        if lights[m, 3] > 0.0 and (light_rgb[m, 0] != 0 or light_rgb[m, 1] != 0
                                   or light_rgb[m, 2] != 0):
            act[n_act] = m
            n_act += 1
    r2max = range_m * range_m
    # error bound of the approximate camera frame: APPROX_EPS on cos and sin moves the
    # camera by at most 2·eps·offset and turns a point within range by at most 2·eps·range
    eta = 4.0 * APPROX_EPS * (range_m + abs(cam_x) + abs(cam_y)) + 1e-12
    r2_loose = (range_m + eta) * (range_m + eta)
    jitter = kind != NOISE_NONE and level > 0.0
    for b0 in range(lo, hi, BLOCK):
        b1 = min(hi, b0 + BLOCK)
        # the block's cameras, roughly (:func:`_approx_cos_sin`): only robots with a light
        # that may be in view, or every robot when some LED is lit, pay for the exact ones
        for k in range(b1 - b0):
            i = b0 + k
            c, s = _approx_cos_sin(yaw[i])
            cc[k] = c
            ss[k] = s
            pxs[k] = x[i] + c * cam_x - s * cam_y
            pys[k] = y[i] + s * cam_x + c * cam_y
            pzs[k] = z[i] + cam_z
            looks[k] = 1 if any_lit else 0
        # every (light, robot) pair of the block through the pre-test at once: no branches,
        # so the loop runs on vector lanes
        for q in range(n_act):
            m = act[q]
            tx = lights[m, 0]
            ty = lights[m, 1]
            tz = lights[m, 2]
            row_q = q * BLOCK
            for k in range(b1 - b0):
                v = _may_see(tx - pxs[k], ty - pys[k], tz - pzs[k], cc[k], ss[k], f_px, kx, ky,
                             r2_loose, eta)
                may[row_q + k] = v
                looks[k] |= v
        for k in range(b1 - b0):
            i = b0 + k
            if looks[k] == 0:  # nothing can be in view
                if used[i - start] > 0:
                    _write_row(i - start, 0, kf, idx, used, out, jitter, ip, level, keys, tick)
                continue
            c = math.cos(yaw[i])
            s = math.sin(yaw[i])
            px0 = x[i] + c * cam_x - s * cam_y
            py0 = y[i] + s * cam_x + c * cam_y
            pz0 = z[i] + cam_z
            nb = 0  # static shapes near the camera: gathered for lit emitters
            nc = 0
            nw = 0
            if any_lit:  # the wedge's robots: targets, and what could hide them
                nb = boxes_near(px0, py0, range_m, boxes, box_idx)
                nc = cylinders_near(px0, py0, range_m, cylinders, cyl_idx)
                nw = _gather(i, x, y, run, radius, max_radius, gparams, cell_start, order, px0,
                             py0, c, s, sh, ch, occ_reach + em_reach, em_reach, rob_idx)
            cnt = 0
            for q in range(n_act):
                if may[q * BLOCK + k] == 0:
                    continue
                m = act[q]
                tx = lights[m, 0]
                ty = lights[m, 1]
                tz = lights[m, 2]
                d2, col, row = _project(tx - px0, ty - py0, tz - pz0, c, s, cx0, cy0, f_px,
                                        width, height_px, r2max)
                if d2 < 0.0:
                    continue
                f = 1.0
                if tz > pz0:  # a rising sight line: above every body past f
                    f = min(1.0, max(0.0, (top_max - pz0) / (tz - pz0)) + 1e-9)
                no = robots_near_segment(px0, py0, px0 + f * (tx - px0), py0 + f * (ty - py0),
                                         0.0, run[i], i, x, y, radius, max_radius, gparams,
                                         cell_start, order, occ_idx)
                if sight_blocked(px0, py0, pz0, tx, ty, tz, seg_box, 0, seg_cyl, 0, occ_idx, no,
                                 boxes, cylinders, x, y, z, radius, height):
                    continue
                if static_blocked(px0, py0, pz0, tx, ty, tz, boxes, cylinders):
                    continue
                cnt = _keep(math.sqrt(d2), col, row, float(light_rgb[m, 0]),
                            float(light_rgb[m, 1]), float(light_rgb[m, 2]), kd, kf, cnt, cap)
            for q in range(nw):
                j = rob_idx[q]
                if lit[j] == 0:
                    continue
                no = -1  # occluders of this target: gathered on its first emitter in view
                nbs = ncs = 0
                for e in range(em_count[j]):
                    rr = em_rgb[j, e, 0]
                    gg = em_rgb[j, e, 1]
                    bb = em_rgb[j, e, 2]
                    if rr == 0 and gg == 0 and bb == 0:
                        continue
                    tx = em_world[j, e, 0]
                    ty = em_world[j, e, 1]
                    tz = em_world[j, e, 2]
                    if not _may_see(tx - px0, ty - py0, tz - pz0, c, s, f_px, kx, ky, r2max,
                                    0.0):
                        continue
                    d2, col, row = _project(tx - px0, ty - py0, tz - pz0, c, s, cx0, cy0, f_px,
                                            width, height_px, r2max)
                    if d2 < 0.0:
                        continue
                    if no < 0:
                        no = occluders_near_segment(px0, py0, x[j], y[j], em_reach, rob_idx, nw,
                                                    -1 if owner_occludes else j, x, y, radius,
                                                    occ_idx)
                        # emitters sit at any height on their robot: the floor bounds them
                        nbs = boxes_near_segment(px0, py0, x[j], y[j], em_reach, 0.0, boxes,
                                                 box_idx, nb, seg_box)
                        ncs = cylinders_near_segment(px0, py0, x[j], y[j], em_reach, 0.0,
                                                     cylinders, cyl_idx, nc, seg_cyl)
                    if sight_blocked(px0, py0, pz0, tx, ty, tz, seg_box, nbs, seg_cyl, ncs,
                                     occ_idx, no, boxes, cylinders, x, y, z, radius, height):
                        continue
                    cnt = _keep(math.sqrt(d2), col, row, float(rr), float(gg), float(bb), kd,
                                kf, cnt, cap)
            # (a call that passes arrays costs reference counting: made only when needed)
            if cnt > 0 or used[i - start] > 0:
                _write_row(i - start, cnt, kf, idx, used, out, jitter, ip, level, keys, tick)


@njit(cache=True, error_model="numpy", inline="always")
def _write_row(r, cnt, kf, idx, used, out, jitter, ip, level, keys, tick):
    """The ``cnt`` blobs kept in ``kf`` into row ``r`` of ``out`` (sorted, rows left over
    from the last reading cleared, pixel noise drawn, colours made luma for a grey camera)."""
    width = ip[I_WIDTH]
    height_px = ip[I_HEIGHT]
    kind = ip[I_KIND]
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
    for m in range(cnt):
        for f in range(5):
            out[r, m, f] = kf[5 * idx[m] + f]
    for m in range(cnt, min(out.shape[1], used[r])):
        for f in range(5):
            out[r, m, f] = -1.0
    used[r] = cnt
    if jitter:
        key = keys[r]
        for m in range(cnt):
            col = out[r, m, 0] + draw(kind, level, key, tick, 2 * m)
            row = out[r, m, 1] + draw(kind, level, key, tick, 2 * m + 1)
            out[r, m, 0] = min(width - 1.0, max(0.0, col))
            out[r, m, 1] = min(height_px - 1.0, max(0.0, row))
    # BT.601 luma, in the order the oracle (tests/sensors/oracle/camera.py) computes it
    if ip[I_GREY] != 0:
        for m in range(cnt):
            luma = np.rint(out[r, m, 2] * 0.299 + out[r, m, 3] * 0.587 + out[r, m, 4] * 0.114)
            out[r, m, 2] = luma
            out[r, m, 3] = luma
            out[r, m, 4] = luma


parallel_rows = threads.chunked(rows)


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


@njit(cache=True, error_model="numpy", inline="always")
def _after(kf, a, b):
    """True if blob ``a`` sorts after blob ``b``."""
    for f in range(5):
        if kf[5 * a + f] > kf[5 * b + f]:
            return True
        if kf[5 * a + f] < kf[5 * b + f]:
            return False
    return False


def blobs(readings_row) -> list[tuple[float, float, tuple[int, int, int]]]:
    """One robot's reading float64[max_blobs, 5] → ``[(col, row, (r, g, b)), …]``."""
    rows = np.asarray(readings_row)
    found = []
    for col, row, r, g, b in rows:
        if col < 0:
            break
        found.append((float(col), float(row), (int(r), int(g), int(b))))
    return found


@dataclass(frozen=True)
class Camera(DeviceBase):
    """Blob camera at body-frame ``position_m`` looking along +x; full horizontal ``hfov_deg``;
    ``grey``: a monochrome sensor (blob colours replaced by their luma)."""

    width_px: int
    height_px: int
    hfov_deg: float
    range_m: float
    position_m: tuple[float, float, float]
    max_blobs: int = 64
    owner_occludes: bool = False
    noise: str = "none"          # pixel noise on blob positions; level in px
    noise_level: float = 0.0
    name: str = "camera"
    grey: bool = False
    # the runner places and colours emitters only when some device looks at them
    needs_emitters: ClassVar[bool] = True

    @property
    def focal_px(self) -> float:
        """Focal length in pixels: half the pixel span over tan(half the horizontal FOV)."""
        return 0.5 * (self.width_px - 1) / math.tan(math.radians(self.hfov_deg) / 2)

    @property
    def vfov_deg(self) -> float:
        return 2.0 * math.degrees(math.atan(0.5 * (self.height_px - 1) / self.focal_px))

    def allocate(self, n: int) -> np.ndarray:
        return np.full((n, self.max_blobs, len(BLOB_FIELDS)), -1.0)

    def make_state(self, n: int):
        # blob rows per robot that may hold a blob: the full count at first, as the reading
        # array handed in may hold anything
        return np.full(n, self.max_blobs, dtype=np.int64)

    def plan(self, world, group, keys, out, state):
        src = sources(world, intensity=False)
        px, py, pz = (float(v) for v in self.position_m)
        cam = np.array([px, py, pz, self.focal_px, self.range_m, float(self.noise_level)])
        ip = np.array([self.width_px, self.height_px, bool(self.owner_occludes),
                       NOISE_KINDS[self.noise], bool(self.grey)], dtype=np.int64)
        params = src + (world.arena.light_rgb, cam, ip)
        return threads.rows_plan(rows, parallel_rows, world, group, params, keys, state, out,
                                 chunk_items=CHUNK)
