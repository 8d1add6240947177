"""Neighbour sums (count and Σ (1/(1 + k·d), ∠bearing) per receiver): made straight from the
bodies whenever the configuration allows, whether or not every reception is also listed (a run
does not change when it is watched); the receptions, counts and the medium's counters are those
of the full inbox, and the vector is the inbox's Σ (w·cos az, w·sin az) to within rounding (bit
for bit when bearings are noisy, which the sums draw as angles too)."""

from __future__ import annotations

import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarmstack.media import Inbox, Medium, RadioParams, SummedInbox
from swarmstack.media import rab_sums as S
from tests.media.worlds import make_world

WALL = (0.25, 0.0, 0.01, 0.5, 0.0, 0.1)
PER_M = 100.0


def _pair(p: RadioParams, runs: int):
    """Two media of the same parameters: one lists every reception, one only sums."""
    full = Medium(p, runs)
    full.readers.append(types.SimpleNamespace(sums_per_m=PER_M))
    full.keep_inbox = True
    q = RadioParams(**{k: getattr(p, k).copy() if isinstance(getattr(p, k), np.ndarray)
                       else getattr(p, k) for k in p.__dataclass_fields__})
    fast = Medium(q, runs)
    fast.readers.append(types.SimpleNamespace(sums_per_m=PER_M))
    return full, fast


def _inbox_sums(inbox: Inbox):
    n = inbox.start.shape[0] - 1
    count = np.empty(n, dtype=np.int64)
    pull = np.empty((n, 2))
    S.sums_from_inbox(inbox.start, inbox.distance_m, inbox.azimuth_rad, PER_M, count, pull)
    return count, pull


def _same(full: Medium, fast: Medium, noisy_bearing: bool):
    c0, p0 = full.neighbour_sums(PER_M)
    c1, p1 = fast.neighbour_sums(PER_M)
    assert isinstance(full.inbox, Inbox) and isinstance(fast.inbox, SummedInbox)
    assert np.array_equal(c0, c1)
    assert np.array_equal(p0, p1)   # bit for bit, not approximately
    ci, pi = _inbox_sums(full.inbox)
    assert np.array_equal(ci, c1)
    if noisy_bearing:
        assert np.array_equal(pi, p1)
    else:
        np.testing.assert_allclose(p1, pi, rtol=0, atol=1e-12)
    for name in ("sent", "delivered", "dropped", "refused", "max_bytes"):
        assert np.array_equal(getattr(full.stats, name), getattr(fast.stats, name)), name
    assert np.array_equal(full.out_size, fast.out_size)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_sums_without_the_inbox_equal_the_sums_of_the_inbox(data):
    n = data.draw(st.integers(2, 40))
    runs = data.draw(st.integers(1, 3))
    coords = st.floats(-1.9, 1.9)
    poses = [[(data.draw(coords), data.draw(coords), data.draw(st.floats(-3.1, 3.1)))
              for _ in range(n)] for _ in range(runs)]
    total = n * runs
    tilt = st.lists(st.sampled_from([0.0, 0.0, 0.2, -0.4]), min_size=total, max_size=total)
    world = make_world(poses, boxes=[WALL, (-0.8, 0.6, 0.3, 0.05, 0.4, 0.2)],
                       cylinders=[(0.7, -0.7, 0.15, 0.2)], roll=data.draw(tilt),
                       pitch=data.draw(tilt))
    world.bodies.z[:] = data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.04, 0.3]),
                                           min_size=total, max_size=total))
    bearing_noise = data.draw(st.sampled_from([0.0, 0.5]))
    p = RadioParams.uniform(total, 0.5, payload_bytes=8,
                            drop=data.draw(st.sampled_from([0.0, 0.0, 0.3, 1.0])),
                            range_noise_m=data.draw(st.sampled_from([0.0, 0.02])),
                            bearing_noise_rad=bearing_noise,
                            occlusion=data.draw(st.booleans()))
    p.range_m[:] = data.draw(st.lists(st.sampled_from([0.0, 0.3, 0.8, 1.5, 4.0]),
                                      min_size=total, max_size=total))
    p.antenna_m[:] = data.draw(st.sampled_from([0.0, 0.03, 0.15]))
    full, fast = _pair(p, runs)
    sizes = np.array(data.draw(st.lists(st.integers(-1, 10), min_size=total, max_size=total)))
    off = np.array(data.draw(st.lists(st.booleans(), min_size=total, max_size=total)))
    for tick in range(3):
        for m in (full, fast):
            m.enabled[off] = False          # switched off: still listens
            m.out_size[:] = np.where(m.enabled, sizes, -1)   # some silent, some too long
            m.deliver(world, tick=tick)
        _same(full, fast, bearing_noise > 0)
        world.bodies.x[:] += 0.05
        world.refresh_grid()


