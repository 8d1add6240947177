"""The ``sim-*`` validations (Buzz scripts on simulated E-Puck2 robots) in their quick form, and
mutations showing that each one fails when the simulated world is wrong."""

import pytest

pytest.importorskip("swarmstack.buzz.vm")

from swarmstack.experiments import reproduce  # noqa: E402
from swarmstack.experiments.reproduce import (sim_bandwidth, sim_barrier,  # noqa: E402
                                              sim_bidding, sim_vs_consensus)

NAMES = ["sim-barrier", "sim-vs-consensus", "sim-bidding", "sim-bandwidth"]


def failing(result):
    return [r.quantity for r in result.rows if not r.ok]


@pytest.mark.parametrize("name", NAMES)
def test_validation_quick(name, tmp_path):
    import importlib

    importlib.import_module(reproduce._MODULES[name])
    result = reproduce._REGISTRY[name](tmp_path, quick=True)
    assert result.ok, [(r.quantity, r.ours) for r in result.rows if not r.ok]
    assert result.files and all(f.exists() and f.suffix == ".png" for f in result.files)


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
    # run r puts the value at its own step: the delays stay one step in the circle
    delays = sim_vs_consensus.consensus_runs("circle", [2, 5, 9], seed=3)
    assert delays == [[1] * 9] * 3


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
    assert "every reader reaches consensus" in failing(result)


def test_vs_consensus_fails_when_every_robot_hears_the_writer(tmp_path):
    # a 5 m range links the whole chain: the value no longer travels hop by hop
    result = sim_vs_consensus.validate(tmp_path, quick=True, range_m=5.0)
    bad = failing(result)
    assert any(q.startswith("chain, loss-free") for q in bad)
    assert not any(q.startswith("circle") for q in bad)


def test_vs_consensus_fails_with_heavy_loss(tmp_path):
    result = sim_vs_consensus.validate(tmp_path, quick=True, loss=0.5)
    assert not result.ok


def test_bidding_fails_with_no_payload(tmp_path):
    result = sim_bidding.validate(tmp_path, quick=True, payload_bytes=0, max_steps=20)
    assert not result.ok
    assert all(f"{n} robots: all agree on the winner of the bid rule" in failing(result)
               for n in sim_bidding.SIZES)


def test_bidding_trend_needs_losses(tmp_path):
    # on a loss-free radio every auction takes the same steps: no growth to find
    result = sim_bidding.validate(tmp_path, quick=True, drop=0.0)
    assert failing(result) == ["auction duration grows with robot count"]


def test_bidding_winner_is_the_bid_rule():
    [(winners, steps)] = sim_bidding.bidding_runs(4, seed=1, tasks=[7], drop=0.0)
    assert winners == [sim_bidding.expected_winner(4, 7)] * 4 and all(s > 0 for s in steps)


def test_bandwidth_fails_when_frames_exceed_250_bytes(tmp_path):
    # a radio allowing 1000 B frames: the loaded script goes past the paper's 250 B
    result = sim_bandwidth.validate(tmp_path, quick=True, payload_bytes=1000)
    assert not result.ok
    assert any("largest frame" in q for q in failing(result))


def test_bandwidth_fails_when_nothing_fits(tmp_path):
    # a 0 B payload: the cap is never approached, so the check would be vacuous
    result = sim_bandwidth.validate(tmp_path, quick=True, payload_bytes=0)
    bad = failing(result)
    assert "stigmergy load: frames are full (the cap binds)" in bad
    assert "stigmergy load: replicas stay current despite full frames" in bad
