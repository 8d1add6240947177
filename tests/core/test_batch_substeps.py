"""Sub-steps are each run's own: a fast robot in one run of a batch never changes how the robots
of another run are integrated (E-Puck2 discs, RVR boxes, and a dynamics without its own bound,
measured after a trial step), so each run equals its seed simulated alone, bit for bit — poses,
contacts and collision counts."""

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.sim.simulation import Simulation
from swarmstack.robots.epuck2 import MAX_WHEEL_SPEED_M_S as EPUCK_MAX
from swarmstack.robots.rvr import MAX_TREAD_SPEED_M_S as RVR_MAX
from tests.core.robot_types import hoverbox  # noqa: F401  (registers the test type)

TICKS = 40
SEED = 21
# per robot type: ticks per second and arena side at which a robot at full speed needs several
# sub-steps (E-Puck2: 7.7 cm per tick, its safe step 2.1 cm; RVR: 15.6 cm, its safe step 8.6 cm)
# and the subject run's slower wheels (fewer sub-steps, or none)
SCENES = {"epuck2": (2, 1.0, EPUCK_MAX, {"left": 0.05, "right": 0.06, "wobble": 0.02}),
          "rvr": (10, 3.0, RVR_MAX, {"left": 0.5, "right": 0.45, "wobble": 0.1})}


def _config(robot_type: str) -> dict:
    tps, side, _, _ = SCENES[robot_type]
    return {"simulation": {"ticks_per_second": tps},
            "arena": {"size": [side, side], "walls": {"thickness": 0.01}},
            "boxes": [{"center": [0.1 * side, 0.0], "size": [0.1 * side, 0.02, 0.1]}],
            "robots": [{"name": "r", "type": robot_type, "count": 5,
                        "controller": {"python": "tests.core.substep_controllers:RunWheels"}}]}


def _trace(sim, run: int) -> tuple:
    rows = sim.world.bodies.run == run
    poses = []
    for _ in range(TICKS):
        sim.step()
        poses.append(sim.world.bodies.pose[:, rows].copy())
    return np.array(poses), sim.collisions()[run]


@functools.lru_cache(maxsize=None)
def _alone(robot_type: str) -> tuple:
    subject = SCENES[robot_type][3]
    return _trace(Simulation.from_dict(_config(robot_type), seed=SEED, params=[{"r": subject}]),
                  0)


@settings(max_examples=20, deadline=None)
@given(robot_type=st.sampled_from(sorted(SCENES)), data=st.data())
def test_a_run_equals_its_seed_alone_beside_fast_companions(robot_type, data):
    top = SCENES[robot_type][2]
    speed = st.floats(-top, top)
    companions = data.draw(st.lists(st.fixed_dictionaries(
        {"left": speed, "right": speed, "wobble": st.floats(0.0, 0.1 * top)}),
        min_size=1, max_size=2), label="companions")
    k = data.draw(st.integers(0, len(companions)), label="place of the run in the batch")
    params = [{"r": c} for c in companions]
    params.insert(k, {"r": SCENES[robot_type][3]})
    sim = Simulation.from_dict(_config(robot_type), seed=SEED - k, runs=len(params),
                               params=params)
    poses, collisions = _trace(sim, k)
    alone_poses, alone_collisions = _alone(robot_type)
    assert np.array_equal(poses, alone_poses), \
        f"largest difference {np.abs(poses - alone_poses).max():.3g}"
    assert collisions == alone_collisions


def test_full_speed_companions_leave_the_run_as_alone():
    for robot_type in sorted(SCENES):
        top = SCENES[robot_type][2]
        params = [{"r": SCENES[robot_type][3]}, {"r": {"left": top, "right": top, "wobble": 0.0}},
                  {"r": {"left": top, "right": -top, "wobble": 0.0}}]
        sim = Simulation.from_dict(_config(robot_type), seed=SEED, runs=3, params=params)
        poses, collisions = _trace(sim, 0)
        alone_poses, alone_collisions = _alone(robot_type)
        assert np.array_equal(poses, alone_poses), robot_type
        assert collisions == alone_collisions, robot_type


def test_a_dynamics_measured_after_a_trial_step_is_sub_stepped_per_run_too():
    # hoverboxes (no bound of their own) and E-Pucks in one world: the general physics path
    def config():
        return {"simulation": {"ticks_per_second": 10},
                "arena": {"size": [2.0, 2.0], "walls": {"thickness": 0.01}},
                "robots": [{"name": "h", "type": "hoverbox", "count": 3,
                            "velocity": {"max_speed": 3.0},
                            "controller": {"python": "tests.core.controllers:Drive"}},
                           {"name": "r", "type": "epuck2", "count": 3,
                            "controller": {"python": "tests.core.substep_controllers:"
                                                     "RunWheels"}}]}

    wheels = {"left": 0.1, "right": 0.12, "wobble": 0.03}
    subject = {"h": {"velocity": (0.2, 0.05, 0.0, 0.3)}, "r": wheels}
    fast = {"h": {"velocity": (3.0, -1.0, 0.0, 2.0)}, "r": wheels}
    alone = _trace(Simulation.from_dict(config(), seed=SEED, params=[subject]), 0)
    for params in ([subject, fast], [fast, fast, subject]):
        k = params.index(subject)
        sim = Simulation.from_dict(config(), seed=SEED - k, runs=len(params), params=params)
        poses, collisions = _trace(sim, k)
        assert np.array_equal(poses, alone[0])
        assert collisions == alone[1]


def test_discs_meeting_centre_on_centre_part_as_they_would_alone():
    # two discs of a run driven onto the same point separate along a direction of their own:
    # the same whatever bodies of other runs come before them in the arrays
    from tests.core.test_contacts_3d import disc, step

    pair = [disc(0.2, 0.1), disc(0.5, 0.5)]
    onto = {0: (0.3, 0.3, 0.0), 1: (0.3, 0.3, 0.0)}
    alone = step(pair, onto)
    others = [disc(-0.5, -0.5), disc(-0.2, -0.5), disc(-0.5, 0.5)]
    batch = step(others + [dict(b, run=1) for b in pair], {3 + i: p for i, p in onto.items()})
    assert alone.x[0] != alone.x[1] or alone.y[0] != alone.y[1]  # they did part
    assert np.array_equal(batch.x[3:], alone.x) and np.array_equal(batch.y[3:], alone.y)
