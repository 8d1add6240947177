"""Numba kernels of the range-and-bearing medium (see :mod:`swarmstack.media.rab`).

A tick is three calls:

``prepare``
    which robots emit (radio present, enabled, a frame of at most their cap), per-run counts
    of frames sent and refused, and the largest range among each run's emitters (how far a
    receiver of that run has to look).
``receive_rows`` (and its parallel form ``parallel_receive``)
    for every receiver, the senders it hears. A first pass walks the grid cells within its
    run's largest range and keeps the senders of the receiver's payload size (unless sizes
    may mix) closer than their own range (3-D distance between antennas); sorted by body
    index, a second pass tests their sight lines against static shapes (and robots), draws
    the drops and measures distance and bearings; then come the capacity and the
    measurement noise. Each receiver writes only its own slot of
    ``slot_cap`` rows, so the result depends neither on the order receivers are visited in
    nor on the number of threads. A receiver with more than ``slot_cap`` senders in range
    only reports how many; the caller retries with larger slots.
``finish``
    the receivers' slots packed into CSR arrays, per-run delivered/dropped counts, the frames
    copied out of the outbox and the outbox sizes reset for the next tick.

Random draws are counter-based hashes (``world.rng``) of the receiver's key, the tick and a
channel made of the sender's robot id: ``uniform01(key, tick, 2 (4 id + 0))`` for the drop and
``gaussian(key, tick, 4 id + c)`` (which uses uniform channels ``8 id + 2c`` and ``8 id + 2c +
1``) for range (c = 1), azimuth (c = 2) and elevation (c = 3) noise: no two draws share a
channel, and a draw depends on nothing but (receiver, tick, sender).
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.geometry.grid import cell_span, cell_xy
from swarmstack.geometry.rays import box_interval, disk_interval, hit_robots
from numba import njit
from swarmstack.sim import threads
from swarmstack.world.rng import gaussian, uniform01

CH_DROP = 0
CH_RANGE = 1
CH_AZIMUTH = 2
CH_ELEVATION = 3
CHANNELS_PER_SENDER = 4

# the fewest receivers per work item of the parallel kernel (``threads.spread``; the result
# does not depend on it)
CHUNK = 64


@njit(cache=True, error_model="numpy")
def prepare(out_size, enabled, range_m, payload_bytes, run, n_runs, emits, reach, sent,
            refused, max_bytes):
    """Fill ``emits`` (bool[N]) and ``reach`` (float64[n_runs]); add this tick's frames to the
    per-run ``sent``, ``refused`` and ``max_bytes`` counters."""
    for r in range(n_runs):
        reach[r] = 0.0
    for i in range(out_size.shape[0]):
        ok = enabled[i] and range_m[i] > 0.0 and out_size[i] >= 0
        r = run[i]
        if ok and out_size[i] > payload_bytes[i]:
            refused[r] += 1  # a real radio refuses a frame longer than it can carry
            ok = False
        emits[i] = ok
        if ok:
            sent[r] += 1
            if out_size[i] > max_bytes[r]:
                max_bytes[r] = out_size[i]
            if range_m[i] > reach[r]:
                reach[r] = range_m[i]


@njit(cache=True, error_model="numpy")
def _sort_slot(lo, hi, by_distance, snd, dist, az, el):
    """Rows lo…hi-1 sorted by sender index, or by (distance, sender)."""
    order = np.argsort(snd[lo:hi], kind="mergesort")
    if by_distance:  # stable: equal distances stay in sender order
        order = order[np.argsort(dist[lo:hi][order], kind="mergesort")]
    snd[lo:hi] = snd[lo:hi][order]
    dist[lo:hi] = dist[lo:hi][order]
    az[lo:hi] = az[lo:hi][order]
    el[lo:hi] = el[lo:hi][order]


@njit(cache=True, error_model="numpy")
def static_blocked(x0, y0, z0, x1, y1, z1, items, aabb, boxes, cylinders):
    """Whether the segment between two antennas crosses one of the static shapes ``items``
    (box k, or cylinder k − B): the bounding boxes of their footprints ``aabb`` reject most
    at once, the rest get the rule of ``geometry.rays`` for prisms standing on the floor."""
    dx = x1 - x0
    dy = y1 - y0
    dz = z1 - z0
    sx0 = min(x0, x1)
    sx1 = max(x0, x1)
    sy0 = min(y0, y1)
    sy1 = max(y0, y1)
    nb = boxes.shape[0]
    for k in items:
        if sx1 < aabb[k, 0] or sx0 > aabb[k, 2] or sy1 < aabb[k, 1] or sy0 > aabb[k, 3]:
            continue
        if k < nb:
            ta, tb = box_interval(x0, y0, dx, dy, boxes[k, 0], boxes[k, 1], boxes[k, 2],
                                  boxes[k, 3], boxes[k, 6], boxes[k, 7])
            top = boxes[k, 5]
        else:
            c = k - nb
            ta, tb = disk_interval(x0, y0, dx, dy, cylinders[c, 0], cylinders[c, 1],
                                   cylinders[c, 2])
            top = cylinders[c, 3]
        # whether the segment's z lies in [0, top] for some t in [ta, tb] ∩ [0, 1]
        ta = max(ta, 0.0)
        tb = min(tb, 1.0)
        za = z0 + ta * dz
        zb = z0 + tb * dz
        if ta <= tb and min(za, zb) <= top and max(za, zb) >= 0.0:
            return True
    return False


@njit(cache=True, error_model="numpy", inline="always")
def cell_statics(occlusion, gparams, static_start, static_items, x, y):
    """The static shapes any sight line from (x, y) may cross: those listed for its grid cell
    (none without ``occlusion``)."""
    if not occlusion:
        return static_items[:0]
    gx, gy = cell_xy(gparams, x, y)
    c = gy * int(gparams[3]) + gx
    return static_items[static_start[c]:static_start[c + 1]]


@njit(cache=True, error_model="numpy", inline="always")
def receiver_frame(roll, pitch, yaw):
    """The rows of R^T, R = Rz(yaw) Ry(pitch) Rx(roll) (ZYX) the receiver's orientation: a
    world vector in its frame is (m0·v, m1·v, m2·v). cos 0 = 1 and sin 0 = 0 exactly: ground
    robots skip four calls, same result."""
    cy = math.cos(yaw)
    sy = math.sin(yaw)
    cp, sp = (1.0, 0.0) if pitch == 0.0 else (math.cos(pitch), math.sin(pitch))
    cr, sr = (1.0, 0.0) if roll == 0.0 else (math.cos(roll), math.sin(roll))
    return (cy * cp, sy * cp, -sp, cy * sp * sr - sy * cr, sy * sp * sr + cy * cr, cp * sr,
            cy * sp * cr + sy * sr, sy * sp * cr - cy * sr, cp * cr)


@njit(cache=True, error_model="numpy")
def receive_rows(lo, hi, tick, emits, reach, x, y, z, roll, pitch, yaw, run, robot_id,
                   radius, height, range_m, antenna_m, payload_bytes, mixed_sizes, drop,
                   range_noise, bearing_noise, capacity, keys, occlusion, robots_occlude, boxes,
                   cylinders, aabb, static_start, static_items, gparams, cell_start, order,
                   max_radius, max_top, slot_cap, snd, dist, az, el, kept, lost, found):
    """Receivers ``lo … hi-1``: fill their slot rows ``j * slot_cap …`` and
    ``kept/lost/found[j]``.

    Bodies: pose ``x … yaw``, ``run``, ``robot_id``, ``radius``, ``height`` (float64[N] or
    int64[N]) and the radio parameters per body (``mixed_sizes``: senders of another
    ``payload_bytes`` are heard too); ``emits``/``reach`` from :func:`prepare`.
    Static shapes: ``boxes`` [B, 8], ``cylinders`` [C, 4], ``aabb`` float64[B + C, 4] their
    footprints' bounding boxes, and ``static_start``/``static_items`` a CSR list per grid cell
    of the shapes (boxes 0 … B-1, cylinders B + k) within the largest range of the cell.
    Robots: the grid ``gparams, cell_start, order``, ``max_radius`` and ``max_top`` (the
    highest body top, z + height). Slots: ``slot_cap`` rows per receiver in ``snd, dist, az,
    el``; per receiver ``kept``, ``lost`` (drops, capacity) and ``found``.

    One loop with no call per receiver or per pair on the common path: passing arrays to a
    Numba function (inlined or not) costs reference counting that would outweigh a
    receiver's work."""
    nx = int(gparams[3])
    ny = int(gparams[4])
    for j in range(lo, hi):
        kept[j] = 0
        lost[j] = 0
        found[j] = 0
        if range_m[j] <= 0.0:
            continue  # no radio: hears nothing
        rj = run[j]
        rch = reach[rj]
        if rch <= 0.0:
            continue  # nobody of this run emits
        xj = x[j]
        yj = y[j]
        zj = z[j] + antenna_m[j]
        m00, m01, m02, m10, m11, m12, m20, m21, m22 = receiver_frame(roll[j], pitch[j], yaw[j])
        statics = cell_statics(occlusion, gparams, static_start, static_items, xj, yj)
        p_drop = drop[j]
        key = keys[j]
        size_j = payload_bytes[j]
        base = j * slot_cap
        n = 0
        n_lost = 0
        gx0, gx1, gy0, gy1 = cell_span(gparams, xj, yj, rch)
        run_base = rj * nx * ny
        for gy in range(gy0, gy1 + 1):
            row = run_base + gy * nx  # a grid row of the block is one contiguous run of `order`
            for s in range(cell_start[row + gx0], cell_start[row + gx1 + 1]):
                i = order[s]
                if i == j or not emits[i]:
                    continue
                if not mixed_sizes and payload_bytes[i] != size_j:
                    continue  # ARGoS links equal message sizes only
                dx = x[i] - xj
                dy = y[i] - yj
                zi = z[i] + antenna_m[i]
                dz = zi - zj
                r_i = range_m[i]
                d2 = dx * dx + dy * dy + dz * dz
                if d2 > r_i * r_i * 1.0000001:
                    continue
                d = math.sqrt(d2)
                if d >= r_i:
                    continue  # the sender's range decides, strictly (as ARGoS)
                if n < slot_cap:
                    snd[base + n] = i
                n += 1
        found[j] = n
        if n > slot_cap:
            continue  # the caller retries with larger slots
        # senders in body order (insertion sort, written out: a function taking the array
        # would cost reference counting per receiver)
        for p in range(base + 1, base + n):
            s0 = snd[p]
            q = p
            while q > base and snd[q - 1] > s0:
                snd[q] = snd[q - 1]
                q -= 1
            snd[q] = s0
        # second pass over the senders in range, in order: sight line, drop, measurements
        # (apart from the grid walk, which stays a tight loop)
        kept_n = 0
        for q in range(base, base + n):
            i = snd[q]
            dx = x[i] - xj
            dy = y[i] - yj
            zi = z[i] + antenna_m[i]
            dz = zi - zj
            # (a call: array arguments passed into inlined code cost reference counting on
            # every pair, even when unused)
            if statics.shape[0] > 0 and static_blocked(xj, yj, zj, x[i], y[i], zi, statics, aabb,
                                                       boxes, cylinders):
                continue
            # a line above every robot's top cannot be blocked by one
            if robots_occlude and min(zi, zj) <= max_top:
                if hit_robots(xj, yj, zj, x[i], y[i], zi, rj, j, i, x, y, z, radius, height,
                              gparams, cell_start, order, max_radius) <= 1.0:
                    continue
            if p_drop > 0.0:
                if uniform01(key, tick, 2 * (CHANNELS_PER_SENDER * robot_id[i] + CH_DROP)) \
                        < p_drop:
                    n_lost += 1
                    continue
            bx = m00 * dx + m01 * dy + m02 * dz
            by = m10 * dx + m11 * dy + m12 * dz
            bz = m20 * dx + m21 * dy + m22 * dz
            k = base + kept_n
            snd[k] = i
            dist[k] = math.sqrt(dx * dx + dy * dy + dz * dz)  # as in the range test
            az[k] = math.atan2(by, bx)
            # atan2(0, h >= 0) is 0: level antennas skip the call, same result
            el[k] = 0.0 if bz == 0.0 else math.atan2(bz, math.sqrt(bx * bx + by * by))
            kept_n += 1
        n = kept_n
        cap = capacity[j]
        if cap > 0 and n > cap:  # keep the nearest (ties: the lower body index)
            _sort_slot(base, base + n, True, snd, dist, az, el)
            n_lost += n - cap
            n = cap
            _sort_slot(base, base + n, False, snd, dist, az, el)
        sd = range_noise[j]
        sb = bearing_noise[j]
        if sd > 0.0 or sb > 0.0:
            for k in range(base, base + n):
                c0 = CHANNELS_PER_SENDER * robot_id[snd[k]]
                if sd > 0.0:
                    dist[k] = max(0.0, dist[k] + sd * gaussian(key, tick, c0 + CH_RANGE))
                if sb > 0.0:
                    a = az[k] + sb * gaussian(key, tick, c0 + CH_AZIMUTH)
                    if a > math.pi or a < -math.pi:
                        a = math.atan2(math.sin(a), math.cos(a))
                    az[k] = a
                    e = el[k] + sb * gaussian(key, tick, c0 + CH_ELEVATION)
                    el[k] = min(0.5 * math.pi, max(-0.5 * math.pi, e))
        kept[j] = n
        lost[j] = n_lost


