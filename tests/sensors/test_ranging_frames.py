"""The short-range ray path (robot frame, gathered shapes) equals plain world-frame casting."""

import math

import numpy as np
from hypothesis import example, given, settings, strategies as st
from scenes import build_world

from swarmstack.geometry.rays import NO_HIT, first_hit
from swarmstack.robots import epuck2
from swarmstack.sensors import ranging
from swarmstack.world.arena import Arena, box_row, wall_boxes


def _reference(world, layout):
    """Each ray cast on its own against everything, in the world frame."""
    b = world.bodies
    out = np.empty((b.n, layout.count))
    for i in range(b.n):
        for k in range(layout.count):
            a = b.yaw[i] + layout.angle_rad[k]
            x0 = b.x[i] + layout.ring_m[k] * math.cos(a)
            y0 = b.y[i] + layout.ring_m[k] * math.sin(a)
            z0 = b.z[i] + layout.elevation_m[k]
            x1 = x0 + layout.range_m * math.cos(a)
            y1 = y0 + layout.range_m * math.sin(a)
            t = first_hit(x0, y0, z0, x1, y1, z0, b.run[i], i, -1, world.arena.boxes,
                          world.arena.cylinders, b.x, b.y, b.z, b.radius, b.height, world.grid,
                          world.cell_start, world.order, world.max_radius)
            out[i, k] = layout.range_m if t >= NO_HIT else t * layout.range_m
    return out


coord = st.floats(-0.45, 0.45)


@settings(max_examples=40, deadline=None)
@given(robots=st.lists(st.tuples(coord, coord, st.floats(-math.pi, math.pi)), min_size=1,
                       max_size=12),
       box=st.tuples(coord, coord, st.floats(0.02, 0.2), st.floats(0.02, 0.2),
                     st.floats(-math.pi, math.pi), st.floats(0.01, 0.1)),
       cyl=st.tuples(coord, coord, st.floats(0.01, 0.1), st.floats(0.01, 0.1)))
@example(robots=[(0.0, -0.087890625, 0.0), (0.035, -0.125, 0.0)],   # a ray tangent to a robot
         box=(0.0, 0.0, 0.125, 0.0625, 0.0, 0.0625), cyl=(0.0, 0.0, 0.0625, 0.0625))
def test_short_path_matches_world_frame_casting(robots, box, cyl):
    bounds = (-0.5, -0.5, 0.5, 0.5)
    boxes = np.vstack([wall_boxes(bounds, 0.02, 0.1),
                       box_row(box[:2], (2 * box[2], 2 * box[3], box[5]), box[4])])
    arena = Arena(bounds=bounds, boxes=boxes, cylinders=np.array([cyl]))
    world, _ = build_world(arena, [robots])  # overlaps are fine: only geometry is compared
    layout = epuck2.proximity_device().layout
    assert layout.range_m + layout.ring_m.max() <= world.grid[2]  # the short path is taken
    got = np.empty((world.bodies.n, layout.count))
    ranging.cast(world, world.groups[0], layout, got)
    want = _reference(world, layout)
    differ = [(i, k) for i, k in zip(*np.nonzero(~np.isclose(got, want, rtol=0, atol=1e-9)))
              if not _grazes_a_robot(world, layout, i, k)]
    assert not differ, (differ, got, want)


def _grazes_a_robot(world, layout, i, k, eps=1e-9) -> bool:
    """Ray k of robot i passes within ``eps`` of tangent to another robot's disc: whether
    such a ray hits (at one point) is decided by rounding, which differs between the two
    frames, and both answers are right."""
    b = world.bodies
    a = b.yaw[i] + layout.angle_rad[k]
    x0 = b.x[i] + layout.ring_m[k] * math.cos(a)
    y0 = b.y[i] + layout.ring_m[k] * math.sin(a)
    dx, dy = math.cos(a), math.sin(a)
    for j in range(b.n):
        if j == i:
            continue
        along = (b.x[j] - x0) * dx + (b.y[j] - y0) * dy
        across = abs(-(b.x[j] - x0) * dy + (b.y[j] - y0) * dx)
        if -eps <= along <= layout.range_m + eps and abs(across - b.radius[j]) < eps:
            return True
    return False
