"""A probabilistic finite-state machine (PFSM) of AutoMoDe, and the module table of a flavour.

A PFSM has 1 … 4 states, each running one *behaviour* module with its parameter, and 0 … 4
outgoing transitions per state, each guarded by a *condition* module with its parameters and
leading to another state (never to itself). A flavour (Chocolate for the E-Puck2, Watermelon
for the RVR) is a table of those modules: ids as written in AutoMoDe's command-line strings,
parameter names and ranges. Grammar, sampling and the vectorised controller read the table,
so a flavour is added by writing a table, not by changing them.

For simulation, many PFSMs are packed into arrays (:func:`pack`): one row per PFSM, states and
transitions padded to the maxima, so one vectorised call steps every robot of every run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

MAX_STATES = 4
MAX_TRANSITIONS = 4


@dataclass(frozen=True)
class Param:
    """A module parameter: its name in the grammar (``rwm``, ``p``, ``w`` …) and range."""

    name: str
    low: float
    high: float
    integer: bool = False

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high and (not self.integer or float(value).is_integer())

    def describe(self) -> str:
        return f"an integer in {{{self.low:g}, …, {self.high:g}}}" if self.integer else \
            f"a number in [{self.low:g}, {self.high:g}]"


@dataclass(frozen=True)
class Module:
    """A behaviour or condition: its id in the grammar, a name and its parameters (behaviours
    have at most one)."""

    id: int
    name: str
    params: tuple[Param, ...] = ()


@dataclass(frozen=True)
class Flavour:
    name: str
    behaviours: tuple[Module, ...]
    conditions: tuple[Module, ...]

    def behaviour(self, ident: int) -> Module | None:
        return next((m for m in self.behaviours if m.id == ident), None)

    def condition(self, ident: int) -> Module | None:
        return next((m for m in self.conditions if m.id == ident), None)


@dataclass(frozen=True)
class Transition:
    to: int                          # destination state (absolute index, ≠ the origin)
    condition: int                   # condition module id
    params: dict = field(default_factory=dict)   # e.g. {"p": 0.5} or {"p": 3, "w": 7.2}


@dataclass(frozen=True)
class State:
    behaviour: int                   # behaviour module id
    params: dict = field(default_factory=dict)   # e.g. {"rwm": 50}
    transitions: tuple[Transition, ...] = ()


@dataclass(frozen=True)
class PFSM:
    states: tuple[State, ...]

    def __post_init__(self):
        if not 1 <= len(self.states) <= MAX_STATES:
            raise ValueError(f"a PFSM has 1 to {MAX_STATES} states, found {len(self.states)}")
        for i, s in enumerate(self.states):
            if len(s.transitions) > MAX_TRANSITIONS:
                raise ValueError(f"state {i} has {len(s.transitions)} transitions; at most "
                                 f"{MAX_TRANSITIONS}")
            for t in s.transitions:
                if t.to == i or not 0 <= t.to < len(self.states):
                    raise ValueError(f"state {i}: a transition to state {t.to} (states are "
                                     f"0 … {len(self.states) - 1}, never the origin itself)")


@dataclass
class Packed:
    """K PFSMs as arrays (padding: behaviour/condition −1, parameters 0).

    ``behaviour`` int64[K, S] · ``bparam`` float64[K, S] (its one parameter) ·
    ``ntrans`` int64[K, S] · ``dest`` int64[K, S, T] · ``cond`` int64[K, S, T] ·
    ``cparam`` float64[K, S, T, P] (the flavour's condition parameter names, in
    :func:`condition_param_names` order)."""

    behaviour: np.ndarray
    bparam: np.ndarray
    ntrans: np.ndarray
    dest: np.ndarray
    cond: np.ndarray
    cparam: np.ndarray


def condition_param_names(flavour: Flavour) -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.name for m in flavour.conditions for p in m.params))


def pack(pfsms, flavour: Flavour) -> Packed:
    k, s, t = len(pfsms), MAX_STATES, MAX_TRANSITIONS
    names = condition_param_names(flavour)
    out = Packed(np.full((k, s), -1, np.int64), np.zeros((k, s)), np.zeros((k, s), np.int64),
                 np.zeros((k, s, t), np.int64), np.full((k, s, t), -1, np.int64),
                 np.zeros((k, s, t, max(1, len(names)))))
    for i, f in enumerate(pfsms):
        for j, st in enumerate(f.states):
            out.behaviour[i, j] = st.behaviour
            out.bparam[i, j] = next(iter(st.params.values()), 0.0)
            out.ntrans[i, j] = len(st.transitions)
            for m, tr in enumerate(st.transitions):
                out.dest[i, j, m] = tr.to
                out.cond[i, j, m] = tr.condition
                for q, name in enumerate(names):
                    out.cparam[i, j, m, q] = tr.params.get(name, 0.0)
    return out


# ------------------------------------------------------------------------------ PFSM files
_FIRST_FLAG = re.compile(r"--[a-z]+\d*(x\d+)?")


def looks_like_pfsm(text: str) -> bool:
    """Whether ``text`` (a file's contents) has the form of an AutoMoDe PFSM string: its first
    word a flag such as ``--nstates`` (after an optional ``--fsm-config``). A file that does
    not is no PFSM file, and nothing of it is quoted back."""
    words = text[:1000].split(maxsplit=2)
    if words[:1] == ["--fsm-config"]:
        words = words[1:]
    return bool(words) and _FIRST_FLAG.fullmatch(words[0]) is not None


def pfsm_problem(exc: ValueError) -> str:
    """A PFSM string's error as one line quoting at most a short excerpt of the token found
    (a token of a megabyte is not echoed)."""
    from swarmstack.experiments.checks import excerpt

    token, position = getattr(exc, "token", None), getattr(exc, "position", None)
    if isinstance(token, str) and isinstance(position, int):
        where = f"token {position} '{excerpt(token, 40)}'" if token else \
            f"at the end (token {position})"
        return f"{where}: expected {excerpt(getattr(exc, 'expected', ''))}"
    return excerpt(exc)
