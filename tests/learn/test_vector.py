"""The Gymnasium environments: the ecosystem's checker on one run, the vector environment
against Gymnasium's own SyncVectorEnv, autoreset, reproducibility, rewards and errors."""

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env, data_equivalence
from gymnasium.vector import SyncVectorEnv

from swarmstack import learn
from swarmstack.design.missions import run_scores
from swarmstack.sim.simulation import Simulation

from .conftest import AGGREGATION_FLOOR, epucks, experiment

EXP = experiment([epucks(3)])


def test_check_env_on_one_run():
    check_env(learn.env(EXP), skip_render_check=True)
    check_env(learn.env(EXP, flat=True, commands=["wheels"]), skip_render_check=True)


def test_vector_env_behaves_as_gymnasiums_sync_vector_env():
    """Sub-environment k of the batch is the run of seed s + k alone: same observations,
    rewards, flags and autoreset step as Gymnasium's SyncVectorEnv over one-run envs."""
    ours = learn.vector_env(EXP, num_envs=3, reward="aggregation")
    theirs = SyncVectorEnv([lambda: learn.env(EXP, reward="aggregation")
                            for _ in range(3)])
    assert ours.single_observation_space == theirs.single_observation_space
    assert ours.observation_space == theirs.observation_space
    assert ours.action_space == theirs.action_space
    assert ours.metadata["autoreset_mode"] == theirs.metadata["autoreset_mode"]
    a, _ = ours.reset(seed=11)
    b, _ = theirs.reset(seed=11)
    assert data_equivalence(a, b, exact=True)
    ours.action_space.seed(2)
    ended = []
    for t in range(12):   # 10 ticks, then the autoreset step, then the next episode
        action = ours.action_space.sample()
        a, ra, ta, tra, _ = ours.step(action)
        b, rb, tb, trb, _ = theirs.step(action)
        assert ours.observation_space.contains(a)
        assert {k: v.dtype for k, v in a.items()} == {k: v.dtype for k, v in b.items()}
        assert ra.dtype == np.float64 and ta.dtype == tra.dtype == np.bool_
        assert (ta == tb).all() and (tra == trb).all() and not ta.any()
        ended.append(bool(tra.all()))
        if t <= 10:   # the episode and the autoreset step (a new episode's seeds differ)
            assert data_equivalence((a, ra), (b, rb), exact=True), t
    assert ended == [False] * 9 + [True] + [False] * 2
    assert ours.sim.tick == 1   # the autoreset step began a new episode


def test_reset_with_a_seed_replays_the_episode_bit_for_bit():
    env = learn.vector_env(EXP, num_envs=2, flat=True, commands=["wheels"])

    def episode(seed):
        env.action_space.seed(seed)
        out = [env.reset(seed=seed)[0]]
        for _ in range(10):
            out.append(env.step(env.action_space.sample())[0])
        return np.stack(out), env.sim.world.bodies.pose.copy()

    first, second, other = episode(4), episode(4), episode(5)
    assert np.array_equal(first[0], second[0]) and np.array_equal(first[1], second[1])
    assert not np.array_equal(first[1], other[1])
    # one seed per run: run k is that seed's run alone
    obs, _ = env.reset(seed=[5, 9])
    alone, _ = learn.env(EXP, flat=True, commands=["wheels"]).reset(seed=9)
    assert np.array_equal(obs[1], alone)


def test_mission_rewards_are_the_design_scores():
    exp = experiment([epucks(4)], duration="2 s", floor=AGGREGATION_FLOOR)
    per_tick = learn.vector_env(exp, num_envs=2, reward="aggregation")
    per_episode = learn.vector_env(exp, num_envs=2, reward=learn.Mission("aggregation",
                                                                         per="episode"))
    zero = {"wheels": np.zeros((2, 4, 2)), "leds": np.zeros((2, 4, 10, 3), np.uint8)}
    per_tick.reset(seed=7)
    per_episode.reset(seed=7)
    sums, last = np.zeros(2), None
    for _ in range(20):
        r, _, trunc = per_tick.step(zero)[1:4]
        sums += r
        last, _, _ = per_episode.step(zero)[1:4]
    assert trunc.all()
    sim = Simulation.from_dict(exp, seed=7, runs=2)
    score = run_scores(sim, "aggregation", "e")
    assert score.max() > 0   # robots start on black
    assert np.array_equal(last, score)
    np.testing.assert_allclose(sums / 20, score, rtol=1e-12)


