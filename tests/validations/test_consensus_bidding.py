"""The consensus (§4.6.2) and bidding (§4.7.1) validations of the BittyBuzz thesis: each passes
as shipped, and each fails when the model is wrong — a radio whose frames arrive one step late,
a wrong step period, a radio range that makes the chain relay hop by hop, or frames too small
for a step's messages."""

import pytest
from hypothesis import given, settings, strategies as st

pytest.importorskip("swarmstack.buzz.vm")

from swarmstack.buzz.swarm.topology import InMemoryRadio  # noqa: E402
from swarmstack.validations import (buzz_bidding, buzz_vs_consensus,  # noqa: E402
                                              sim_bidding, sim_robots, sim_vs_consensus)
from tests.validations.quick import failing, run  # noqa: E402

COMMANDS = ["sim-vs-consensus", "buzz-vs-consensus", "sim-bidding", "buzz-bidding"]
CONSENSUS_MEAN = "§4.6.2, Fig. 4.7: mean time from put to read, both layouts " \
                 "(tolerance: the thesis's sd)"


def duration_row(n):
    return f"§4.7.1, Fig. 4.8, {n} drones: mean auction duration (tolerance: the thesis's sd)"


@pytest.fixture
def harness_radio_one_step_late(monkeypatch):
    """The Buzz harness's radio delivers every frame one step after it was sent."""
    original = InMemoryRadio.exchange

    def exchange(self, packets):
        fresh = [list(inbox) for inbox in original(self, packets)]
        held = getattr(self, "_held", None)
        self._held = fresh
        return held if held is not None else [[] for _ in fresh]

    monkeypatch.setattr(InMemoryRadio, "exchange", exchange)




# ---------------------------------------------------------------------- as shipped
@pytest.mark.parametrize("name", COMMANDS)
def test_passes_as_shipped_with_the_thesis_numbers(name, tmp_path):
    result = run(name, tmp_path)
    assert result.ok, failing(result)
    judged = [r for r in result.rows if not r.informative]
    numeric = [r for r in judged if r.paper_value is not None]
    assert len(numeric) == len(judged)
    assert all(r.tolerance is not None and r.ours_value is not None for r in numeric)
    assert all("§4." in r.quantity for r in judged)
    papers = {r.paper_value for r in numeric}
    if "consensus" in name:
        assert {56.8, 1.5} <= papers
        assert [r.tolerance for r in numeric if r.paper_value == 56.8] == [23.26]
    else:
        assert {88.00, 99.05, 137.10} <= papers
        assert {r.paper_value: r.tolerance for r in numeric if r.unit == "ms"} == \
            {88.00: 29.25, 99.05: 35.30, 137.10: 21.70}


# ---------------------------------------------------------------------- one step late
def test_buzz_consensus_fails_with_a_radio_one_step_late(tmp_path, harness_radio_one_step_late):
    result = buzz_vs_consensus.reproduce(tmp_path, quick=True)
    assert not result.ok
    assert CONSENSUS_MEAN in failing(result)


def test_sim_consensus_fails_with_a_radio_one_tick_late(tmp_path, medium_one_tick_late):
    result = sim_vs_consensus.validate(tmp_path, quick=True)
    assert not result.ok
    assert CONSENSUS_MEAN in failing(result)


def test_buzz_bidding_fails_with_a_radio_one_step_late(tmp_path, harness_radio_one_step_late):
    result = buzz_bidding.reproduce(tmp_path, quick=True)
    assert not result.ok
    assert {duration_row(n) for n in buzz_bidding.SIZES} <= set(failing(result))


def test_sim_bidding_fails_with_a_radio_one_tick_late(tmp_path, medium_one_tick_late):
    result = sim_bidding.validate(tmp_path, quick=True)
    assert not result.ok
    assert {duration_row(n) for n in buzz_bidding.SIZES} <= set(failing(result))


# ---------------------------------------------------------------------- wrong constants
def test_consensus_fails_when_the_chain_relays_hop_by_hop(tmp_path):
    # a 0.6 m range: each chain robot hears only its neighbours, the far end is 9 steps away
    for result in (buzz_vs_consensus.reproduce(tmp_path, quick=True, range_m=0.6),
                   sim_vs_consensus.validate(tmp_path, quick=True, range_m=0.6)):
        bad = failing(result)
        assert "§4.6.2, chain: slowest reader, steps from put to read " \
               "(thesis: one or two control steps)" in bad
        assert CONSENSUS_MEAN in bad


def test_buzz_consensus_fails_with_a_100_ms_step(tmp_path):
    result = buzz_vs_consensus.reproduce(tmp_path, quick=True, step_ms=100)
    assert failing(result) == [CONSENSUS_MEAN]


def test_sim_consensus_and_bidding_fail_with_a_10_hz_tick(tmp_path, monkeypatch):
    monkeypatch.setattr(sim_robots, "TICKS_PER_SECOND", 10)
    assert CONSENSUS_MEAN in failing(sim_vs_consensus.validate(tmp_path, quick=True))
    bad = failing(sim_bidding.validate(tmp_path, quick=True))
    assert {duration_row(n) for n in buzz_bidding.SIZES} <= set(bad)


def test_buzz_bidding_fails_with_a_100_ms_step(tmp_path):
    result = buzz_bidding.reproduce(tmp_path, quick=True, step_ms=100)
    assert {duration_row(n) for n in buzz_bidding.SIZES} <= set(failing(result))


def test_bidding_fails_when_a_frame_holds_24_bytes(tmp_path):
    # a bidder's own bid waits a step behind the two entries it relays
    for result in (buzz_bidding.reproduce(tmp_path, quick=True, payload_cap=24),
                   sim_bidding.validate(tmp_path, quick=True, payload_bytes=24)):
        assert {duration_row(n) for n in buzz_bidding.SIZES} <= set(failing(result))


# ---------------------------------------------------------------------- the verdicts
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=30),
       st.lists(st.integers(1, 4), min_size=1, max_size=30))
def test_consensus_verdict_is_one_or_two_steps_and_the_thesis_mean(circle, chain):
    rows = buzz_vs_consensus.consensus_rows({"circle": circle, "chain": chain}, 50.0)
    every = circle + chain
    mean_ms = 50.0 * sum(every) / len(every)
    expected = all(d in (1, 2) for d in every) and abs(mean_ms - 56.8) <= 23.26
    assert all(r.ok for r in rows) == expected


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(buzz_bidding.SIZES), st.lists(st.integers(1, 5),
                                                                      min_size=1, max_size=20),
                       min_size=3, max_size=3))
def test_bidding_verdict_is_two_sided_around_the_thesis_means(durations):
    rows = buzz_bidding.bidding_rows(durations, {n: 20 for n in durations}, 20, 50.0)
    paper = {3: (88.00, 29.25), 4: (99.05, 35.30), 6: (137.10, 21.70)}
    expected = all(abs(50.0 * sum(d) / len(d) - paper[n][0]) <= paper[n][1]
                   for n, d in durations.items())
    assert all(r.ok for r in rows) == expected


def test_bidding_verdict_fails_when_robots_disagree():
    rows = buzz_bidding.bidding_rows({3: [2], 4: [2], 6: [3]}, {3: 19, 4: 20, 6: 20}, 20, 50.0)
    assert [r.ok for r in rows] == [False, True, True, True, True, True]
