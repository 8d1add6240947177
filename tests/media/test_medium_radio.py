"""The medium as the Buzz swarm layer's radio: scripts run on simulated positions and walls."""

from __future__ import annotations

import math

import pytest

from swarmstack.sim.simulation import Simulation
from swarmstack.media import Medium, MediumRadio, RadioParams

pytest.importorskip("swarmstack.buzz.vm")

from swarmstack.buzz.swarm import Harness  # noqa: E402

# three E-Puck2s in a row, 30 cm apart; a 10 cm wall between robots 1 and 2
ROW_WITH_WALL = {
    "arena": {"size": [2.0, 1.0], "walls": True},
    "boxes": [{"center": [0.45, 0.0], "size": [0.02, 0.6, 0.1]}],
    "robots": [{"name": "e", "placement": {"kind": "explicit",
                                           "poses": [[0.0, 0.0, 0.0], [0.3, 0.0, 0.0],
                                                     [0.6, 0.0, math.pi]]}}],
}


def medium_radio(cfg=ROW_WITH_WALL, runs=1, run=0, **values):
    sim = Simulation.from_dict(cfg, seed=3, runs=runs)
    sim.start()
    values = {"range_m": 0.5, "payload_bytes": 200, **values}
    p = RadioParams.for_world(sim.world, {"e": values}, seed=sim.seed)
    return MediumRadio(Medium(p, sim.world.n_runs), sim.world, run=run)


def test_buzz_neighbours_follow_range_and_walls():
    radio = medium_radio()
    run = Harness("function step() { c = neighbors.count() }", 3, radio=radio).run(3)
    assert [r.globals["c"] for r in run.robots] == [1, 1, 0]
    assert run.packets_sent > 0 and run.packets_dropped == 0


def test_buzz_sees_distances_and_bearings_of_the_simulated_robots():
    src = """
    function step() {
      d = neighbors.get(1).distance
      a = neighbors.get(1).azimuth
    }
    """
    run = Harness(src, 3, radio=medium_radio()).run(2)
    assert run.robots[0].globals["d"] == pytest.approx(30.0)  # cm by default
    assert run.robots[0].globals["a"] == pytest.approx(0.0, abs=1e-9)


def test_buzz_messages_do_not_cross_the_wall():
    src = """
    got = 0
    neighbors.listen("x", function(t, v, rid) { got = got + v })
    function step() { neighbors.broadcast("x", 1) }
    """
    run = Harness(src, 3, radio=medium_radio()).run(4)
    got = [r.globals["got"] for r in run.robots]
    assert got[0] == got[1] > 0 and got[2] == 0  # 0 and 1 hear each other, 2 nobody


def test_exchange_returns_receptions_by_robot_id():
    radio = medium_radio()
    assert radio.payload_cap == 200 and radio.n == 3
    inboxes = radio.exchange([b"hi", b"", None])
    assert [[r[0] for r in box] for box in inboxes] == [[1], [0], []]
    sender, payload, d, az, el = inboxes[1][0]
    assert (sender, payload) == (0, b"hi")
    assert d == pytest.approx(0.3) and abs(az) == pytest.approx(math.pi) and el == 0.0
    assert inboxes[0][0][1] == b""
    assert radio.sent == 2 and radio.dropped == 0
    # a packet over the cap is refused by the radio, not truncated
    inboxes = radio.exchange([b"x" * 201, b"ok", b""])
    assert [[r[0] for r in box] for box in inboxes] == [[1], [], []]
    assert radio.medium.stats_of(0)["messages_refused"] == 1


def test_exchange_drops_are_fresh_every_step():
    radio = medium_radio(drop=0.5)
    heard = [len(radio.exchange([b"", b"", b""])[1]) for _ in range(200)]  # robot 0 or none
    assert 0 < sum(heard) < 200
    assert radio.dropped == pytest.approx(radio.sent / 2, rel=0.2)


def test_a_radio_over_one_run_of_a_batch():
    radio = medium_radio(runs=3, run=2)
    inboxes = radio.exchange([b"a", b"b", b"c"])
    assert [[(r[0], r[1]) for r in box] for box in inboxes] == [[(1, b"b")], [(0, b"a")], []]
    assert radio.medium.stats_of(0)["messages_sent"] == 0
    with pytest.raises(ValueError):
        MediumRadio(radio.medium, radio.world, n=4, run=0)
