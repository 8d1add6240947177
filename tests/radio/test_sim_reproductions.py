"""The ``sim-*`` validations (Buzz scripts on simulated E-Puck2 robots) in their quick form, and
mutations showing that each one fails when the simulated world is wrong."""

from pathlib import Path

import pytest

pytest.importorskip("swarmstack.buzz.vm")

from swarmstack import validations as reproduce  # noqa: E402
from tests.validations.quick import all_quick  # noqa: E402
from swarmstack.validations import (sim_bandwidth, sim_barrier,  # noqa: E402
                                              sim_bidding, sim_vs_consensus)

NAMES = ["sim-barrier", "sim-vs-consensus", "sim-bidding", "sim-bandwidth"]


def failing(result):
    return [r.quantity for r in result.rows if not r.ok]


@pytest.mark.parametrize("name", NAMES)
def test_validation_quick(name, tmp_path_factory):
    # the session's `swarmstack reproduce --all --quick` ran it: inside tolerance, with its plot
    _, results, _ = all_quick(tmp_path_factory)
    (result,) = [r for r in results if r["name"] == name]
    assert result["ok"], [(r["quantity"], r["ours"]) for r in result["rows"] if not r["ok"]]
    assert result["files"] and all(Path(f).exists() and Path(f).suffix == ".png"
                                   for f in result["files"])


def test_registered():
    assert set(NAMES) <= set(reproduce.names())


# ---------------------------------------------------------------------- batching
def test_batched_barrier_runs_equal_runs_alone():
    batched, _ = sim_barrier.barrier_runs(0.6, seed=40, runs=3)
    for k in range(3):
        alone, _ = sim_barrier.barrier_runs(0.6, seed=40 + k, runs=1)
        assert alone[0] == batched[k]


def test_batched_radio_equals_runs_alone():
    def simulate(seed, runs):
        sim = sim_barrier.buzz_simulation("barrier.bzz", sim_barrier.circle_poses(6, 0.25),
                                          {"ROBOTS": 6}, {"range": 0.8, "drop": 0.7,
                                                          "payload_bytes": 250}, seed, runs)
        sim.run(25)
        return sim.radio_stats()["per_run"], sim_barrier.per_run(sim, "done_at")

    stats, left = simulate(11, 2)
    for k in range(2):
        alone_stats, alone_left = simulate(11 + k, 1)
        assert alone_stats[0] == stats[k] and alone_left[0] == left[k]


def test_per_run_parameters_reach_their_run():
    # run r puts the value at its own step: on a loss-free radio every reader has it one
    # 50 ms step later
    delays, step_ms = sim_vs_consensus.consensus_runs("circle", [2, 5, 9], seed=3, drop=0.0)
    assert delays == [[1] * 9] * 3 and step_ms == 50.0


# ---------------------------------------------------------------------- mutations
def test_barrier_fails_when_robots_are_out_of_range(tmp_path):
    # 0.1 m range: the robots (0.25 m apart at least) never hear each other
    result = sim_barrier.validate(tmp_path, quick=True, range_m=0.1, max_steps=40)
    assert not result.ok
    assert all("leaves the barrier" in q for q in failing(result)[:3])


def test_barrier_fails_without_packet_loss(tmp_path):
    # a radio that ignores the requested drop: consensus is fast everywhere
    result = sim_barrier.validate(tmp_path, quick=True, apply_drop=False)
    assert not result.ok
    bad = failing(result)
    assert "radio lost the requested fraction of frames" in bad
    assert "steps to consensus grow with drop rate" in bad


def test_barrier_fails_with_no_payload(tmp_path):
    result = sim_barrier.validate(tmp_path, quick=True, payload_bytes=0, max_steps=40)
    assert not result.ok


def test_vs_consensus_fails_when_range_is_too_short(tmp_path):
    result = sim_vs_consensus.validate(tmp_path, quick=True, range_m=0.3)
    assert not result.ok
    assert any(q.startswith("§4.6.2: share of readings") for q in failing(result))


def test_vs_consensus_fails_with_heavy_loss(tmp_path):
    result = sim_vs_consensus.validate(tmp_path, quick=True, loss=0.5)
    assert not result.ok


def test_bidding_fails_with_no_payload(tmp_path):
    result = sim_bidding.validate(tmp_path, quick=True, payload_bytes=0, max_steps=20)
    assert not result.ok
    assert all(f"§4.7.1, {n} drones: share of auctions where every robot picks the bid rule's "
               "winner (found locally)" in failing(result) for n in sim_bidding.SIZES)


def test_bidding_six_drones_need_losses(tmp_path):
    # on a loss-free radio every auction takes the two steps of its two hops (100 ms): inside
    # the thesis's 3- and 4-drone spreads, below its 6-drone one, which the lost bids make up
    result = sim_bidding.validate(tmp_path, quick=True, drop=0.0)
    assert failing(result) == ["§4.7.1, Fig. 4.8, 6 drones: mean auction duration "
                               "(tolerance: the thesis's sd)"]
    assert [r.ours_value for r in result.rows if r.unit == "ms"] == [100.0] * 3


def test_bidding_winner_is_the_bid_rule():
    [(winners, steps)], _ = sim_bidding.bidding_runs(4, seed=1, tasks=[7], drop=0.0)
    assert winners == [sim_bidding.expected_winner(4, 7)] * 4 and all(s > 0 for s in steps)


def test_bandwidth_is_the_same_under_a_larger_radio_frame(tmp_path):
    # the measurement is uncapped: a 8192 B radio frame changes none of the sizes
    shipped = sim_bandwidth.validate(tmp_path, quick=True)
    larger = sim_bandwidth.validate(tmp_path, quick=True, payload_bytes=8192)
    assert shipped.ok and larger.ok
    assert [r.ours_value for r in shipped.rows] == [r.ours_value for r in larger.rows]


def test_bandwidth_fails_when_nothing_fits(tmp_path):
    # a 0 B payload: every message is refused, nothing measured is what the script needs
    result = sim_bandwidth.validate(tmp_path, quick=True, payload_bytes=0)
    bad = failing(result)
    assert [q for q in bad if q.startswith("Fig. 8: largest frame")] == [
        f"Fig. 8: largest frame one robot needs in a step, Listing 1's barrier, {p:.0%} loss "
        "(uncapped radio)" for p in sim_bandwidth.BARRIER_DROPS]
