"""The range-and-bearing medium: who hears whom, what they measure, and what it costs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarmstack.sim.simulation import Simulation
from swarmstack.geometry.rays import hit_candidates, hit_static
from swarmstack.media import Medium, RadioParams
from tests.media.worlds import heard, make_world, row

# a wall 10 cm high across x = 0.25 (2 cm thick, 1 m long)
WALL = (0.25, 0.0, 0.01, 0.5, 0.0, 0.1)


def params(n, range_m=0.5, **kw):
    kw.setdefault("payload_bytes", 8)
    # robots block the line here only where a test is about it (they do by default, as in
    # ARGoS: tests/media/test_argos_rules.py)
    kw.setdefault("robots_occlude", False)
    return RadioParams.uniform(n, range_m, **kw)


def deliver(world, p, tick=None):
    """One tick of a fresh medium: every radio sends an empty frame."""
    return Medium(p, world.n_runs).deliver(world, tick=tick)


def rotation(roll, pitch, yaw):
    """R = Rz(yaw) Ry(pitch) Rx(roll): body frame to world frame."""
    cr, sr, cp, sp, cy, sy = (math.cos(roll), math.sin(roll), math.cos(pitch), math.sin(pitch),
                              math.cos(yaw), math.sin(yaw))
    rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    return rz @ ry @ rx


# ---------------------------------------------------------------------------- range


def test_the_senders_range_decides_and_ranges_may_differ():
    world = make_world([row([0.0, 0.4, 0.85])])
    p = params(3)
    p.range_m[:] = [0.5, 0.3, 0.5]
    inbox = deliver(world, p)
    assert heard(inbox, 0) == []      # 1 reaches 0.3 m only; 2 is 0.85 m away
    assert heard(inbox, 1) == [0, 2]  # 0 and 2 both reach 0.5 m
    assert heard(inbox, 2) == []      # 1 does not reach it


def test_a_sender_exactly_at_its_range_is_not_heard():
    world = make_world([row([0.0, 0.5, 1.0 - 1e-9])])
    inbox = deliver(world, params(3, 0.5))
    assert heard(inbox, 0) == []
    assert heard(inbox, 1) == [2]
    assert heard(inbox, 2) == [1]


def test_range_is_measured_in_3d_between_antennas():
    # 0.4 m apart on the floor; the sender's body 0.3 m up: 0.5 m between antennas
    world = make_world([row([0.0, 0.4])], z=[0.0, 0.3])
    assert heard(deliver(world, params(2, 0.49)), 0) == []
    assert heard(deliver(world, params(2, 0.51)), 0) == [1]
    # antennas at the same height again: 0.4 m
    p = params(2, 0.45)
    p.antenna_m[:] = [0.3, 0.0]
    assert heard(deliver(world, p), 0) == [1]


# ---------------------------------------------------------------------------- measurements


def test_distance_azimuth_elevation_of_a_level_sender():
    # receiver at the origin facing +y; sender 0.3 m along +x: on its right
    world = make_world([[(0.0, 0.0, math.pi / 2), (0.3, 0.0, 0.0)]])
    inbox = deliver(world, params(2, 1.0))
    k = inbox.start[0]
    assert inbox.sender[k] == 1
    assert inbox.distance_m[k] == pytest.approx(0.3, abs=1e-12)
    assert inbox.azimuth_rad[k] == pytest.approx(-math.pi / 2, abs=1e-12)
    assert inbox.elevation_rad[k] == 0.0
    k = inbox.start[1]  # the other way round: receiver facing +x, sender behind it
    assert abs(inbox.azimuth_rad[k]) == pytest.approx(math.pi, abs=1e-12)


def test_a_higher_sender_and_antenna_heights():
    # receiver antenna 2 cm up; sender body 0.4 m up, antenna 5 cm above it; 0.3 m ahead-left
    world = make_world([[(0.0, 0.0, 0.0), (0.3 * math.cos(0.5), 0.3 * math.sin(0.5), 0.0)]],
                       z=[0.0, 0.4])
    p = params(2, 1.0)
    p.antenna_m[:] = [0.02, 0.05]
    inbox = deliver(world, p)
    dz = 0.4 + 0.05 - 0.02
    k = inbox.start[0]
    assert inbox.distance_m[k] == pytest.approx(math.hypot(0.3, dz), abs=1e-12)
    assert inbox.azimuth_rad[k] == pytest.approx(0.5, abs=1e-12)
    assert inbox.elevation_rad[k] == pytest.approx(math.atan2(dz, 0.3), abs=1e-12)
    k = inbox.start[1]  # seen from above: below and behind-right
    assert inbox.elevation_rad[k] == pytest.approx(-math.atan2(dz, 0.3), abs=1e-12)
    assert inbox.azimuth_rad[k] == pytest.approx(0.5 - math.pi, abs=1e-12)


def test_pitch_tilts_the_bearing_nose_down_is_positive_pitch():
    # ZYX: a receiver pitched by +0.2 rad (nose down) sees a level sender ahead 0.2 rad up
    world = make_world([row([0.0, 0.4])], pitch=[0.2, 0.0])
    inbox = deliver(world, params(2, 1.0))
    k = inbox.start[0]
    assert inbox.azimuth_rad[k] == pytest.approx(0.0, abs=1e-12)
    assert inbox.elevation_rad[k] == pytest.approx(0.2, abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.floats(-math.pi, math.pi), st.floats(-1.2, 1.2), st.floats(-1.2, 1.2),
       st.floats(-0.5, 0.5), st.floats(-0.5, 0.5), st.floats(0.0, 0.5))
def test_bearings_follow_the_receivers_full_orientation(yaw, pitch, roll, sx, sy, sz):
    world = make_world([[(0.0, 0.0, yaw), (0.6, 0.1, 0.0)]], z=[0.0, 0.0], roll=[roll, 0.0],
                       pitch=[pitch, 0.0])
    b = world.bodies
    b.x[1], b.y[1], b.z[1] = sx, sy, sz
    world.refresh_grid()
    d = math.sqrt(sx * sx + sy * sy + sz * sz)
    inbox = deliver(world, params(2, 1.0))
    if d < 1e-6:
        return
    v = rotation(roll, pitch, yaw).T @ np.array([sx, sy, sz])
    k = inbox.start[0]
    assert inbox.distance_m[k] == pytest.approx(d, abs=1e-12)
    if math.hypot(v[0], v[1]) > 1e-6:
        diff = inbox.azimuth_rad[k] - math.atan2(v[1], v[0])
        assert abs(math.remainder(diff, 2 * math.pi)) < 1e-9
    assert inbox.elevation_rad[k] == pytest.approx(math.atan2(v[2], math.hypot(v[0], v[1])),
                                                   abs=1e-9)


# ---------------------------------------------------------------------------- occlusion


def test_a_wall_blocks_the_line_unless_occlusion_is_off():
    world = make_world([row([0.0, 0.5])], boxes=[WALL])
    assert heard(deliver(world, params(2, 1.0)), 0) == []
    assert heard(deliver(world, params(2, 1.0)), 1) == []
    assert heard(deliver(world, params(2, 1.0, occlusion=False)), 0) == [1]


def test_a_rotated_box_and_a_cylinder_block_it():
    box = (0.25, 0.0, 0.02, 0.2, 0.7, 0.1)
    world = make_world([row([0.0, 0.5])], boxes=[box])
    assert heard(deliver(world, params(2, 1.0)), 0) == []
    world = make_world([row([0.0, 0.5])], cylinders=[(0.25, 0.0, 0.05, 0.1)])
    assert heard(deliver(world, params(2, 1.0)), 0) == []
    # the same cylinder beside the line does not
    world = make_world([row([0.0, 0.5])], cylinders=[(0.25, 0.2, 0.05, 0.1)])
    assert heard(deliver(world, params(2, 1.0)), 0) == [1]


def test_antennas_above_a_low_box_see_over_it():
    low = (0.25, 0.0, 0.05, 0.5, 0.0, 0.03)
    world = make_world([row([0.0, 0.5])], boxes=[low])
    assert heard(deliver(world, params(2, 1.0, antenna_m=0.048)), 0) == [1]
    assert heard(deliver(world, params(2, 1.0, antenna_m=0.02)), 0) == []
    # a sloped line: the sender high up clears a 10 cm wall next to it only from far enough
    world = make_world([row([0.0, 0.5])], z=[0.0, 1.0], boxes=[(0.45, 0.0, 0.01, 0.5, 0.0, 0.1)])
    assert heard(deliver(world, params(2, 2.0, antenna_m=0.05)), 0) == [1]


def test_robots_block_the_line_only_when_they_occlude():
    world = make_world([row([0.0, 0.25, 0.5])])
    low = params(3, 1.0, antenna_m=0.02)  # antennas below the bodies' tops (4.5 cm)
    assert heard(deliver(world, low), 0) == [1, 2]
    low.robots_occlude = True
    assert heard(deliver(world, low), 0) == [1]
    assert heard(deliver(world, low), 1) == [0, 2]
    # antennas on top of the bodies look over the robot in between
    top = params(3, 1.0, antenna_m=0.048, robots_occlude=True)
    assert heard(deliver(world, top), 0) == [1, 2]


@pytest.mark.parametrize("a, blocker, b", [((1.5, 1.5), (2.75, 0.0), (4.0, -1.5)),
                                           ((0.0, 1.9), (3.0, 2.5), (6.0, 3.1))])
def test_robots_off_the_arena_block_the_line_both_ways(a, blocker, b):
    """An arena without walls, (-2, -2)–(2, 2): the line from ``b`` (off it) to ``a`` (on it)
    passes through a robot that is off it too."""
    world = make_world([[(*a, 0.0), (*blocker, 0.0), (*b, 0.0)]])
    inbox = deliver(world, params(3, 10.0, robots_occlude=True))
    assert heard(inbox, 0) == [1] and heard(inbox, 2) == [1]


def reference(world, p, emits):
    """Who hears whom, by brute force over all pairs (no drop, capacity or noise)."""
    b = world.bodies
    a = world.scene.arena
    out = []
    for j in range(b.n):
        got = []
        for i in range(b.n):
            if i == j or b.run[i] != b.run[j] or p.range_m[j] <= 0 or not emits[i]:
                continue
            if not p.mixed_sizes and p.payload_bytes[i] != p.payload_bytes[j]:
                continue
            pi = (b.x[i], b.y[i], b.z[i] + p.antenna_m[i])
            pj = (b.x[j], b.y[j], b.z[j] + p.antenna_m[j])
            dx, dy, dz = pi[0] - pj[0], pi[1] - pj[1], pi[2] - pj[2]
            if math.sqrt(dx * dx + dy * dy + dz * dz) >= p.range_m[i]:
                continue
            if p.occlusion and hit_static(*pj, *pi, a.boxes, a.cylinders) <= 1.0:
                continue
            others = np.array([k for k in range(b.n) if b.run[k] == b.run[j] and k not in (i, j)],
                              dtype=np.int64)
            none = np.zeros(0, dtype=np.int64)
            if p.robots_occlude and hit_candidates(*pj, *pi, none, 0, none, 0, others,
                                                   len(others), a.boxes, a.cylinders, b.x, b.y,
                                                   b.z, b.radius, b.height) <= 1.0:
                continue
            got.append(i)
        out.append(got)
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_receptions_match_a_brute_force_reference(data):
    n = data.draw(st.integers(2, 60))
    # the arena is (-2, -2)–(2, 2) without walls: some robots are off it, some lines leave it
    coords = st.floats(-1.9, 1.9) | st.floats(-3.5, 3.5)
    runs = data.draw(st.integers(1, 3))
    poses = [[(data.draw(coords), data.draw(coords), data.draw(st.floats(-3.1, 3.1)))
              for _ in range(n)] for _ in range(runs)]
    world = make_world(poses, boxes=[WALL, (-0.8, 0.6, 0.3, 0.05, 0.4, 0.2)],
                       cylinders=[(0.7, -0.7, 0.15, 0.2)])
    total = n * runs
    p = params(total)
    p.range_m[:] = data.draw(st.lists(st.sampled_from([0.0, 0.3, 0.8, 1.5, 4.0]),
                                      min_size=total, max_size=total))
    p.antenna_m[:] = data.draw(st.sampled_from([0.0, 0.03, 0.05, 0.15]))
    p.robots_occlude = data.draw(st.booleans())
    p.occlusion = data.draw(st.booleans())
    p.payload_bytes[:] = data.draw(st.lists(st.sampled_from([8, 8, 10]), min_size=total,
                                            max_size=total))
    p.mixed_sizes = data.draw(st.booleans())
    world.bodies.z[:] = data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.04, 0.3]),
                                           min_size=total, max_size=total))
    medium = Medium(p, runs)
    medium.out_size[:] = np.where(medium.enabled, data.draw(st.integers(-1, 8)), -1)
    emits = medium.enabled & (medium.out_size >= 0)
    inbox = medium.deliver(world)
    want = reference(world, p, emits)
    b = world.bodies
    for j in range(total):
        assert heard(inbox, j) == want[j]  # ordered by sender index
        for k in range(inbox.start[j], inbox.start[j + 1]):
            i = inbox.sender[k]
            dz = (b.z[i] + p.antenna_m[i]) - (b.z[j] + p.antenna_m[j])
            dx, dy = b.x[i] - b.x[j], b.y[i] - b.y[j]
            assert inbox.distance_m[k] == pytest.approx(math.sqrt(dx * dx + dy * dy + dz * dz),
                                                         abs=1e-12)
            assert math.isclose(math.cos(inbox.azimuth_rad[k]),
                                math.cos(math.atan2(dy, dx) - b.yaw[j]), abs_tol=1e-9)
            assert math.isclose(math.sin(inbox.azimuth_rad[k]),
                                math.sin(math.atan2(dy, dx) - b.yaw[j]), abs_tol=1e-9)
    s = medium.stats
    assert s.delivered.sum() == len(inbox) == sum(map(len, want))
    assert s.dropped.sum() == 0


def test_a_crowd_larger_than_the_first_guess_is_heard_in_full():
    rng = np.random.default_rng(3)
    pts = rng.uniform(-0.3, 0.3, size=(80, 2))
    world = make_world([[(x, y, 0.0) for x, y in pts]])
    inbox = deliver(world, params(80, 1.0))
    for j in range(80):
        assert heard(inbox, j) == [i for i in range(80) if i != j]


# ---------------------------------------------------------------------------- drops, capacity


def ring(n, r=0.3):
    """Robot 0 at the centre, n others on a circle around it."""
    return [(0.0, 0.0, 0.0)] + [(r * math.cos(2 * math.pi * k / n),
                                 r * math.sin(2 * math.pi * k / n), 0.0) for k in range(n)]


def test_drop_fraction_is_the_receivers_probability():
    world = make_world([ring(40)])
    p = params(41, 1.0)
    p.drop[1:] = 0.3  # the ring drops, the centre does not
    medium = Medium(p, 1)
    ticks, heard_centre, heard_ring = 250, 0, 0
    for t in range(ticks):
        inbox = medium.deliver(world, tick=t)
        heard_ring += int(inbox.start[41] - inbox.start[1])
        heard_centre += inbox.count(0)
    n = 40 * 40 * ticks  # every ring robot hears the 40 others
    kept = heard_ring / n
    assert abs(kept - 0.7) < 4 * math.sqrt(0.3 * 0.7 / n)
    assert heard_centre == 40 * ticks
    s = medium.stats_of(0)
    assert s["messages_delivered"] + s["messages_dropped"] == 41 * 40 * ticks
    assert s["messages_dropped"] == n - heard_ring


def test_drop_extremes():
    world = make_world([ring(6)])
    for p_drop, expect in ((0.0, 6), (1.0, 0)):
        p = params(7, 1.0, drop=p_drop)
        medium = Medium(p, 1)
        for t in range(20):
            assert medium.deliver(world, tick=t).count(0) == expect
        assert medium.stats_of(0)["messages_dropped"] == (42 - 7 * expect) * 20


def test_drops_are_fresh_every_tick_and_reproducible():
    world = make_world([ring(30)])
    p = params(31, 1.0, drop=0.5)
    a = [heard(Medium(p, 1).deliver(world, tick=t), 0) for t in range(5)]
    b = [heard(Medium(p, 1).deliver(world, tick=t), 0) for t in range(5)]
    assert a == b
    assert len({tuple(h) for h in a}) == 5


def test_capacity_keeps_the_nearest_then_orders_by_sender():
    dists = [0.5, 0.2, 0.4, 0.1, 0.3]
    world = make_world([[(0.0, 0.0, 0.0)] + [(d, 0.1 * k, 0.0) for k, d in enumerate(dists)]])
    p = params(6, 2.0, occlusion=False)
    p.capacity[0] = 2
    medium = Medium(p, 1)
    inbox = medium.deliver(world)
    assert heard(inbox, 0) == [2, 4]  # 0.2 m and 0.1 m (+ the small y offsets)
    assert medium.stats_of(0)["messages_dropped"] == 3
    assert heard(inbox, 1) == [0, 2, 3, 4, 5]  # unlimited


def test_capacity_ties_keep_the_lower_body_index():
    world = make_world([[(0.0, 0.0, 0.0), (0.3, 0.0, 0.0), (-0.3, 0.0, 0.0), (0.0, 0.3, 0.0)]])
    p = params(4, 1.0, capacity=1)
    inbox = deliver(world, p)
    assert heard(inbox, 0) == [1]


def test_capacity_counts_after_drops():
    world = make_world([ring(20)])
    p = params(21, 1.0)
    p.capacity[0] = 5
    p.drop[0] = 0.5
    medium = Medium(p, 1)
    for t in range(30):
        inbox = medium.deliver(world, tick=t)
        assert inbox.count(0) == 5  # 20 senders, about 10 survive the draw: still 5 kept


# ---------------------------------------------------------------------------- noise


def test_noise_std_is_about_right_and_zero_noise_is_exact():
    world = make_world([[(0.0, 0.0, 0.3), (0.2, 0.3, 0.0)]], z=[0.0, 0.1])
    exact = deliver(world, params(2, 1.0))
    p = params(2, 1.0, range_noise_m=0.01, bearing_noise_rad=0.05)
    medium = Medium(p, 1)
    d, a, e = [], [], []
    for t in range(4000):
        inbox = medium.deliver(world, tick=t)
        d.append(inbox.distance_m[0])
        a.append(inbox.azimuth_rad[0])
        e.append(inbox.elevation_rad[0])
    for values, truth, std in ((d, exact.distance_m[0], 0.01), (a, exact.azimuth_rad[0], 0.05),
                               (e, exact.elevation_rad[0], 0.05)):
        err = np.array(values) - truth
        assert abs(err.mean()) < 4 * std / math.sqrt(len(err))
        assert err.std() == pytest.approx(std, rel=0.06)
    # the three draws are independent of each other
    assert abs(np.corrcoef(d, a)[0, 1]) < 0.06 and abs(np.corrcoef(a, e)[0, 1]) < 0.06
    again = deliver(world, params(2, 1.0), tick=17)
    assert np.array_equal(again.distance_m, exact.distance_m)
    assert np.array_equal(again.azimuth_rad, exact.azimuth_rad)


def test_noisy_values_stay_in_their_domains():
    world = make_world([[(0.0, 0.0, 0.0), (0.002, 0.0, 0.0), (-0.3, 0.001, 0.0)]],
                       z=[0.0, 0.0, 0.3])
    p = params(3, 1.0, range_noise_m=0.05, bearing_noise_rad=2.0)
    medium = Medium(p, 1)
    dist, az, el = [], [], []
    for t in range(300):
        inbox = medium.deliver(world, tick=t)
        dist += inbox.distance_m.tolist()
        az += inbox.azimuth_rad.tolist()
        el += inbox.elevation_rad.tolist()
    assert min(dist) == 0.0  # clamped, not negative
    assert -math.pi <= min(az) and max(az) <= math.pi
    assert -math.pi / 2 <= min(el) and max(el) <= math.pi / 2


# ---------------------------------------------------------------------------- frames


def test_payloads_refusal_empty_and_silent_frames():
    world = make_world([row([0.0, 0.1, 0.2, 0.3, 0.4])])
    p = params(5, 1.0, payload_bytes=4)
    medium = Medium(p, 1)
    assert medium.outbox.shape == (5, 4)
    medium.outbox[0, :3] = [1, 2, 3]
    medium.out_size[:] = [3, 0, -1, 4, 0]
    medium.outbox[3] = [9, 9, 9, 9]
    medium.enabled[4] = False  # switched off: silent, still listening
    inbox = medium.deliver(world)
    assert heard(inbox, 1) == [0, 3]  # 2 silent, 4 switched off
    assert heard(inbox, 4) == [0, 1, 3]
    assert heard(inbox, 0) == [1, 3]
    got = {inbox.sender[k]: inbox.payload(k) for k in range(inbox.start[4], inbox.start[5])}
    assert got == {0: b"\x01\x02\x03", 1: b"", 3: b"\t\t\t\t"}
    s = medium.stats_of(0)
    assert s["messages_sent"] == 3 and s["messages_refused"] == 0
    assert s["max_bytes_per_robot_tick"] == 4
    # sizes reset for the next tick: enabled robots send empty frames, the others nothing
    assert medium.out_size.tolist() == [0, 0, 0, 0, -1]
    # the inbox keeps this tick's frames while the outbox is rewritten
    medium.outbox[0, :3] = [7, 7, 7]
    assert inbox.payload(inbox.start[4]) == b"\x01\x02\x03"
    # a frame over the cap is refused: not sent at all, counted
    medium.out_size[0] = 5
    inbox = medium.deliver(world)
    assert 0 not in heard(inbox, 1)
    assert inbox.sent_size[0] == -1
    s = medium.stats_of(0)
    assert s["messages_refused"] == 1 and s["messages_sent"] == 3 + 3


def test_robots_without_a_radio_neither_send_nor_hear():
    world = make_world([row([0.0, 0.1, 0.2])])
    p = params(3, 1.0)
    p.range_m[1] = 0.0
    medium = Medium(p, 1)
    assert not medium.enabled[1] and medium.out_size[1] == -1
    medium.out_size[1] = 0  # even if asked to
    inbox = medium.deliver(world)
    assert heard(inbox, 0) == [2] and heard(inbox, 1) == [] and heard(inbox, 2) == [0]


def test_the_last_inbox_is_kept_and_empty_before_the_first_delivery():
    world = make_world([row([0.0, 0.1])])
    medium = Medium(params(2, 1.0), 1)
    assert len(medium.inbox) == 0 and medium.inbox.count(1) == 0
    inbox = medium.deliver(world)
    assert medium.inbox is inbox and len(inbox) == 2
    with pytest.raises(ValueError):
        Medium(params(3, 1.0), 1).deliver(world)
    with pytest.raises(ValueError):
        Medium(params(4, 1.0), 1).deliver(make_world([row([0.0, 0.1])] * 2))


def test_reset_clears_counters_and_outbox():
    world = make_world([row([0.0, 0.1])])
    medium = Medium(params(2, 1.0), 1)
    medium.outbox[0, 0] = 5
    medium.out_size[0] = 1
    medium.enabled[1] = False
    medium.deliver(world)
    medium.reset()
    assert medium.stats_of(0) == dict.fromkeys(medium.stats_of(0), 0)
    assert not medium.outbox.any() and medium.enabled.all()
    assert medium.out_size.tolist() == [0, 0]


# ---------------------------------------------------------------------------- runs


def test_runs_never_hear_each_other_and_count_apart():
    poses = row([0.0, 0.2, 0.4])
    world = make_world([poses, poses, poses])
    p = params(9, 1.0)
    p.drop[3:6] = 1.0  # run 1 loses everything
    medium = Medium(p, 3)
    medium.out_size[6:] = -1  # run 2 is silent
    inbox = medium.deliver(world)
    assert [heard(inbox, j) for j in range(3)] == [[1, 2], [0, 2], [0, 1]]
    assert all(inbox.count(j) == 0 for j in range(3, 9))
    assert medium.stats_of(0)["messages_delivered"] == 6
    assert medium.stats_of(1)["messages_dropped"] == 6
    assert medium.stats_of(1)["messages_delivered"] == 0
    assert medium.stats_of(2)["messages_sent"] == 0
    assert medium.stats_of(2)["messages_delivered"] == 0


BATCH_CFG = {
    "arena": {"size": [1.5, 1.5], "walls": True},
    "boxes": [{"center": [0.3, 0.0], "size": [0.04, 0.6, 0.1]}],
    "cylinders": [{"center": [-0.3, 0.3], "radius": 0.08}],
    "robots": [
        {"name": "a", "count": 10, "controller": {"python": "tests.core.controllers:RandomWheels"}},
        {"name": "b", "count": 5, "controller": {"python": "tests.core.controllers:Forward"}},
    ],
}
RADIO = {"a": {"range_m": 0.6, "drop": 0.2, "range_noise_m": 0.01, "bearing_noise_rad": 0.05,
               "payload_bytes": 4, "capacity": 6},
         "b": {"range_m": 0.9, "payload_bytes": 4}}


def _trace(sim, ticks, parallel=None):
    """Per run: per tick, per robot id, what it heard (senders by robot id); the run's stats."""
    world = sim.world
    b = world.bodies
    p = RadioParams.for_world(world, RADIO, seed=sim.seed)
    medium = Medium(p, world.n_runs, parallel=parallel)
    traces = [[] for _ in range(world.n_runs)]
    for _ in range(ticks):
        sim.step()
        medium.outbox[:, 0] = b.robot_id
        medium.outbox[:, 1] = world.tick
        medium.out_size[:] = 2
        inbox = medium.deliver(world)
        for run, out in enumerate(traces):
            out.append({int(b.robot_id[j]): [
                (int(b.robot_id[inbox.sender[k]]), inbox.payload(k), inbox.distance_m[k],
                 inbox.azimuth_rad[k], inbox.elevation_rad[k])
                for k in range(inbox.start[j], inbox.start[j + 1])]
                for j in np.flatnonzero(b.run == run)})
    return [(out, medium.stats_of(run)) for run, out in enumerate(traces)]


