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
from numba import njit, prange

from swarmstack import jit, threads

from swarmstack.geometry.nearby import boxes_near, cylinders_near, robots_near_segment
from swarmstack.geometry.rays import hit_candidates
from swarmstack.sensors.light import (_VISIBLE, _any, _top, emitter_reach, lit_robots,
                                      occluders_near_segment, serial_emitter_arrays)
from swarmstack.sensors.noise import NOISE_KINDS, NOISE_NONE, draw
from swarmstack.world.rng import STREAM

BLOB_FIELDS = ("col_px", "row_px", "r", "g", "b")


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


# robots per work item of the parallel kernels (the result does not depend on it)
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
    ny = int(gparams[4])
    cell = gparams[2]
    base = run[i] * nx * ny
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
    gx0 = max(0, min(nx - 1, int(math.floor((x_lo - gparams[0]) / cell))))
    gx1 = max(0, min(nx - 1, int(math.floor((x_hi - gparams[0]) / cell))))
    gy0 = max(0, min(ny - 1, int(math.floor((y_lo - gparams[1]) / cell))))
    gy1 = max(0, min(ny - 1, int(math.floor((y_hi - gparams[1]) / cell))))
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


@njit(cache=True, error_model="numpy")
def camera_rows(lo, hi, start, pose, run, radius, height, boxes, cylinders,
                gparams, cell_start, order, max_radius,
                lights, light_rgb, em_world, em_rgb, em_count, lit, any_lit, top_max, em_reach,
                cam, width, height_px, owner_occludes, kind, level, keys, stream, tick, used,
                out):
    """Fill rows ``i − start`` of ``out`` float64[·, max_blobs, 5] for robots
    ``lo … hi − 1``; ``cam`` = (x, y, z of the camera in the body frame, focal length px,
    range m). ``used`` int64[·]: how many blob rows of each robot's reading are not −1 (at
    most that many are cleared; set to the new count), so a robot that saw 2 blobs last
    time rewrites 2 rows, not all ``max_blobs``.

    A light in the image is tested against the robots along its sight line (from the grid
    cells under it: ``nearby.robots_near_segment``) and the nearby static shapes; for a light
    above the camera only along the part of the line below ``top_max``, the highest top of
    any body, since no robot can hide it past there. The robots of
    the viewing wedge (:func:`_gather`) are only gathered when some robot has a lit emitter,
    and only the lit ones (``lit``) are looked at as targets: for each target with an emitter
    in the image, the robots that could hide it are gathered once (see
    ``light.occluders_near_segment``) and every emitter's sight line is tested against that
    short list and the nearby static shapes.
    Pixel noise (``kind``, ``level`` px) is drawn per robot from its camera stream.
    """
    x = pose[0]
    y = pose[1]
    z = pose[2]
    yaw = pose[5]
    n = x.shape[0]
    cap = out.shape[1]
    cam_x = cam[0]
    cam_y = cam[1]
    cam_z = cam[2]
    f_px = cam[3]
    range_m = cam[4]
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
    jitter = kind != NOISE_NONE and level > 0.0
    for i in range(lo, hi):
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        px0 = x[i] + c * cam_x - s * cam_y
        py0 = y[i] + s * cam_x + c * cam_y
        pz0 = z[i] + cam_z
        nb = -1  # static shapes: gathered on first need
        nc = 0
        nw = 0
        if any_lit:  # the wedge's robots: targets, and what could hide them
            nb = boxes_near(px0, py0, range_m, boxes, box_idx)
            nc = cylinders_near(px0, py0, range_m, cylinders, cyl_idx)
            nw = _gather(i, x, y, run, radius, max_radius, gparams, cell_start, order, px0,
                         py0, c, s, sh, ch, occ_reach + em_reach, em_reach, rob_idx)
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
            if nb < 0:
                nb = boxes_near(px0, py0, range_m, boxes, box_idx)
                nc = cylinders_near(px0, py0, range_m, cylinders, cyl_idx)
            f = 1.0
            if tz > pz0:  # a rising sight line: above every body past f
                f = min(1.0, max(0.0, (top_max - pz0) / (tz - pz0)) + 1e-9)
            no = robots_near_segment(px0, py0, px0 + f * (tx - px0), py0 + f * (ty - py0), 0.0,
                                     run[i], i, x, y, radius, max_radius, gparams, cell_start,
                                     order, occ_idx)
            if hit_candidates(px0, py0, pz0, tx, ty, tz, box_idx, nb, cyl_idx, nc, occ_idx, no,
                              boxes, cylinders, x, y, z, radius, height) < _VISIBLE:
                continue
            cnt = _keep(math.sqrt(d2), col, row, float(light_rgb[m, 0]),
                        float(light_rgb[m, 1]), float(light_rgb[m, 2]), kd, kf, cnt, cap)
        for q in range(nw):
            j = rob_idx[q]
            if not lit[j]:
                continue
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
        r = i - start
        for m in range(cnt):
            for f in range(5):
                out[r, m, f] = kf[idx[m], f]
        for m in range(cnt, min(cap, used[r])):
            for f in range(5):
                out[r, m, f] = -1.0
        used[r] = cnt
        if jitter:
            key = keys[r, stream]
            for m in range(cnt):
                col = out[r, m, 0] + draw(kind, level, key, tick, 2 * m)
                row = out[r, m, 1] + draw(kind, level, key, tick, 2 * m + 1)
                out[r, m, 0] = min(width - 1.0, max(0.0, col))
                out[r, m, 1] = min(height_px - 1.0, max(0.0, row))


