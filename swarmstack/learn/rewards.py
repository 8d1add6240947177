"""Rewards: the design missions (``swarmstack.design.missions``) per tick or per episode, and
user functions.

A reward is called after every tick with the simulation and returns float64[runs], one reward
per run (every robot of a run shares it). It is made anew for every episode: ``reset(sim)``
is called once the runs are back at tick 0.

- :class:`Mission` per ``"tick"``: the increment of the mission's objective. For the
  robot-time objectives (``aggregation``, ``shelter``, ``rvr_mission``) the fraction of the
  run's robots in the zone at this tick, so an episode's rewards sum to the design score × the
  number of ticks; for ``foraging`` the items delivered at this tick; for ``coverage`` (a state,
  not a sum) the score of the current positions, minus the mean distance in m.
- :class:`Mission` per ``"episode"``: 0, and at the last tick of the episode the design's
  score of the run, the number ``swarmstack design`` ranks.
- a function ``fn(sim) -> float64[runs]`` (or an object with ``__call__(sim)`` and
  ``reset(sim)``).
"""

from __future__ import annotations

from typing import Callable, Optional, Union

import numpy as np


class Mission:
    """Mission ``name`` (``swarmstack.design.missions.OBJECTIVES``) as a reward for the robots
    of ``group``, ``per`` tick or per episode of ``ticks`` ticks."""

    def __init__(self, name: str, per: str = "tick", group: Optional[str] = None):
        from swarmstack.design.missions import OBJECTIVES

        if per not in ("tick", "episode"):
            raise ValueError(f"per must be 'tick' or 'episode', found {per!r}")
        if name not in OBJECTIVES:
            raise ValueError(f"no mission {name!r}; known: {', '.join(OBJECTIVES)}")
        self.cls = OBJECTIVES[name]
        self.name, self.per, self.group = name, per, group
        self.ticks = 0
        self.objective = None

    def reset(self, sim, group: Optional[str] = None, ticks: Optional[int] = None) -> None:
        self.objective = self.cls(sim, self.group or group)
        self.ticks = sim.cfg.simulation.total_ticks if ticks is None else ticks
        self.before = self._so_far()

    def _so_far(self) -> np.ndarray:
        o = self.objective
        if hasattr(o, "total"):           # robot-time in a zone: robots on it so far / N
            return o.total / o.per_run
        if hasattr(o, "delivered"):       # foraging: items delivered so far
            return o.delivered.copy()
        return np.zeros(o.runs)

    def __call__(self, sim) -> np.ndarray:
        o = self.objective
        o.observe()
        if self.per == "episode":
            return o.score() if sim.tick >= self.ticks else np.zeros(o.runs)
        now = self._so_far()
        if not (hasattr(o, "total") or hasattr(o, "delivered")):
            return o.score()
        step, self.before = now - self.before, now
        return step


class _Function:
    """A user function ``fn(sim) -> float64[runs]`` as a reward."""

    def __init__(self, fn: Callable):
        self.fn = fn

    def reset(self, sim, group=None, ticks=None) -> None:
        if hasattr(self.fn, "reset"):
            self.fn.reset(sim)

    def __call__(self, sim) -> np.ndarray:
        out = self.fn(sim)
        try:
            value = np.broadcast_to(np.asarray(out, dtype=np.float64), (sim.runs,))
        except (TypeError, ValueError):
            raise ValueError(f"the reward function must return one number per run "
                             f"({sim.runs}); found {out!r:.80}") from None
        return value.copy()


class _Zero:
    def reset(self, sim, group=None, ticks=None) -> None:
        self.runs = sim.runs

    def __call__(self, sim) -> np.ndarray:
        return np.zeros(self.runs)


def make_reward(reward: Union[None, str, Mission, Callable]):
    """A reward from what ``vector_env``/``parallel_env`` accept: None (0 everywhere), a
    mission's name (per tick), a :class:`Mission`, or a function of the simulation."""
    if reward is None:
        return _Zero()
    if isinstance(reward, str):
        return Mission(reward)
    if isinstance(reward, Mission):
        return reward
    if callable(reward):
        return _Function(reward)
    raise ValueError(f"reward: expected a mission's name, a Mission or a function of the "
                     f"simulation; found {type(reward).__name__}")
