"""buzz-bidding and sim-bidding: the durations are judged two-sided against the thesis's means,
within its standard deviations; a radio that is too slow fails, the quick runs pass."""

import pytest

pytest.importorskip("swarmstack.buzz.vm")

from swarmstack.buzz.swarm.topology import InMemoryRadio  # noqa: E402
from swarmstack.validations import buzz_bidding, sim_bidding  # noqa: E402

SLOW = [f"§4.7.1, Fig. 4.8, {n} drones: mean auction duration (tolerance: the thesis's sd)"
        for n in buzz_bidding.SIZES]


def failing(result):
    return bad(result.rows)


def bad(rows):
    return [r.quantity for r in rows if not r.ok]


def test_reference_side_is_the_thesis():
    # §4.7.1, Fig. 4.8: mean ± sd of 20 auctions per size, at 50 ms steps
    assert buzz_bidding.PAPER_MS == {3: (88.00, 29.25), 4: (99.05, 35.30), 6: (137.10, 21.70)}
    assert buzz_bidding.STEP_MS == 50


def test_duration_rows_fail_too_fast_and_too_slow_auctions():
    agree = {n: 1 for n in buzz_bidding.SIZES}
    # 1 step (50 ms) is faster than 88 - 29.25 ms; 4 steps (200 ms) slower than 137.10 + 21.70
    fast = buzz_bidding.bidding_rows({3: [1], 4: [2], 6: [3]}, agree, 1, 50.0)
    assert bad(fast) == [SLOW[0]]
    slow = buzz_bidding.bidding_rows({3: [2], 4: [2], 6: [4]}, agree, 1, 50.0)
    assert bad(slow) == [SLOW[2]]
    empty = buzz_bidding.bidding_rows({3: [], 4: [], 6: []}, agree, 1, 50.0)
    assert bad(empty) == SLOW


def test_buzz_bidding_quick_is_inside_tolerance(tmp_path):
    result = buzz_bidding.reproduce(tmp_path, quick=True)
    assert result.ok, failing(result)
    assert result.files and all(f.exists() and f.suffix == ".png" for f in result.files)


def _late_exchange(original):
    """A radio whose frames arrive one step later than they should."""
    def exchange(self, packets):
        fresh = [list(inbox) for inbox in original(self, packets)]
        held = getattr(self, "_held", None)
        self._held = fresh
        return held if held is not None else [[] for _ in fresh]
    return exchange


def test_buzz_bidding_fails_when_frames_arrive_a_step_late(tmp_path, monkeypatch):
    monkeypatch.setattr(InMemoryRadio, "exchange", _late_exchange(InMemoryRadio.exchange))
    result = buzz_bidding.reproduce(tmp_path, quick=True)
    assert not result.ok
    assert set(SLOW) <= set(failing(result))


def test_sim_bidding_fails_when_frames_arrive_a_tick_late(tmp_path, medium_one_tick_late):
    result = sim_bidding.validate(tmp_path, quick=True)
    assert not result.ok
    assert set(SLOW) <= set(failing(result))
