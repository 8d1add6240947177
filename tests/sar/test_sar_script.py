"""``examples/buzz/sar/sar.bzz`` on simulated Crazyflies: the search finds the targets, one root
is elected at the meeting point, the relay tree follows Eq. 5.2 with the communication range as
spacing, the networkers fly to their positions, the belief map is shared, and the same script
runs under the BittyBuzz profile."""

import math

from pathlib import Path

import pytest

from swarmstack.buzz.heap import BBZHEAP_SIZE
from swarmstack.validations import sar

ARENA, DRONES = 20.0, 10
RANGE = 10.0     # the thesis's communication range (§5.4.2), the relay spacing
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def belief_run():
    return sar.run_case(ARENA, DRONES, "belief", 11, 1, 3000, keep_sim=True)


@pytest.fixture(scope="module")
def random_run():
    return sar.run_case(ARENA, DRONES, "random", 11, 1, 3000, keep_sim=True)


def globals_of(case, name):
    ctrl = case.sim.buzz(sar.DRONES)
    return [ctrl.get_global(k, name) for k in range(len(ctrl.robots))]


def test_targets_found_and_relay_formed_without_failures(belief_run, random_run):
    for case in (belief_run, random_run):
        assert case.failures == 0
        assert case.find_ticks[0] > 0 and case.formed_at[0] >= case.find_ticks[0]
        assert 0 < case.formation_ticks[0] <= case.formed_at[0]


def test_one_root_at_the_meeting_point(belief_run):
    states = globals_of(belief_run, "state")
    roots = [k for k, s in enumerate(states) if s in ("root", "auctioneer")]
    assert len(roots) == 1
    w = belief_run.sim.world
    k = roots[0]
    rdv = (-ARENA / 2 + sar.RDV_INSET_M, 0.0)
    assert math.dist((w.bodies.x[k], w.bodies.y[k]), rdv) < 1.0
    # everyone that heard the root agrees on it
    ids = {r for r, s in zip(globals_of(belief_run, "root_id"), states) if r != -1}
    assert ids == {k}


def test_relay_tree_follows_eq_5_2_with_range_spacing(belief_run):
    states = globals_of(belief_run, "state")
    k = next(i for i, s in enumerate(states) if s == "root")
    relays = globals_of(belief_run, "relays")[k]
    pts = [(relays[i]["x"], relays[i]["y"]) for i in range(len(relays))]
    w = belief_run.sim.world
    t = w.group(sar.TARGETS)
    targets = list(zip(w.bodies.x[t.slice], w.bodies.y[t.slice]))
    # a relay position on every target (the finder reports where its camera saw it)
    for p in targets:
        assert min(math.dist(p, q) for q in pts[1:]) < 1e-3
    # every relay is within one communication range of the tree built before it
    for i in range(1, len(pts)):
        assert min(math.dist(pts[i], q) for q in pts[:i]) <= RANGE + 1e-6
    # and no more relays than the branches need: each branch starts at the node nearest
    # its target, so the count is the sum of ceil(branch / RANGE)
    assert len(pts) - 1 <= sum(math.ceil(math.dist(p, pts[0]) / RANGE) for p in targets)


def test_networkers_hold_the_positions_they_won(belief_run):
    states = globals_of(belief_run, "state")
    k = next(i for i, s in enumerate(states) if s == "root")
    relays = globals_of(belief_run, "relays")[k]
    networkers = [i for i, s in enumerate(states) if s == "networker"]
    assert len(networkers) == len(relays) - 1
    sim = belief_run.sim
    for _ in range(100):       # let the last winners arrive
        sim.step()
    b = sim.world.bodies
    pts = [(relays[i]["x"], relays[i]["y"]) for i in range(1, len(relays))]
    for i in networkers:
        assert min(math.dist((b.x[i], b.y[i]), p) for p in pts) < 1.0


def test_belief_map_is_shared_only_in_belief_search(belief_run, random_run):
    # the belief search gossips its map: far more bytes per drone than the random walk
    assert belief_run.bytes_per_robot_tick[0] > 10 * random_run.bytes_per_robot_tick[0]
    ctrl = belief_run.sim.buzz(sar.DRONES)
    searched = [ctrl.get_global(k, "last_cell") for k in range(len(ctrl.robots))]
    assert all(c >= 0 for c in searched)


def test_runs_under_the_bittybuzz_profile_within_its_heap():
    case = sar.bittybuzz_case()
    assert case.failures == 0
    assert case.formed_at[0] > 0
    assert 0 < case.heap_peak <= BBZHEAP_SIZE


def test_the_shipped_example_forms_its_relay():
    from swarmstack.sim.simulation import Simulation

    sim = Simulation.from_file(ROOT / "examples" / "crazyflie_sar.toml")
    sim.start()
    ctrl = sim.buzz("drones")
    for _ in range(60):
        sim.run(10)
        if any(ctrl.get_global(k, "formed_at") > 0 for k in range(len(ctrl.robots))):
            break
    states = [ctrl.get_global(k, "state") for k in range(len(ctrl.robots))]
    assert any(ctrl.get_global(k, "formed_at") > 0 for k in range(len(ctrl.robots)))
    assert states.count("root") == 1 and states.count("networker") >= 3
    assert not sim.robot_failures()
