"""What a receiver heard, summed: per body the number of robots heard and the attraction vector
``Σ (1/(1 + per_m·d), ∠bearing)`` over them — all a controller needs that only counts
neighbours and moves towards or away from them (AutoMoDe's Chocolate modules).

``sums_small_runs``
    the definition, straight from the bodies: for every receiver, the bodies of its run in
    body order (``run_start``/``run_bodies``, CSR per run, each run's bodies sorted), each
    tested and measured with the arithmetic of ``rab_kernels.receive_rows`` (payload size,
    range, sight line past static shapes and robots, drop, distance, noise) and added to the
    sums in that order — the order of the inbox. An exact bearing enters as the unit vector
    towards the sender in the receiver's frame (no atan2, no sin/cos: the kernel's largest
    cost); a noisy one as the angle, drawn and wrapped as the full delivery draws it. No grid
    walk, no sort, no slots, no packing: for runs of a few tens of robots a receiver looks at
    every robot of its run faster than it walks the grid. Robots that occlude are tested one
    by one among the bodies of the run (the exact test of the grid walk of
    ``geometry.rays.hit_robots``). It cannot do what only changes *which* receptions are kept
    among many (a receiver's ``capacity``).
``sums_from_inbox``
    the same sums from a full :class:`~swarmstack.media.rab.Inbox` (its receptions in sender
    order, bearings as angles), for the configurations the other cannot serve (a receiver
    capacity, runs of more than ``SUMS_MAX_RUN_BODIES`` bodies, readers asking for different
    scales): the same receptions and counts, the vector equal to within rounding (bit for bit
    when bearings are noisy).
"""

from __future__ import annotations

import math

import numpy as np

from swarmstack.geometry.rays import _disk_hit
from numba import njit
from swarmstack.media.rab_kernels import CH_AZIMUTH, CH_DROP, CH_RANGE, CHANNELS_PER_SENDER, \
    cell_statics, prepare, receiver_frame, static_blocked
from swarmstack.world.rng import gaussian, uniform01

# below this horizontal offset (m) a bearing goes through its angle: the squares of smaller
# components lose precision or vanish
TINY_M = 1e-100


@njit(cache=True)
def sums_from_inbox(start, distance_m, azimuth_rad, per_m, count, pull):
    """``count`` int64[N] and ``pull`` float64[N, 2] of the CSR receptions ``start``."""
    n = start.shape[0] - 1
    for i in range(n):
        count[i] = start[i + 1] - start[i]
        px = 0.0
        py = 0.0
        for k in range(start[i], start[i + 1]):
            w = 1.0 / (1.0 + per_m * distance_m[k])
            px += w * np.cos(azimuth_rad[k])
            py += w * np.sin(azimuth_rad[k])
        pull[i, 0] = px
        pull[i, 1] = py


