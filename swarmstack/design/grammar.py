"""AutoMoDe's command-line form of a PFSM, parsed and printed.

    --nstates 2 --s0 0 --rwm0 50 --n0 1 --n0x0 0 --c0x0 5 --p0x0 0.5
                --s1 1 --n1 1 --n1x0 0 --c1x0 3 --p1x0 2 --w1x0 7.5

``--s{i}`` is state i's behaviour id, followed by its parameter (``--rwm{i}``, ``--att{i}``,
``--rep{i}`` …); ``--n{i}`` its number of outgoing transitions; transition j has
``--n{i}x{j}`` (the destination, counted among the *other* states: 0 is the first state that
is not i), ``--c{i}x{j}`` (condition id) and the condition's parameters (``--p{i}x{j}``,
``--w{i}x{j}``). A leading ``--fsm-config`` (how AutoMoDe's own tools pass it) is accepted.
These are the strings AutoMoDe's controller and its irace grammar exchange, so a design moves
between this simulator and the published tools unchanged.

A malformed string raises :class:`GrammarError` naming the token (its position, counted from
1, and text) and what was expected there.
"""

from __future__ import annotations

import re

from swarmstack.design.pfsm import (MAX_STATES, MAX_TRANSITIONS, PFSM, Flavour, State,
                                    Transition)

_FLAG = re.compile(r"--(nstates|[a-z]+)(\d*)(?:x(\d+))?")


class GrammarError(ValueError):
    """``position`` (1-based token number, or one past the end for something missing),
    ``token`` (the text found, '' at the end) and ``expected``."""

    def __init__(self, position: int, token: str, expected: str):
        where = f"token {position} {token!r}" if token else f"at the end (token {position})"
        super().__init__(f"{where}: expected {expected}")
        self.position = position
        self.token = token
        self.expected = expected


def _number(text: str):
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value and abs(value) != float("inf") else None


def parse(text: str, flavour: Flavour) -> PFSM:
    """The PFSM of an AutoMoDe command-line string (see the module docstring)."""
    tokens = text.split()
    if tokens[:1] == ["--fsm-config"]:
        tokens = tokens[1:]
        offset = 2
    else:
        offset = 1
    flags: dict[str, tuple[int, float]] = {}   # flag -> (position of its value, value)
    pos_of: dict[str, int] = {}
    i = 0
    while i < len(tokens):
        tok, pos = tokens[i], i + offset
        m = _FLAG.fullmatch(tok)
        if m is None:
            raise GrammarError(pos, tok, "a flag such as --nstates, --s0, --rwm0, --n0, --n0x0, "
                                         "--c0x0 or --p0x0")
        if tok in flags:
            raise GrammarError(pos, tok, f"each flag once ({tok} already given as token "
                                         f"{pos_of[tok]})")
        if i + 1 >= len(tokens):
            raise GrammarError(pos + 1, "", f"a number after {tok}")
        value = _number(tokens[i + 1])
        if value is None:
            raise GrammarError(pos + 1, tokens[i + 1], f"a number after {tok}")
        flags[tok] = (pos + 1, value)
        pos_of[tok] = pos
        i += 2
    end = len(tokens) + offset
    used: set[str] = set()

    def take(flag: str, expected: str, low: float, high: float, integer: bool,
             after: str) -> float:
        if flag not in flags:
            raise GrammarError(end, "", f"{flag} ({expected}) after {after}")
        p, v = flags[flag]
        if not (low <= v <= high) or (integer and not float(v).is_integer()):
            raise GrammarError(p, _token(tokens, p - offset), f"{expected} for {flag}")
        used.add(flag)
        return v

    def module(flag: str, kind: str, modules, after: str):
        """The behaviour or condition module whose id ``flag`` gives."""
        ids = [m.id for m in modules]
        expected = f"a {flavour.name} {kind} id in {ids}"
        ident = int(take(flag, expected, min(ids), max(ids), True, after))
        found = next((m for m in modules if m.id == ident), None)
        if found is None:
            p, _ = flags[flag]
            raise GrammarError(p, _token(tokens, p - offset), expected)
        return found

    n = int(take("--nstates", f"an integer in {{1, …, {MAX_STATES}}}", 1, MAX_STATES, True,
                 "the start"))
    states = []
    for s in range(n):
        bmod = module(f"--s{s}", "behaviour", flavour.behaviours,
                      f"state {s - 1}" if s else "--nstates")
        bparams = {q.name: take(f"--{q.name}{s}", q.describe(), q.low, q.high, q.integer,
                                f"--s{s}") for q in bmod.params}
        transitions = []
        if n > 1:
            nt = int(take(f"--n{s}", f"an integer in {{0, …, {MAX_TRANSITIONS}}}", 0,
                          MAX_TRANSITIONS, True, f"--s{s}"))
            for t in range(nt):
                rel = int(take(f"--n{s}x{t}", f"an integer in {{0, …, {n - 2}}} (one of the "
                                              f"{n - 1} other states)", 0, n - 2, True,
                               f"--n{s}"))
                cmod = module(f"--c{s}x{t}", "condition", flavour.conditions, f"--n{s}x{t}")
                cparams = {q.name: take(f"--{q.name}{s}x{t}", q.describe(), q.low, q.high,
                                        q.integer, f"--c{s}x{t}") for q in cmod.params}
                transitions.append(Transition(rel + (rel >= s), cmod.id, cparams))
        states.append(State(bmod.id, bparams, tuple(transitions)))
    extra = sorted((pos_of[f], f) for f in flags if f not in used)
    if extra:
        p, f = extra[0]
        raise GrammarError(p, f, "no flag for a state, transition or module that the PFSM "
                                 "does not have (a parameter of another module, a state beyond "
                                 "--nstates or a transition beyond --n…)")
    return PFSM(tuple(states))


def _token(tokens: list[str], i: int) -> str:
    return tokens[i] if 0 <= i < len(tokens) else ""


def _fmt(value: float, integer: bool) -> str:
    return str(int(value)) if integer or float(value).is_integer() else repr(float(value))


def format(pfsm: PFSM, flavour: Flavour) -> str:  # noqa: A001 - the grammar's print
    """The AutoMoDe command-line string of ``pfsm``."""
    n = len(pfsm.states)
    out = [f"--nstates {n}"]
    for s, st in enumerate(pfsm.states):
        module = flavour.behaviour(st.behaviour)
        out.append(f"--s{s} {st.behaviour}")
        for q in module.params:
            out.append(f"--{q.name}{s} {_fmt(st.params[q.name], q.integer)}")
        if n > 1:
            out.append(f"--n{s} {len(st.transitions)}")
            for t, tr in enumerate(st.transitions):
                cmod = flavour.condition(tr.condition)
                out.append(f"--n{s}x{t} {tr.to - (tr.to > s)}")
                out.append(f"--c{s}x{t} {tr.condition}")
                for q in cmod.params:
                    out.append(f"--{q.name}{s}x{t} {_fmt(tr.params[q.name], q.integer)}")
    return " ".join(out)
