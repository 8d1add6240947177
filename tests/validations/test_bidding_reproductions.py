"""buzz-bidding and sim-bidding: the durations are a trend only, but their sanity bounds must
catch a radio that is too slow; the unchanged quick runs stay inside tolerance."""

import pytest

pytest.importorskip("swarmstack.buzz.vm")

from swarmstack.buzz.swarm.topology import InMemoryRadio  # noqa: E402
from swarmstack.experiments.reproduce import buzz_bidding, sim_bidding  # noqa: E402
from swarmstack.media.rab import Inbox, Medium  # noqa: E402

SLOW = f"sanity bound: mean auction ≤ {buzz_bidding.MAX_MEAN_STEPS} steps " \
       f"({buzz_bidding.MAX_MEAN_STEPS * buzz_bidding.STEP_MS} ms) for every size"


def failing(result):
    return [r.quantity for r in result.rows if not r.ok]


def test_bounds_come_from_the_thesis():
    # 137.10 + 2 × 21.70 = 180.5 ms → 4 whole steps of 50 ms; two radio hops at least
    assert buzz_bidding.MAX_MEAN_STEPS == 4 and buzz_bidding.MIN_HOPS == 2
    trend = [r for r in buzz_bidding.timing_rows({3: [3], 4: [3], 6: [4]}, True, "")
             if r.quantity == "auction duration grows with robot count"]
    assert trend and trend[0].paper.startswith("trend only")


def test_timing_rows_flag_too_fast_and_too_slow_auctions():
    fast = buzz_bidding.timing_rows({3: [1, 3], 4: [3], 6: [3]}, True, "")
    assert [r.ok for r in fast] == [True, False, True]
    slow = buzz_bidding.timing_rows({3: [3], 4: [3], 6: [5, 4]}, True, "")
    assert [r.ok for r in slow] == [True, True, False]
    empty = buzz_bidding.timing_rows({3: [], 4: [], 6: []}, False, "")
    assert not any(r.ok for r in empty)


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
    assert SLOW in failing(result)


def test_sim_bidding_fails_when_frames_arrive_a_tick_late(tmp_path, monkeypatch):
    original = Medium.deliver

    def deliver(self, world, tick=None):
        fresh = original(self, world, tick)
        held = getattr(self, "_held", None)
        self._held = fresh
        self.inbox = held if held is not None else Inbox.empty(self.n, self.max_cap)
        return self.inbox

    monkeypatch.setattr(Medium, "deliver", deliver)
    result = sim_bidding.validate(tmp_path, quick=True)
    assert not result.ok
    assert SLOW in failing(result)