def test_what_the_sums_path_cannot_do_gets_the_full_inbox_and_the_same_sums():
    rng = np.random.default_rng(5)
    poses = [[(x, y, a) for x, y, a in zip(rng.uniform(-1, 1, 30), rng.uniform(-1, 1, 30),
                                          rng.uniform(-3, 3, 30))]]
    world = make_world(poses)
    for change in ("capacity", "keep_inbox", "a reader of the inbox"):
        p = RadioParams.uniform(30, 0.8)
        m = Medium(p, 1)
        m.readers.append(types.SimpleNamespace(sums_per_m=PER_M))
        m.deliver(world)
        count, pull = m.neighbour_sums(PER_M)
        assert isinstance(m.inbox, SummedInbox)
        if change == "capacity":
            p.capacity[:] = 100   # more than anyone hears: the same receptions
        elif change == "keep_inbox":
            m.keep_inbox = True
        else:
            m.readers.append(types.SimpleNamespace(sums_per_m=None))
        m.deliver(world)
        assert isinstance(m.inbox, Inbox), change
        c, pl = m.neighbour_sums(PER_M)
        assert np.array_equal(c, count), change
        if change == "capacity":                       # summed from the inbox's angles
            np.testing.assert_allclose(pl, pull, rtol=0, atol=1e-12, err_msg=change)
        else:                                          # still summed from the bodies
            assert np.array_equal(pl, pull), change
        assert c.sum() > 0


def test_reading_a_reception_of_a_summed_tick_says_why_there_is_none():
    world = make_world([[(0.0, 0.0, 0.0), (0.2, 0.0, 0.0)]])
    m = Medium(RadioParams.uniform(2, 0.5), 1)
    m.readers.append(types.SimpleNamespace(sums_per_m=PER_M))
    m.deliver(world)
    assert m.neighbour_sums(PER_M)[0].tolist() == [1, 1]
    with pytest.raises(RuntimeError, match="keep_inbox"):
        m.inbox.start  # noqa: B018
    with pytest.raises(ValueError, match="per_m"):
        m.neighbour_sums(1.0)


def test_senders_straight_above_or_a_hair_aside_pull_as_their_bearing_angle_does():
    # (x, y, yaw) of a receiver and of senders stacked over it or offset by less than the
    # squares of a float can hold: the unit vector is then the one of atan2's angle
    poses = [[(0.0, 0.0, 0.0), (0.0, 0.0, 1.0), (1e-200, 0.0, 0.0), (0.0, -3e-170, 0.0),
              (-1e-300, 1e-300, 0.0), (3e-160, 2e-160, 0.0), (0.1, 0.05, 2.0)]]
    world = make_world(poses, z=[0.0, 0.3, 0.2, 0.1, 0.25, 0.15, 0.0])
    for tick in range(2):
        p = RadioParams.uniform(7, 0.5, robots_occlude=False)   # stacked bodies would block
        full, fast = _pair(p, 1)
        for m in (full, fast):
            m.deliver(world, tick=tick)
        _same(full, fast, noisy_bearing=False)
        c, pull = fast.neighbour_sums(PER_M)
        assert c.tolist() == [6] * 7
        world.bodies.yaw[:] += 0.7
