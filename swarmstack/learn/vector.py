"""Gymnasium environments of one learning group with a shared policy: :class:`VectorEnv`
(one sub-environment per run of one batched simulation) and :class:`Env` (one run).

A sub-environment's observation holds every robot of the group in its run: a ``Dict`` of the
clipped readings, each ``(robots, *reading shape)`` (``flat=True``: one ``Box`` of
``(robots, observation size)`` float64), or the user ``observe`` function's rows. Its action is
a ``Dict`` of the commands, each ``(robots, *command shape)`` (``flat=True``: ``(robots, action
size)`` float64), clipped into the commands' limits when written.
"""

from __future__ import annotations

from typing import Optional

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from swarmstack.learn.batch import Batch


def _one_group(batch: Batch) -> str:
    if len(batch.groups) != 1:
        raise ValueError(f"the experiment has groups {', '.join(batch.groups)}: name the "
                         "learning group (group = …)")
    return batch.groups[0]


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` runs of ``experiment`` (a path or a dict), group ``group`` learning.
    Every run is truncated at the experiment's duration and reset at the next ``step``
    (autoreset ``NEXT_STEP``: that step returns the new episode's first observation, reward 0,
    and ignores its action). Keyword arguments: those of :class:`Batch`."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, experiment, num_envs: int = 1, group: Optional[str] = None,
                 flat: bool = False, **kw):
        self.batch = Batch(experiment, runs=num_envs, groups=None if group is None else
                           [group], **kw)
        self.group = _one_group(self.batch)
        self.flat = flat
        self.num_envs = int(num_envs)
        self.robots = self.batch.per_run[self.group]
        rows = (self.robots,)
        self.single_observation_space = self.batch.observation_field_space(self.group, flat,
                                                                            rows)
        self.single_action_space = self.batch.action_field_space(self.group, flat, rows)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._autoreset = False

    @property
    def sim(self):
        """The batched ``Simulation`` (run k is sub-environment k)."""
        return self.batch.sim

    def _obs(self):
        obs = self.batch.observation(self.group, self.flat)
        shape = (self.num_envs, self.robots)
        if isinstance(obs, dict):
            return {k: v.reshape(*shape, *v.shape[1:]) for k, v in obs.items()}
        return obs.reshape(*shape, *obs.shape[1:])

    def reset(self, *, seed=None, options=None):
        """``seed``: an int (run k gets seed + k), one per run, or None (the next episode's)."""
        super().reset(seed=seed if seed is None or isinstance(seed, int) else int(seed[0]))
        self.batch.reset(seed)
        self._autoreset = False
        return self._obs(), {}

    def step(self, actions):
        n = self.num_envs
        if self._autoreset:
            self.batch.reset(None)
            self._autoreset = False
            return (self._obs(), np.zeros(n), np.zeros(n, bool), np.zeros(n, bool), {})
        cmds = self.batch.to_commands(self.group, actions, self.flat)
        rewards, truncated = self.batch.step({self.group: cmds})
        self._autoreset = truncated
        return (self._obs(), rewards, np.zeros(n, bool), np.full(n, truncated), {})


class Env(gymnasium.Env):
    """One run of ``experiment`` as a Gymnasium ``Env``: sub-environment 0 of a
    :class:`VectorEnv` of one run (same spaces, same episodes for the same seed)."""

    metadata = {"render_modes": []}

    def __init__(self, experiment, group: Optional[str] = None, flat: bool = False, **kw):
        self.vector = VectorEnv(experiment, 1, group, flat, **kw)
        self.observation_space = self.vector.single_observation_space
        self.action_space = self.vector.single_action_space

    @property
    def sim(self):
        return self.vector.sim

    @staticmethod
    def _first(value):
        return {k: v[0] for k, v in value.items()} if isinstance(value, dict) else value[0]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        obs, info = self.vector.reset(seed=seed)
        return self._first(obs), info

    def step(self, action):
        if self.vector._autoreset:
            raise RuntimeError("the episode has ended: call reset()")
        batched = {k: np.asarray(v)[None] for k, v in action.items()} \
            if isinstance(action, dict) else np.asarray(action)[None]
        obs, rew, term, trunc, info = self.vector.step(batched)
        return self._first(obs), float(rew[0]), bool(term[0]), bool(trunc[0]), info


def vector_env(experiment, num_envs: int = 1, group: Optional[str] = None, reward=None,
               observe=None, **kw) -> VectorEnv:
    """A Gymnasium ``VectorEnv`` over ``num_envs`` runs of ``experiment`` (a path or a dict),
    group ``group`` learning with a shared policy. See :class:`VectorEnv`, :class:`Batch`."""
    return VectorEnv(experiment, num_envs, group, reward=reward, observe=observe, **kw)


def env(experiment, group: Optional[str] = None, reward=None, observe=None, **kw) -> Env:
    """One run of ``experiment`` as a Gymnasium ``Env`` (:class:`Env`)."""
    return Env(experiment, group, reward=reward, observe=observe, **kw)
