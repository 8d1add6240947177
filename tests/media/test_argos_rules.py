"""The range-and-bearing medium links robots by ARGoS's rules unless told otherwise: equal
payload sizes only (``mixed_sizes`` lifts it), every body blocks the line between two antennas
(robots too), and a receiver exactly at the sender's range does not hear it. Every path of the
medium — the full inbox (one thread or many) and the neighbour sums made without it — keeps
the same rules."""

from __future__ import annotations

import types

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarmstack.sim.simulation import Simulation
from swarmstack.media import Inbox, Medium, RadioParams, SummedInbox
from tests.media.worlds import heard, make_world, row

PER_M = 100.0
PATHS = ("serial", "parallel", "sums", "sums beside the inbox")


def _counts(p: RadioParams, world, path: str) -> np.ndarray:
    """How many senders each body hears after one delivery along ``path``; for the inbox
    paths also the senders themselves (a list per body)."""
    m = Medium(p, world.scene.n_runs, parallel=path == "parallel")
    if path.startswith("sums"):
        m.readers.append(types.SimpleNamespace(sums_per_m=PER_M))
        m.keep_inbox = path == "sums beside the inbox"
    m.deliver(world)
    if path == "sums":
        assert isinstance(m.inbox, SummedInbox)
    count, _ = m.neighbour_sums(PER_M)
    return count.copy(), (m.inbox if isinstance(m.inbox, Inbox) else None)


def _heard_everywhere(p: RadioParams, world) -> list[list[int]]:
    """Senders heard by each body, the same along every path (checked)."""
    serial_count, inbox = _counts(p, world, "serial")
    lists = [heard(inbox, j) for j in range(world.bodies.n)]
    for path in PATHS[1:]:
        count, other = _counts(p, world, path)
        assert np.array_equal(count, serial_count), path
        if other is not None:
            assert [heard(other, j) for j in range(world.bodies.n)] == lists, path
    return lists


def test_defaults_are_argos_rules():
    p = RadioParams.uniform(2, 1.0)
    assert p.robots_occlude and p.occlusion and not p.mixed_sizes
    from swarmstack.experiments.config import MediumCfg

    cfg = MediumCfg()
    assert cfg.occlusion and cfg.robots_occlude and not cfg.mixed_sizes


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.floats(0.1, 3.0), st.floats(-1.5, 1.5))
def test_a_receiver_exactly_at_the_range_does_not_hear(range_m, y):
    # from x = 0 along x the distance is |x| exactly: sqrt(r * r) == r in floating point
    inside = float(np.nextafter(range_m, 0.0))
    world = make_world([row([0.0, range_m, -inside], y=y)], bounds=(-5, -5, 5, 5))
    p = RadioParams.uniform(3, range_m, payload_bytes=4, occlusion=False,
                            robots_occlude=False)
    lists = _heard_everywhere(p, world)
    assert 1 not in lists[0] and 0 not in lists[1]     # exactly at the range: no link
    assert 2 in lists[0] and 0 in lists[2]             # a hair closer: linked


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from([2, 4, 10]), min_size=2, max_size=8), st.booleans())
def test_only_equal_payload_sizes_link_unless_sizes_may_mix(sizes, mixed):
    n = len(sizes)
    world = make_world([row(0.1 * np.arange(n), y=0.0)], radius=0.01)
    p = RadioParams.uniform(n, 2.0, occlusion=False, robots_occlude=False, mixed_sizes=mixed)
    p.payload_bytes[:] = sizes
    lists = _heard_everywhere(p, world)
    for j in range(n):
        expected = [i for i in range(n) if i != j and (mixed or sizes[i] == sizes[j])]
        assert lists[j] == expected


def test_with_mixed_sizes_a_receiver_gets_the_frame_as_sent():
    world = make_world([row([0.0, 0.2])])
    p = RadioParams.uniform(2, 1.0, mixed_sizes=True)
    p.payload_bytes[:] = (10, 2)
    m = Medium(p, 1)
    m.outbox[0, :10] = np.arange(1, 11)
    m.out_size[0] = 10
    m.out_size[1] = 0
    inbox = m.deliver(world)
    # the 2-byte radio hears all 10 bytes; the 10-byte radio hears the empty frame
    assert inbox.receptions(1)[0][:2] == (0, bytes(range(1, 11)))
    assert inbox.receptions(0)[0][:2] == (1, b"")


@pytest.mark.parametrize("robots_occlude", [True, False])
def test_a_robot_between_two_others_blocks_them_by_default(robots_occlude):
    world = make_world([row([0.0, 0.3, 0.6])])
    kw = {} if robots_occlude else {"robots_occlude": False}
    p = RadioParams.uniform(3, 1.0, **kw)
    lists = _heard_everywhere(p, world)
    assert lists[1] == [0, 2]                     # the middle robot hears both
    assert (2 in lists[0]) is not robots_occlude  # the ends only without robot occlusion
    assert (0 in lists[2]) is not robots_occlude


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_every_path_agrees_with_robots_occluding_and_sizes_mixed_or_not(data):
    n = data.draw(st.integers(3, 30))
    coords = st.floats(-1.0, 1.0)
    poses = [[(data.draw(coords), data.draw(coords), 0.0) for _ in range(n)]]
    world = make_world(poses, boxes=[(0.25, 0.0, 0.01, 0.5, 0.0, 0.1)])
    world.bodies.z[:] = data.draw(st.lists(st.sampled_from([0.0, 0.0, 0.03, 0.3]),
                                           min_size=n, max_size=n))
    p = RadioParams.uniform(n, 0.7, mixed_sizes=data.draw(st.booleans()))
    p.payload_bytes[:] = data.draw(st.lists(st.sampled_from([4, 8]), min_size=n, max_size=n))
    p.antenna_m[:] = data.draw(st.sampled_from([0.0, 0.02]))
    _heard_everywhere(p, world)


def _experiment(mixed: bool | None) -> dict:
    radio = {} if mixed is None else {"mixed_sizes": mixed}
    return {"simulation": {"ticks": 1},
            "arena": {"size": [3.0, 3.0]},
            "radio": radio,
            "robots": [
                {"name": "pucks", "type": "epuck2", "radio": True,
                 "placement": {"kind": "explicit", "poses": [[0.0, 0.0, 0.0]]}},
                {"name": "rovers", "type": "rvr", "radio": True,
                 "placement": {"kind": "explicit", "poses": [[0.5, 0.0, 0.0]]}}]}


@pytest.mark.parametrize("mixed", [None, True])
def test_an_experiment_of_two_payload_sizes_links_only_when_told(tmp_path, mixed):
    # the E-Puck2's board carries 2 bytes, the RVR's 10: ARGoS would never link them
    sim = Simulation.from_dict(_experiment(mixed), base_dir=tmp_path)
    inbox = sim.medium.deliver(sim.world)
    assert len(inbox) == (2 if mixed else 0)