@njit(cache=True, error_model="numpy")
def sums_small_runs(tick, emits, reach, x, y, z, roll, pitch, yaw, run, robot_id, radius,
                    height, range_m, antenna_m, payload_bytes, mixed_sizes, drop, range_noise,
                    bearing_noise, keys, occlusion, robots_occlude, boxes, cylinders, aabb,
                    static_start, static_items, gparams, run_start, run_bodies, per_m, count,
                    pull, lost):
    """Every receiver's ``count``, ``pull`` and ``lost`` (drops); the arguments are those of
    ``rab_kernels.receive_rows`` (``emits``/``reach`` from ``prepare``)."""
    for j in range(x.shape[0]):
        count[j] = 0
        lost[j] = 0
        pull[j, 0] = 0.0
        pull[j, 1] = 0.0
        if range_m[j] <= 0.0:
            continue
        rj = run[j]
        if reach[rj] <= 0.0:
            continue
        xj = x[j]
        yj = y[j]
        zj = z[j] + antenna_m[j]
        m00, m01, m02, m10, m11, m12, _, _, _ = receiver_frame(roll[j], pitch[j], yaw[j])
        statics = cell_statics(occlusion, gparams, static_start, static_items, xj, yj)
        p_drop = drop[j]
        key = keys[j]
        size_j = payload_bytes[j]
        sd = range_noise[j]
        sb = bearing_noise[j]
        n = 0
        n_lost = 0
        px = 0.0
        py = 0.0
        for q in range(run_start[rj], run_start[rj + 1]):
            i = run_bodies[q]
            if i == j or not emits[i]:
                continue
            if not mixed_sizes and payload_bytes[i] != size_j:
                continue
            dx = x[i] - xj
            dy = y[i] - yj
            zi = z[i] + antenna_m[i]
            dz = zi - zj
            r_i = range_m[i]
            d2 = dx * dx + dy * dy + dz * dz
            if d2 > r_i * r_i * 1.0000001:
                continue
            if math.sqrt(d2) >= r_i:
                continue
            if statics.shape[0] > 0 and static_blocked(xj, yj, zj, x[i], y[i], zi, statics, aabb,
                                                       boxes, cylinders):
                continue
            if robots_occlude:
                sx0 = min(xj, x[i])
                sx1 = max(xj, x[i])
                sy0 = min(yj, y[i])
                sy1 = max(yj, y[i])
                blocked = False
                for q2 in range(run_start[rj], run_start[rj + 1]):
                    k = run_bodies[q2]
                    if k == i or k == j:
                        continue
                    # footprints away from the segment's bounding box cannot meet it (a
                    # nanometre of slack: the exact test decides the rest)
                    rk = radius[k] + 1e-9
                    if x[k] + rk < sx0 or x[k] - rk > sx1 or y[k] + rk < sy0 \
                            or y[k] - rk > sy1:
                        continue
                    if _disk_hit(xj, yj, zj, dx, dy, dz, x[k], y[k], radius[k], z[k],
                                 z[k] + height[k]) <= 1.0:
                        blocked = True
                        break
                if blocked:
                    continue
            if p_drop > 0.0:
                if uniform01(key, tick, 2 * (CHANNELS_PER_SENDER * robot_id[i] + CH_DROP)) \
                        < p_drop:
                    n_lost += 1
                    continue
            bx = m00 * dx + m01 * dy + m02 * dz
            by = m10 * dx + m11 * dy + m12 * dz
            d = math.sqrt(dx * dx + dy * dy + dz * dz)
            c0 = CHANNELS_PER_SENDER * robot_id[i]
            if sd > 0.0:
                d = max(0.0, d + sd * gaussian(key, tick, c0 + CH_RANGE))
            h = math.sqrt(bx * bx + by * by) if sb == 0.0 else 0.0
            if h > TINY_M:
                # the exact bearing's unit vector, without atan2 and sin/cos (half the cost)
                ux = bx / h
                uy = by / h
            else:
                # a noisy bearing is an angle: drawn, wrapped, then made a unit vector; so is
                # a sender straight above or below (atan2's 0 or π; no underflowing squares)
                a = math.atan2(by, bx)
                if sb > 0.0:
                    a = a + sb * gaussian(key, tick, c0 + CH_AZIMUTH)
                    if a > math.pi or a < -math.pi:
                        a = math.atan2(math.sin(a), math.cos(a))
                ux = np.cos(a)
                uy = np.sin(a)
            w = 1.0 / (1.0 + per_m * d)
            px += w * ux
            py += w * uy
            n += 1
        count[j] = n
        lost[j] = n_lost
        pull[j, 0] = px
        pull[j, 1] = py


@njit(cache=True, error_model="numpy")
def deliver_sums(tick, out_size, enabled, n_runs, sent, refused, max_bytes, delivered, dropped,
                 emits, reach, x, y, z, roll, pitch, yaw, run, robot_id, radius, height, range_m,
                 antenna_m, payload_bytes, mixed_sizes, drop, range_noise, bearing_noise, keys,
                 occlusion, robots_occlude, boxes, cylinders, aabb, static_start, static_items,
                 gparams, run_start, run_bodies, per_m, count, pull, lost):
    """A whole tick in one call: ``rab_kernels.prepare``, :func:`sums_small_runs` (whose
    arguments end its own), then the per-run delivered/dropped counters and the outbox sizes
    reset for the next tick (as ``rab_kernels.finish`` does)."""
    prepare(out_size, enabled, range_m, payload_bytes, run, n_runs, emits, reach, sent,
            refused, max_bytes)
    sums_small_runs(tick, emits, reach, x, y, z, roll, pitch, yaw, run, robot_id, radius,
                    height, range_m, antenna_m, payload_bytes, mixed_sizes, drop, range_noise,
                    bearing_noise, keys, occlusion, robots_occlude, boxes, cylinders, aabb,
                    static_start, static_items, gparams, run_start, run_bodies, per_m, count,
                    pull, lost)
    for j in range(count.shape[0]):
        delivered[run[j]] += count[j]
        dropped[run[j]] += lost[j]
        out_size[j] = 0 if enabled[j] else -1
