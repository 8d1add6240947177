"""The search space of a flavour's PFSMs, as iterated F-race sees it, and back to PFSMs.

Mirrors AutoMoDe's irace grammar: the number of states (1–4), per state its behaviour and that
behaviour's parameter, and — with two states or more — its number of outgoing transitions
(1–4), each with a destination, a condition and that condition's parameters. A parameter is
active only when what it belongs to exists (``when``), so sampling never draws a parameter of a
module that is not there.
"""

from __future__ import annotations

from swarmstack.design import grammar
from swarmstack.design.irace import Categorical, Integer, Real, Space
from swarmstack.design.pfsm import MAX_STATES, MAX_TRANSITIONS, PFSM, Flavour, Param, State, \
    Transition


def _numeric(q: Param, name: str, when):
    return Integer(name, int(q.low), int(q.high), when=when) if q.integer else \
        Real(name, float(q.low), float(q.high), when=when)


def _state_on(i):
    return lambda c: c["nstates"] > i


def _behaviour_is(i, ident):
    return lambda c: c["nstates"] > i and c[f"s{i}"] == ident


def _has_transitions(i):
    return lambda c: c["nstates"] > max(i, 1)


def _transition_on(i, j):
    return lambda c: c["nstates"] > max(i, 1) and c[f"n{i}"] > j


def _condition_is(i, j, ident):
    return lambda c: c["nstates"] > max(i, 1) and c[f"n{i}"] > j and c[f"c{i}x{j}"] == ident


def behaviour_param(i: int, module_id: int, name: str) -> str:
    return f"{name}{i}.b{module_id}"


def condition_param(i: int, j: int, module_id: int, name: str) -> str:
    return f"{name}{i}x{j}.c{module_id}"


def pfsm_space(flavour: Flavour) -> Space:
    params: list = [Categorical("nstates", tuple(range(1, MAX_STATES + 1)))]
    b_ids = tuple(m.id for m in flavour.behaviours)
    c_ids = tuple(m.id for m in flavour.conditions)
    for i in range(MAX_STATES):
        params.append(Categorical(f"s{i}", b_ids, when=_state_on(i)))
        for m in flavour.behaviours:
            for q in m.params:
                params.append(_numeric(q, behaviour_param(i, m.id, q.name),
                                       _behaviour_is(i, m.id)))
        params.append(Integer(f"n{i}", 1, MAX_TRANSITIONS, when=_has_transitions(i)))
        for j in range(MAX_TRANSITIONS):
            # the destination among the other states: taken modulo their number
            params.append(Integer(f"n{i}x{j}", 0, MAX_STATES - 2, when=_transition_on(i, j)))
            params.append(Categorical(f"c{i}x{j}", c_ids, when=_transition_on(i, j)))
            for m in flavour.conditions:
                for q in m.params:
                    params.append(_numeric(q, condition_param(i, j, m.id, q.name),
                                           _condition_is(i, j, m.id)))
    return Space(tuple(params))


def to_pfsm(config: dict, flavour: Flavour) -> PFSM:
    n = config["nstates"]
    states = []
    for i in range(n):
        b = config[f"s{i}"]
        module = flavour.behaviour(b)
        bparams = {q.name: float(config[behaviour_param(i, b, q.name)]) for q in module.params}
        transitions = []
        if n > 1:
            for j in range(config[f"n{i}"]):
                rel = config[f"n{i}x{j}"] % (n - 1)
                c = config[f"c{i}x{j}"]
                cmod = flavour.condition(c)
                cparams = {q.name: float(config[condition_param(i, j, c, q.name)])
                           for q in cmod.params}
                transitions.append(Transition(rel + (rel >= i), c, cparams))
        states.append(State(b, bparams, tuple(transitions)))
    return PFSM(tuple(states))


def to_text(config: dict, flavour: Flavour) -> str:
    return grammar.format(to_pfsm(config, flavour), flavour)
