"""The runs of one experiment driven by a learner: what the environments share.

The learning groups' controllers are removed (their commands come from the learner); every
other group keeps its own. Actions are written into the learning groups' commands, then the
simulation steps one tick (``Simulation.step``), then the reward of every run is computed. An
episode is the experiment's duration: every run is truncated at its last tick, all runs at the
same tick, and all start together again. Run k of an episode uses seed ``seeds[k]``; the first
episode after ``reset(seed=s)`` uses s, s + 1, …, the next one continues from s + runs, and so
on, so the same seed gives the same episodes bit for bit.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Mapping, Optional, Sequence, Union

import numpy as np

from swarmstack.learn.rewards import make_reward
from swarmstack.learn.spaces import GroupSpaces


def load_cfg(experiment):
    """``(cfg, base_dir, source)`` of an experiment file's path or of a dict (files it names are
    then relative to the current folder)."""
    from swarmstack.experiments.config import load_experiment, parse_experiment

    if isinstance(experiment, Mapping):
        return parse_experiment(dict(experiment), "<experiment>", Path(".")), Path("."), \
            "<experiment>"
    if isinstance(experiment, (str, Path)):
        path = Path(experiment)
        return load_experiment(path), path.parent, str(path)
    raise TypeError(f"experiment: expected a path or a dict, found {type(experiment).__name__}")


def _per_group(value, name: str):
    """``value`` for group ``name``: a dict by group name, or the same for every group."""
    if isinstance(value, Mapping):
        return value.get(name)
    return value


class Batch:
    """``runs`` runs of ``experiment``, the groups ``groups`` learning (default: every group).

    ``commands`` and ``readings`` choose the action's commands and the observed readings (a list,
    or a dict by group name; ``"radio"`` among the commands sends a frame of the radio's
    payload every tick); ``inbox = K`` adds the radio's K nearest receptions to the
    observation (``spaces.inbox_matrix``); ``observe`` replaces the observation:
    ``observe(readings) -> float array`` gets the raw readings of the group's robots (a dict
    of arrays, robots on axis 0) and returns one row per robot."""

    def __init__(self, experiment, runs: int = 1, groups: Optional[Sequence[str]] = None,
                 reward=None, observe: Optional[Callable] = None,
                 commands: Union[None, Sequence[str], Mapping] = None,
                 readings: Union[None, Sequence[str], Mapping] = None, inbox: int = 0):
        from swarmstack.sim.simulation import Simulation

        cfg, base_dir, source = load_cfg(experiment)
        names = [g.name for g in cfg.robots]
        if groups is None:
            groups = names
        elif isinstance(groups, str):
            groups = [groups]
        for g in groups:
            if g not in names:
                raise ValueError(f"no group {g!r} in {source}; its groups: {', '.join(names)}")
        self.groups = list(groups)
        robots = [g.model_copy(update={"controller": None}) if g.name in self.groups else g
                  for g in cfg.robots]
        self.cfg = cfg.model_copy(update={"robots": robots})
        self.sim = Simulation(self.cfg, runs=runs, base_dir=base_dir, source=source)
        self.runs = int(runs)
        self.ticks = self.cfg.simulation.total_ticks
        bounds = self.cfg.arena.bounds
        self.spaces = {g: GroupSpaces.of_group(self.sim.group(g), bounds,
                                               commands=_per_group(commands, g),
                                               readings=_per_group(readings, g),
                                               inbox=_per_group(inbox, g) or 0)
                       for g in self.groups}
        self.per_run = {g: self.sim.group(g).slice.per_run for g in self.groups}
        self.reward = make_reward(reward)
        self.observe_fn = observe
        self.custom = {}   # group -> (shape, dtype) of the user observation of one robot
        if observe is not None:
            for g in self.groups:
                out = self._user_observation(g)
                self.custom[g] = (out.shape[1:], out.dtype)
        self.seed = self.cfg.simulation.seed
        self.episode = -1
        self.started = False

    # episodes ------------------------------------------------------------------------------
    def reset(self, seed: Union[None, int, Sequence[int]] = None) -> None:
        """Every run back at tick 0 of a new episode (see the module's text for the seeds)."""
        if seed is None:
            self.episode += 1
            seeds = [self.seed + self.episode * self.runs + k for k in range(self.runs)]
        elif isinstance(seed, (int, np.integer)):
            self.seed, self.episode = int(seed), 0
            seeds = [self.seed + k for k in range(self.runs)]
        else:
            seeds = [int(s) for s in seed]
            if len(seeds) != self.runs:
                raise ValueError(f"seed: expected one per run ({self.runs}), found "
                                 f"{len(seeds)}")
            self.seed, self.episode = seeds[0], 0
        self.sim.seed_runs(seeds)
        self.sim.reset(params=[{} for _ in range(self.runs)])   # the file's parameters
        self.reward.reset(self.sim, self.groups[0], self.ticks)
        self.started = True

    def step(self, actions: Mapping[str, Mapping[str, np.ndarray]]) -> tuple[np.ndarray, bool]:
        """Writes each learning group's action (one array per command, every robot of every
        run on axis 0), steps one tick; ``(rewards float64[runs], truncated)``."""
        if not self.started:
            raise RuntimeError("call reset() before step()")
        for g in self.groups:
            if g not in actions:
                raise ValueError(f"no action for group {g!r}")
            self.spaces[g].act(self.sim.commands(g), slice(None), actions[g],
                               send=self._port(g).send_all if self.spaces[g].radio else None)
        self.sim.step()
        rewards = self.reward(self.sim)
        return rewards, self.sim.tick >= self.ticks

    def _port(self, g: str):
        """The group's ``RadioPort`` (what ``group.inbox`` and ``group.send`` use)."""
        return self.sim.ports[self.sim.group(g).slice.index]

    # observations --------------------------------------------------------------------------
    def _user_observation(self, g: str) -> np.ndarray:
        readings = self.sim.readings(g)
        try:
            out = self.observe_fn(dict(readings))
        except Exception as exc:
            raise ValueError(f"the observe function raised {type(exc).__name__}: {exc} (it "
                             f"gets the readings of group {g!r}: "
                             f"{', '.join(readings) or 'none'})") from exc
        arr = np.asarray(out) if not isinstance(out, Mapping) else None
        n = self.sim.group(g).slice.n
        if arr is None or arr.dtype.kind not in "biuf" or arr.ndim < 1 or arr.shape[0] != n:
            raise ValueError(f"the observe function must return a numeric array with one row "
                             f"per robot of group {g!r} ({n} rows); found "
                             + (f"shape {arr.shape}, dtype {arr.dtype}" if arr is not None
                                else type(out).__name__))
        if g in self.custom and arr.shape[1:] != self.custom[g][0]:
            raise ValueError(f"the observe function returned rows of shape {arr.shape[1:]}; "
                             f"earlier {self.custom[g][0]}")
        return arr.astype(np.float64)

    def observation(self, g: str, flat: bool):
        """Group ``g``'s observation, every robot of every run on axis 0: the user function's
        array, the flat float64 vectors, or a dict of clipped readings."""
        if self.observe_fn is not None:
            return self._user_observation(g)
        sp = self.spaces[g]
        obs = sp.observe(self.sim.readings(g), slice(None),
                         self._port(g).group_inbox() if sp.inbox else None)
        return sp.flat(obs) if flat else obs

    def observation_field_space(self, g: str, flat: bool, rows: tuple[int, ...]):
        """The observation space of ``rows`` robots of group ``g``."""
        from gymnasium.spaces import Box

        if self.observe_fn is not None:
            shape = (*rows, *self.custom[g][0])
            return Box(-np.inf, np.inf, shape, np.float64)
        sp = self.spaces[g]
        return sp.flat_observation_space(rows) if flat else sp.observation_space(rows)

    def action_field_space(self, g: str, flat: bool, rows: tuple[int, ...]):
        sp = self.spaces[g]
        return sp.flat_action_space(rows) if flat else sp.action_space(rows)

    def to_commands(self, g: str, action, flat: bool) -> dict:
        """An action of group ``g`` (dict, or flat vectors) as one array per command."""
        return self.spaces[g].unflatten(action) if flat else action
