"""Frozen copy of the grid-piece search of long rays (``ranging.long_rows``) as it was before
small runs were searched whole: the oracle of long rays in crowded scenes.

It finds what ``oracle.ranging`` finds, except where a ray leaves the grid and still meets a
robot whose body reaches past the arena's edge: that walk stops at the grid's border, this
search does not (its piece boxes are clamped to the border cells, where robots outside the
grid are kept).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from . import ranging as old
from .rays import NO_HIT, _box_hit, _disk_hit

PIECE_CELLS = 6.0
_SLACK_M = 1e-9


@njit(cache=True, error_model="numpy")
def long_rows(a, b, base, x, y, z, yaw, run, radius, height, boxes, cylinders, gparams,
              cell_start, order, max_radius, rays, range_m, out):
    """Long rays (ToF): the first hit of each ray, as ``rays.first_hit`` finds it, with less
    work. The static shapes go first: their hit ends the part of the ray left to search. That
    part is cut into pieces of about ``PIECE_CELLS`` grid cells; the robots of each piece's
    bounding box (grown by the largest body radius) are gathered row by row from the grid —
    each grid row of a box is one contiguous run of robots — and tested. A robot met at t has
    its centre within its radius of the point at t, so it lies in the box of the piece holding
    t: once the best hit comes before the next piece starts, nothing further can beat it. The
    minimum over the same shapes is the same number.

    The search is written out in this loop rather than called per ray: a compiled call per
    ray with this many arrays costs more than the search itself.
    """
    nx, ny = int(gparams[3]), int(gparams[4])
    ox = gparams[0]
    oy = gparams[1]
    cell = gparams[2]
    piece_m = PIECE_CELLS * cell
    # 1 / cell: a cell index off by rounding is covered by the slack in the boxes' reach
    inv = 1.0 / cell
    grow = max_radius + _SLACK_M
    for i in range(a, b):
        row = i - base
        c = math.cos(yaw[i])
        s = math.sin(yaw[i])
        rbase = run[i] * nx * ny
        for k in range(rays.shape[0]):
            ca = c * rays[k, 0] - s * rays[k, 1]  # heading of the ray in the world
            sa = s * rays[k, 0] + c * rays[k, 1]
            x0 = x[i] + rays[k, 2] * ca
            y0 = y[i] + rays[k, 2] * sa
            z0 = z[i] + rays[k, 3]
            x1 = x0 + range_m * ca
            y1 = y0 + range_m * sa
            dx = x1 - x0
            dy = y1 - y0
            best = NO_HIT
            for q in range(boxes.shape[0]):
                best = min(best, _box_hit(x0, y0, z0, dx, dy, 0.0, boxes, q))
            for q in range(cylinders.shape[0]):
                best = min(best, _disk_hit(x0, y0, z0, dx, dy, 0.0, cylinders[q, 0],
                                           cylinders[q, 1], cylinders[q, 2], 0.0,
                                           cylinders[q, 3]))
            length = math.sqrt(dx * dx + dy * dy)
            n_pieces = max(1, int(math.ceil(length / piece_m)))
            dt = 1.0 / n_pieces
            for p in range(n_pieces):
                ta = p * dt
                if best <= ta:
                    break
                tb = min(1.0, ta + dt, best)
                ax = x0 + ta * dx
                ay = y0 + ta * dy
                bx = x0 + tb * dx
                by = y0 + tb * dy
                gx0 = max(0, min(nx - 1, int(math.floor((min(ax, bx) - grow - ox) * inv))))
                gx1 = max(0, min(nx - 1, int(math.floor((max(ax, bx) + grow - ox) * inv))))
                gy0 = max(0, min(ny - 1, int(math.floor((min(ay, by) - grow - oy) * inv))))
                gy1 = max(0, min(ny - 1, int(math.floor((max(ay, by) + grow - oy) * inv))))
                for gy in range(gy0, gy1 + 1):
                    crow = rbase + gy * nx
                    for q in range(cell_start[crow + gx0], cell_start[crow + gx1 + 1]):
                        j = order[q]
                        if j == i:
                            continue
                        best = min(best, _disk_hit(x0, y0, z0, dx, dy, 0.0, x[j], y[j],
                                                   radius[j], z[j], z[j] + height[j]))
            out[row, k] = range_m if best >= NO_HIT else best * range_m



def cast(world, group, layout, out: np.ndarray) -> None:
    """``oracle.ranging.cast``, with this search for rays that end beyond a grid cell."""
    if layout.reach_m <= world.grid[2]:
        old.cast(world, group, layout, out)
        return
    b = world.bodies
    long_rows(group.start, group.stop, group.start, b.x, b.y, b.z, b.yaw, b.run, b.radius,
              b.height, world.arena.boxes, world.arena.cylinders, world.grid, world.cell_start,
              world.order, world.max_radius, layout.table, layout.range_m, out)


def proximity(dev, world, group, keys, out, dist):
    """``oracle.ranging.proximity`` with :func:`cast`."""
    cast(world, group, dev.layout, dist)
    old.proximity_transfer(dist, dev.layout.range_m, dev.a, dev.b, dev.c, dev.full_scale,
                           old.NOISE_KINDS[dev.noise], dev.noise_level,
                           keys[:, old.STREAM["proximity"]], world.tick, out)


def tof(dev, world, group, keys, out, dist):
    """``oracle.ranging.tof`` with :func:`cast`."""
    cast(world, group, dev.layout, dist)
    old.tof_transfer(dist, dev.range_m, dev.min_mm, dev.max_mm, old.NOISE_KINDS[dev.noise],
                     dev.noise_level, keys[:, old.STREAM["tof"]], world.tick, out)
