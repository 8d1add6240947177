"""PettingZoo environments: one agent per robot of the learning groups (of any types).

Agent ``"<group>_<i>"`` is robot i of that group in the run. Its observation is its row of the
group's observation (a ``Dict`` of clipped readings, ``flat=True`` a float64 vector, or the user
``observe`` function's row) and its action its commands (a ``Dict``, or a float64 vector).
Every agent of a run gets the run's reward. :class:`ParallelEnv` is one run;
:class:`BatchedParallelEnv` steps ``num_envs`` runs at once, every value with the runs on axis
0 (autoreset ``NEXT_STEP``, as :class:`swarmstack.learn.vector.VectorEnv`).
"""

from __future__ import annotations

import functools
from typing import Optional, Sequence

import numpy as np
from pettingzoo import ParallelEnv as _ParallelEnv

from swarmstack.learn.batch import Batch


class _Agents:
    """The agents of a batch and where each one's rows are."""

    def __init__(self, batch: Batch, flat: bool):
        self.batch, self.flat = batch, flat
        self.rows = {}  # agent -> (group, robot index in its run)
        for g in batch.groups:
            for i in range(batch.per_run[g]):
                self.rows[f"{g}_{i}"] = (g, i)
        self.names = list(self.rows)

    def observations(self, runs: int) -> dict:
        """agent -> its observation, runs on axis 0."""
        out = {}
        for g in self.batch.groups:
            n = self.batch.per_run[g]
            obs = self.batch.observation(g, self.flat)
            if isinstance(obs, dict):
                per = {k: v.reshape(runs, n, *v.shape[1:]) for k, v in obs.items()}
                for i in range(n):
                    out[f"{g}_{i}"] = {k: v[:, i] for k, v in per.items()}
            else:
                obs = obs.reshape(runs, n, *obs.shape[1:])
                for i in range(n):
                    out[f"{g}_{i}"] = obs[:, i]
        return out

    def commands(self, actions: dict, runs: int) -> dict:
        """group -> one array per command (every robot of every run on axis 0) from the
        agents' actions (runs on axis 0)."""
        out = {}
        for g in self.batch.groups:
            n = self.batch.per_run[g]
            agents = [f"{g}_{i}" for i in range(n)]
            missing = [a for a in agents if a not in actions]
            if missing:
                raise ValueError(f"no action for agent {missing[0]!r}")
            if self.flat:
                stacked = np.stack([np.asarray(actions[a], dtype=np.float64).reshape(runs, -1)
                                    for a in agents], axis=1)
                out[g] = self.batch.to_commands(g, stacked.reshape(runs * n, -1), True)
            else:
                out[g] = {k: np.stack([np.asarray(actions[a][k]).reshape(runs, *f.shape)
                                       for a in agents], axis=1).reshape(runs * n, *f.shape)
                          for k, f in self.batch.spaces[g].action.items()}
        return out

    def observation_space(self, agent: str):
        return self.batch.observation_field_space(self.rows[agent][0], self.flat, ())

    def action_space(self, agent: str):
        return self.batch.action_field_space(self.rows[agent][0], self.flat, ())


class ParallelEnv(_ParallelEnv):
    """One run of ``experiment``; ``groups`` learning (default every group). Keyword
    arguments: those of :class:`swarmstack.learn.batch.Batch`."""

    metadata = {"name": "swarmstack", "render_modes": []}

    def __init__(self, experiment, groups: Optional[Sequence[str]] = None, flat: bool = False,
                 **kw):
        self.batch = Batch(experiment, runs=1, groups=groups, **kw)
        self._agents = _Agents(self.batch, flat)
        self.possible_agents = list(self._agents.names)
        self.agents = []

    @property
    def sim(self):
        return self.batch.sim

    @functools.lru_cache(maxsize=None)
    def observation_space(self, agent):
        return self._agents.observation_space(agent)

    @functools.lru_cache(maxsize=None)
    def action_space(self, agent):
        return self._agents.action_space(agent)

    def _obs(self):
        obs = self._agents.observations(1)
        return {a: ({k: v[0] for k, v in o.items()} if isinstance(o, dict) else o[0])
                for a, o in obs.items()}

    def reset(self, seed=None, options=None):
        self.batch.reset(seed)
        self.agents = list(self.possible_agents)
        return self._obs(), {a: {} for a in self.agents}

    def step(self, actions):
        if not self.agents:
            raise RuntimeError("the episode has ended: call reset()")
        batched = {a: ({k: np.asarray(v)[None] for k, v in act.items()}
                       if isinstance(act, dict) else np.asarray(act)[None])
                   for a, act in actions.items()}
        rewards, truncated = self.batch.step(self._agents.commands(batched, 1))
        obs = self._obs()
        agents = self.agents
        if truncated:
            self.agents = []
        return (obs, {a: float(rewards[0]) for a in agents}, {a: False for a in agents},
                {a: truncated for a in agents}, {a: {} for a in agents})


class BatchedParallelEnv:
    """``num_envs`` runs of ``experiment`` with the agents of :class:`ParallelEnv`; every
    observation, action, reward and flag holds the runs on axis 0."""

    metadata = {"name": "swarmstack_batched", "autoreset_mode": "next_step"}

    def __init__(self, experiment, num_envs: int, groups: Optional[Sequence[str]] = None,
                 flat: bool = False, **kw):
        self.batch = Batch(experiment, runs=num_envs, groups=groups, **kw)
        self.num_envs = int(num_envs)
        self._agents = _Agents(self.batch, flat)
        self.possible_agents = list(self._agents.names)
        self.agents = list(self.possible_agents)
        self._autoreset = False

    @property
    def sim(self):
        return self.batch.sim

    def observation_space(self, agent):
        """One run's observation space of ``agent``."""
        return self._agents.observation_space(agent)

    def action_space(self, agent):
        return self._agents.action_space(agent)

    def reset(self, seed=None, options=None):
        self.batch.reset(seed)
        self._autoreset = False
        return self._agents.observations(self.num_envs), {a: {} for a in self.agents}

    def step(self, actions):
        n = self.num_envs
        if self._autoreset:
            self.batch.reset(None)
            self._autoreset = False
            rewards, truncated = np.zeros(n), False
        else:
            rewards, truncated = self.batch.step(self._agents.commands(actions, n))
            self._autoreset = truncated
        agents = self.agents
        return (self._agents.observations(n), {a: rewards.copy() for a in agents},
                {a: np.zeros(n, bool) for a in agents}, {a: np.full(n, truncated)
                                                          for a in agents},
                {a: {} for a in agents})


def parallel_env(experiment, groups: Optional[Sequence[str]] = None, reward=None,
                 observe=None, num_envs: Optional[int] = None, **kw):
    """A PettingZoo ``ParallelEnv`` of one run of ``experiment`` (a path or a dict), one agent
    per robot of ``groups`` (default every group); with ``num_envs``, a
    :class:`BatchedParallelEnv` of that many runs."""
    if num_envs is None:
        return ParallelEnv(experiment, groups, reward=reward, observe=observe, **kw)
    return BatchedParallelEnv(experiment, num_envs, groups, reward=reward, observe=observe,
                              **kw)