def test_a_run_in_a_batch_hears_what_it_hears_alone():
    seed = 11
    batch = Simulation.from_dict(BATCH_CFG, seed=seed, runs=3)
    traces = _trace(batch, 15)
    for k in range(3):
        alone = Simulation.from_dict(BATCH_CFG, seed=seed + k, runs=1)
        assert _trace(alone, 15)[0] == traces[k]  # bit for bit, stats too
    assert traces[0] != traces[1]
    assert any(len(h) for tick in traces[0][0] for h in tick.values())


def test_same_inputs_identical_inbox_serial_or_threaded():
    sims = [Simulation.from_dict(BATCH_CFG, seed=4, runs=2) for _ in range(3)]
    a = _trace(sims[0], 10, parallel=False)
    b = _trace(sims[1], 10, parallel=False)
    c = _trace(sims[2], 10, parallel=True)
    assert a == b == c


def test_threads_do_not_change_a_large_crowds_inbox():
    rng = np.random.default_rng(8)
    pts = rng.uniform(-1.9, 1.9, size=(2, 400, 2))
    world = make_world([[(x, y, a) for (x, y), a in zip(pts[r], rng.uniform(-3, 3, 400))]
                        for r in range(2)], boxes=[WALL], cylinders=[(0.7, -0.7, 0.15, 0.2)])
    p = params(800, 0.5, drop=0.2, range_noise_m=0.02, bearing_noise_rad=0.1, capacity=7)
    fields = ("start", "sender", "distance_m", "azimuth_rad", "elevation_rad", "sent_size")
    got = []
    for parallel in (False, True, False):
        inbox = Medium(p, 2, parallel=parallel).deliver(world, tick=3)
        got.append([getattr(inbox, f) for f in fields])
    for a, b in zip(got[0], got[1]):
        assert np.array_equal(a, b)
    for a, b in zip(got[0], got[2]):
        assert np.array_equal(a, b)
    assert len(got[0][1]) > 1000


def test_for_world_takes_defaults_from_the_robot_type():
    sim = Simulation.from_dict(BATCH_CFG, seed=1)
    p = RadioParams.for_world(sim.world, {"a": {"range_m": 0.4}})
    assert p.range_m.tolist() == [0.4] * 10 + [0.8] * 5  # E-Puck2's board: 80 cm
    assert p.payload_bytes.tolist() == [2] * 15
    assert np.allclose(p.antenna_m, 0.048)
    with pytest.raises(KeyError):
        RadioParams.for_world(sim.world, {"c": {}})
    with pytest.raises(KeyError):
        RadioParams.for_world(sim.world, {"a": {"rnage_m": 1.0}})
    with pytest.raises(ValueError):
        RadioParams.uniform(3, 1.0, drop=1.5)