def test_user_reward_and_observe_functions():
    env = learn.vector_env(EXP, num_envs=2, reward=lambda sim: sim.world.bodies.x[[0, 3]],
                           observe=lambda readings: readings["proximity"][:, :2] / 4095)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (2, 3, 2) and env.observation_space.contains(obs)
    _, r, *_ = env.step(env.action_space.sample())
    assert np.array_equal(r, env.sim.world.bodies.x[[0, 3]])


def test_a_bad_group_name_is_named():
    with pytest.raises(ValueError, match="no group 'swarm' in <experiment>; its groups: e"):
        learn.vector_env(EXP, group="swarm")
    two = experiment([epucks(2, name="a"), epucks(2, name="b")])
    with pytest.raises(ValueError, match="groups a, b: name the learning group"):
        learn.vector_env(two)


@pytest.mark.parametrize("observe, message", [
    (lambda r: r["lidar"], "the observe function raised KeyError: 'lidar'.*proximity"),
    (lambda r: r["proximity"][:2], "one row per robot of group 'e' \\(6 rows\\); found "
                                   "shape \\(2, 8\\)"),
    (lambda r: {"a": 1}, "one row per robot.*found dict"),
])
def test_a_bad_observe_function_is_explained(observe, message):
    with pytest.raises(ValueError, match=message):
        learn.vector_env(EXP, num_envs=2, observe=observe)


def test_the_experiment_may_be_a_path(tmp_path):
    env = learn.vector_env("examples/learning/aggregation.toml", num_envs=2,
                           reward="aggregation", commands=["wheels"])
    obs, _ = env.reset(seed=0)
    assert obs["ground"].shape == (2, 6, 3)
    with pytest.raises(RuntimeError, match="reset"):
        learn.vector_env(EXP).batch.step({})


def test_the_radio_inbox_as_fixed_slots_and_frames_as_actions():
    exp = experiment([epucks(3, radio={"range": 2.0})], size=0.8)
    env = learn.vector_env(exp, num_envs=2, inbox=4, commands=["wheels", "radio"])
    assert env.single_observation_space["inbox"].shape == (3, 4, 5)   # 2-byte frames
    assert env.single_action_space["radio"].shape == (3, 2)
    obs, _ = env.reset(seed=3)
    # every robot hears the two others' empty frames (nobody sent before tick 0)
    assert (obs["inbox"][:, :, :2, 0] > 0).all() and (obs["inbox"][:, :, :2, 3:] == -1).all()
    assert (obs["inbox"][:, :, 2:] == -1).all()
    frames = np.arange(12, dtype=np.uint8).reshape(2, 3, 2)
    obs, *_ = env.step({"wheels": np.zeros((2, 3, 2)), "radio": frames})
    assert env.observation_space.contains(obs)
    b = env.sim.world.bodies
    for run in range(2):
        for i in range(3):
            slots = obs["inbox"][run, i]
            others = [j for j in range(3) if j != i]
            d = [np.hypot(b.x[3 * run + j] - b.x[3 * run + i], b.y[3 * run + j] -
                          b.y[3 * run + i]) for j in others]
            order = [others[k] for k in np.argsort(d)]
            np.testing.assert_allclose(slots[:2, 0], sorted(d), rtol=1e-9)
            assert slots[:2, 3:].tolist() == frames[run, order].tolist()
            assert (slots[2:] == -1).all()
    with pytest.raises(ValueError, match="group 'e' has no radio: add radio = true"):
        learn.vector_env(EXP, inbox=2)