parallel_receive = threads.chunked(receive_rows)


@njit(cache=True, error_model="numpy")
def finish(slot_cap, snd, dist, az, el, kept, lost, run, delivered, dropped, emits, outbox,
           out_size, enabled):
    """CSR inbox from the slots, per-run counters, a copy of the frames, outbox sizes reset.

    Returns ``(start, sender, distance, azimuth, elevation, sent, sent_size)``."""
    n = kept.shape[0]
    start = np.empty(n + 1, dtype=np.int64)
    start[0] = 0
    for j in range(n):
        start[j + 1] = start[j] + kept[j]
        delivered[run[j]] += kept[j]
        dropped[run[j]] += lost[j]
    m = start[n]
    sender = np.empty(m, dtype=np.int64)
    distance = np.empty(m)
    azimuth = np.empty(m)
    elevation = np.empty(m)
    for j in range(n):
        src = j * slot_cap
        dst = start[j]
        for k in range(kept[j]):
            sender[dst + k] = snd[src + k]
            distance[dst + k] = dist[src + k]
            azimuth[dst + k] = az[src + k]
            elevation[dst + k] = el[src + k]
    sent = outbox.copy()
    sent_size = np.empty(n, dtype=np.int32)
    for i in range(n):
        sent_size[i] = out_size[i] if emits[i] else -1
        out_size[i] = 0 if enabled[i] else -1
    return start, sender, distance, azimuth, elevation, sent, sent_size
