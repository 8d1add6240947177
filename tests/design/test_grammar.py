"""AutoMoDe's command-line PFSM strings: parsed and printed, round trip, located errors."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.design import grammar
from swarmstack.design.chocolate import CHOCOLATE
from swarmstack.design.grammar import GrammarError
from swarmstack.design.pfsm import PFSM, State, Transition
from swarmstack.design.watermelon import WATERMELON

EXAMPLE = ("--nstates 2 --s0 0 --rwm0 50 --n0 1 --n0x0 0 --c0x0 0 --p0x0 0.5 "
           "--s1 4 --att1 2.5 --n1 2 --n1x0 0 --c1x0 3 --p1x0 4 --w1x0 7.25 "
           "--n1x1 0 --c1x1 5 --p1x1 0.1")


def test_example_parses_into_states_and_transitions():
    f = grammar.parse(EXAMPLE, CHOCOLATE)
    assert len(f.states) == 2
    assert f.states[0] == State(0, {"rwm": 50.0}, (Transition(1, 0, {"p": 0.5}),))
    assert f.states[1].behaviour == 4 and f.states[1].params == {"att": 2.5}
    assert f.states[1].transitions[0] == Transition(0, 3, {"p": 4.0, "w": 7.25})
    assert grammar.format(f, CHOCOLATE) == EXAMPLE


def test_destination_counts_the_other_states():
    # from state 2 of 3, destination 1 among {0, 1} is state 1; from state 0, 1 is state 2
    text = ("--nstates 3 --s0 1 --n0 1 --n0x0 1 --c0x0 5 --p0x0 1 --s1 1 --n1 0 "
            "--s2 1 --n2 1 --n2x0 1 --c2x0 5 --p2x0 1")
    f = grammar.parse(text, CHOCOLATE)
    assert f.states[0].transitions[0].to == 2
    assert f.states[2].transitions[0].to == 1


def test_fsm_config_prefix_and_any_flag_order():
    a = grammar.parse("--fsm-config --nstates 1 --s0 0 --rwm0 7", CHOCOLATE)
    b = grammar.parse("--rwm0 7 --s0 0 --nstates 1", CHOCOLATE)
    assert a == b == PFSM((State(0, {"rwm": 7.0}),))


def _value(p):
    if p.integer:
        return st.integers(int(p.low), int(p.high)).map(float)
    return st.floats(p.low, p.high, allow_nan=False)


@st.composite
def pfsms(draw, flavour=CHOCOLATE):
    """Any PFSM of ``flavour`` within AutoMoDe's limits."""
    n = draw(st.integers(1, 4))
    states = []
    for s in range(n):
        b = draw(st.sampled_from(flavour.behaviours))
        params = {p.name: draw(_value(p)) for p in b.params}
        trans = []
        if n > 1:
            for _ in range(draw(st.integers(0, 4))):
                to = draw(st.sampled_from([k for k in range(n) if k != s]))
                c = draw(st.sampled_from(flavour.conditions))
                trans.append(Transition(to, c.id, {p.name: draw(_value(p)) for p in c.params}))
        states.append(State(b.id, params, tuple(trans)))
    return PFSM(tuple(states))


@pytest.mark.parametrize("flavour", [CHOCOLATE, WATERMELON], ids=lambda f: f.name)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_print_then_parse_is_identity(flavour, data):
    f = data.draw(pfsms(flavour))
    text = grammar.format(f, flavour)
    assert grammar.parse(text, flavour) == f
    assert grammar.format(grammar.parse(text, flavour), flavour) == text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(EXAMPLE.split() + ["--s9", "x", "--p0x3", "-1", "1e9", "nan"]),
                max_size=30))
def test_any_token_soup_parses_or_says_where(tokens):
    try:
        grammar.parse(" ".join(tokens), CHOCOLATE)
    except GrammarError as exc:
        assert 1 <= exc.position <= len(tokens) + 1
        if exc.token:
            assert tokens[exc.position - 1] == exc.token
        assert "expected" in str(exc)


@pytest.mark.parametrize("text, position, token, expected", [
    ("--nstates 5 --s0 1", 2, "5", "an integer in {1, …, 4}"),
    ("--nstates 1 --s0 7", 4, "7", "behaviour id"),
    ("--nstates 1 --s0 0", 5, "", "--rwm0"),
    ("--nstates 1 --s0 0 --rwm0 101", 6, "101", "an integer in {1, …, 100}"),
    ("--nstates 2 --s0 1 --n0 1 --n0x0 1 --c0x0 5 --p0x0 .5 --s1 1 --n1 0", 8, "1",
     "one of the 1 other states"),
    ("--nstates 2 --s0 1 --n0 1 --n0x0 0 --c0x0 3 --p0x0 2 --s1 1 --n1 0", 17, "", "--w0x0"),
    ("--nstates 1 --s0 1 --s0 1", 5, "--s0", "each flag once"),
    ("--nstates 1 --s0 1 --rwm0 5", 5, "--rwm0", "no flag for"),
    ("--nstates 1 --s0 one", 4, "one", "a number after --s0"),
    ("--nstates 1 -s0 1", 3, "-s0", "a flag such as"),
    ("--nstates 1 --s0", 4, "", "a number after --s0"),
    ("--nstates 2 --s0 1 --n0 0 --s1 1 --n1 1 --n1x0 0 --c1x0 5 --p1x0 1.5", 16, "1.5",
     "a number in [0, 1]"),
])
def test_malformed_strings_name_the_token_and_what_was_expected(text, position, token,
                                                                 expected):
    with pytest.raises(GrammarError) as info:
        grammar.parse(text, CHOCOLATE)
    assert info.value.position == position
    assert info.value.token == token
    assert expected in str(info.value)