@njit(cache=True, error_model="numpy")
def sense_serial(start, stop, pose, run, radius, height, boxes, cylinders, gparams, cell_start,
                 order, max_radius, lights, light_rgb, em_world, em_rgb, em_intensity, em_count,
                 em_reach, cam, width, height_px, owner_occludes, kind, level, keys, stream,
                 tick, used, out):
    """The camera of robots ``start … stop − 1`` in one call (blobs and pixel noise);
    ``used`` as in :func:`camera_rows`."""
    lit = np.empty(em_count.shape[0], dtype=np.bool_)
    lit_robots(em_rgb, em_intensity, em_count, False, lit)
    camera_rows(start, stop, start, pose, run, radius, height, boxes, cylinders, gparams,
                cell_start, order, max_radius, lights, light_rgb, em_world, em_rgb, em_count,
                lit, _any(lit), _top(pose[2], height), em_reach, cam, width, height_px,
                owner_occludes, kind, level, keys, stream, tick, used, out)


@njit(cache=True, error_model="numpy", parallel=True)
def sense_parallel(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                   cell_start, order, max_radius, lights, light_rgb, em_world, em_rgb,
                   em_intensity, em_count, em_reach, cam, width, height_px, owner_occludes, kind,
                   level, keys, stream, tick, used, out):
    """:func:`sense_serial` over chunks of robots on all threads (the same result)."""
    lit = np.empty(em_count.shape[0], dtype=np.bool_)
    lit_robots(em_rgb, em_intensity, em_count, False, lit)
    any_lit = _any(lit)
    top_max = _top(pose[2], height)
    n_chunks = (stop - start + CHUNK - 1) // CHUNK
    for ch in prange(n_chunks):
        lo = start + ch * CHUNK
        camera_rows(lo, min(stop, lo + CHUNK), start, pose, run, radius, height, boxes,
                    cylinders, gparams, cell_start, order, max_radius, lights, light_rgb,
                    em_world, em_rgb, em_count, lit, any_lit, top_max, em_reach, cam, width,
                    height_px, owner_occludes, kind, level, keys, stream, tick, used, out)


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
class Camera:
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
    scalar: bool = False
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
        px, py, pz = (float(v) for v in self.position_m)
        # "used": blob rows per robot that may hold a blob; the full count at first, as the
        # reading array handed in may hold anything
        return {"reach": None, "cam": np.array([px, py, pz, self.focal_px, self.range_m]),
                "used": np.full(n, self.max_blobs, dtype=np.int64)}

    def update(self, world, group, keys, out, state) -> None:
        if state["reach"] is None:
            state["reach"] = emitter_reach(world)
        b = world.bodies
        em = world.emitters
        arena = world.arena
        kernel = sense_parallel if threads.go_parallel(group.stop - group.start) else sense_serial
        kernel(group.start, group.stop, b.pose, b.run, b.radius, b.height, arena.boxes,
               arena.cylinders, world.grid, world.cell_start, world.order, world.max_radius,
               arena.lights, arena.light_rgb, em.world, em.rgb, em.intensity, em.count,
               state["reach"], state["cam"], int(self.width_px), int(self.height_px),
               bool(self.owner_occludes), NOISE_KINDS[self.noise], float(self.noise_level),
               keys, STREAM["camera"], world.tick, state["used"], out)
        if self.grey:
            to_grey(out)

    def bind(self, world, group, keys, out, state):
        """:meth:`update` as a call without arguments (``device.serial_arrays``)."""
        head = serial_emitter_arrays(world, group, state)
        if head is None:
            return None
        start, stop, pose, run, radius, height, boxes, cylinders, gparams, max_radius = head
        em = world.emitters
        arena = world.arena
        lights, light_rgb, em_world, em_rgb, em_intensity, em_count = (
            arena.lights, arena.light_rgb, em.world, em.rgb, em.intensity, em.count)
        reach, cam, width, height_px = (state["reach"], state["cam"], int(self.width_px),
                                        int(self.height_px))
        occludes, kind, level = (bool(self.owner_occludes), NOISE_KINDS[self.noise],
                                 float(self.noise_level))
        stream, used = STREAM["camera"], state["used"]
        kernel = jit.compiled(sense_serial, start, stop, pose, run, radius, height, boxes,
                              cylinders, gparams, world.cell_start, world.order, max_radius,
                              lights, light_rgb, em_world, em_rgb, em_intensity, em_count, reach,
                              cam, width, height_px, occludes, kind, level, keys, stream,
                              world.tick, used, out)
        grey = self.grey

        def update_bound():
            kernel(start, stop, pose, run, radius, height, boxes, cylinders, gparams,
                   world.cell_start, world.order, max_radius, lights, light_rgb, em_world,
                   em_rgb, em_intensity, em_count, reach, cam, width, height_px, occludes, kind,
                   level, keys, stream, world.tick, used, out)
            if grey:
                to_grey(out)
        return update_bound
