"""The PettingZoo environments: PettingZoo's own API and seed tests, a heterogeneous swarm,
and the batched form."""

import numpy as np
from pettingzoo.test import parallel_api_test, parallel_seed_test

from swarmstack import learn

from .conftest import epucks, experiment

MIXED = experiment([
    epucks(2),
    {"name": "cf", "type": "crazyflie", "count": 1, "sensors": {"positioning": True}},
    {"name": "rvr", "type": "rvr", "count": 1, "sensors": {"proximity": True,
                                                           "ground_color": True}},
], size=2.0)


def test_pettingzoo_api_test():
    parallel_api_test(learn.parallel_env(experiment([epucks(3)])), num_cycles=15)
    parallel_api_test(learn.parallel_env(MIXED, flat=True, reward="aggregation"),
                      num_cycles=15)


def test_pettingzoo_seed_test():
    parallel_seed_test(lambda: learn.parallel_env(experiment([epucks(3)]), flat=True))
    parallel_seed_test(lambda: learn.parallel_env(MIXED))


def test_heterogeneous_agents_have_their_types_spaces():
    env = learn.parallel_env(MIXED)
    assert env.possible_agents == ["e_0", "e_1", "cf_0", "rvr_0"]
    assert list(env.action_space("e_0")) == ["leds", "wheels"]
    assert list(env.action_space("cf_0")) == ["leds", "mode", "target", "velocity"]
    assert env.action_space("rvr_0")["wheels"].high.tolist() == [1.555, 1.555]
    assert env.observation_space("rvr_0")["proximity"].shape == (8,)
    obs, _ = env.reset(seed=3)
    assert env.observation_space("cf_0").contains(obs["cf_0"])


def test_only_the_learning_groups_are_agents():
    exp = experiment([epucks(2), epucks(2, name="other",
                                         controller={"python": "tests/learn/spin.py:Spin"})])
    env = learn.parallel_env(exp, groups=["e"], flat=True, commands=["wheels"])
    assert env.possible_agents == ["e_0", "e_1"]
    env.reset(seed=0)
    env.step({a: np.zeros(2) for a in env.agents})
    assert (env.sim.commands("other")["wheels"] == [0.05, -0.05]).all()   # its controller
    assert (env.sim.commands("e")["wheels"] == 0).all()


def test_the_batched_form_equals_one_run_per_seed():
    batched = learn.parallel_env(MIXED, num_envs=2, flat=True)
    singles = [learn.parallel_env(MIXED, flat=True) for _ in range(2)]
    obs, _ = batched.reset(seed=20)
    alone = [s.reset(seed=20 + k)[0] for k, s in enumerate(singles)]
    for t in range(11):
        for a in batched.possible_agents:
            assert obs[a].shape[0] == 2
            for k in range(2):
                assert np.array_equal(obs[a][k], alone[k][a]), (t, a, k)
        if t == 10:
            break
        acts = {a: np.stack([batched.action_space(a).sample() for _ in range(2)])
                for a in batched.possible_agents}
        obs, rew, term, trunc, _ = batched.step(acts)
        steps = [s.step({a: acts[a][k] for a in s.agents}) for k, s in enumerate(singles)]
        alone = [st[0] for st in steps]
        assert all(trunc[a].all() == (t == 9) for a in trunc)
    assert all(not s.agents for s in singles)
    obs, rew, term, trunc, _ = batched.step(acts)   # autoreset: the next episode
    assert batched.sim.tick == 0 and not any(v.any() for v in trunc.values())
