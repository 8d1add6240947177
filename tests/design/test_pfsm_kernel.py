"""The compiled PFSM step moves every robot as the reference (the modules written over groups
of robots with NumPy) does: same states, same memory, same wheels, for both flavours, on
random PFSMs, readings and draws over many cycles."""

import copy

import numpy as np
import pytest

from swarmstack.design.chocolate import (CHOCOLATE, CHOCOLATE_KIT, DRAWS, Inputs, Memory,
                                         step, step_reference)
from swarmstack.design.irace import sample_uniform
from swarmstack.design.pfsm import pack
from swarmstack.design.space import pfsm_space, to_pfsm
from swarmstack.design.watermelon import WATERMELON, WATERMELON_KIT, RVRInputs


def _pfsms(flavour, rng, k):
    space = pfsm_space(flavour)
    return pack([to_pfsm(sample_uniform(space, rng), flavour) for _ in range(k)], flavour)


def _inputs(kit, rng, n):
    prox = np.where(rng.random((n, 8)) < 0.3, rng.random((n, 8)), 0.0)
    angles = np.linspace(0, 2 * np.pi, 8, endpoint=False)
    common = dict(prox=prox, prox_angle=angles, ground=rng.choice([0.0, 0.05, 0.1, 0.5, 0.78,
                                                                   0.95, 1.0, 0.3, 0.7], n),
                  neighbours=rng.integers(0, 12, n), pull=rng.normal(0, 0.5, (n, 2)))
    if kit is CHOCOLATE_KIT:
        return Inputs(light=rng.random((n, 8)), light_angle=angles, **common)
    hue = np.where(rng.random(n) < 0.2, np.nan, rng.choice([0.0, 14.9, 15.0, 60.0, 120.0,
                                                          239.0, 300.0, 359.0], n))
    return RVRInputs(light=np.zeros((n, 1)), light_angle=np.zeros(1), hue=hue,
                     lux=np.where(rng.random(n) < 0.3, 0.0, rng.random(n) * 100),
                     ahead=rng.random(n) < 0.2, ahead_w=rng.normal(0, 1, (n, 2)), **common)


def _same_memory(a: Memory, b: Memory):
    assert np.array_equal(a.state, b.state)
    assert np.array_equal(a.entering, b.entering)
    assert np.array_equal(a.turn_steps, b.turn_steps)
    assert np.array_equal(a.turn_left, b.turn_left)
    assert np.array_equal(a.previous, b.previous, equal_nan=True)


@pytest.mark.parametrize("kit,flavour", [(CHOCOLATE_KIT, CHOCOLATE),
                                         (WATERMELON_KIT, WATERMELON)])
@pytest.mark.parametrize("seed", range(4))
def test_compiled_step_equals_the_reference(kit, flavour, seed):
    rng = np.random.default_rng(seed)
    n, k = 300, 12
    pk = _pfsms(flavour, rng, k)
    which = rng.integers(0, k, n)
    fast, slow = Memory.fresh(n), Memory.fresh(n)
    moved = 0
    for cycle in range(40):
        inp = _inputs(kit, rng, n)
        u = rng.random((n, DRAWS))
        before = fast.state.copy()
        w_fast = step(kit, pk, which, fast, inp, u)
        w_slow = step_reference(kit, pk, which, slow, inp, u)
        _same_memory(fast, slow)
        np.testing.assert_allclose(w_fast, w_slow, rtol=1e-12, atol=1e-15)
        moved += int((fast.state != before).sum())
    assert moved > 100   # transitions really happened


def test_a_kit_without_table_runs_the_reference():
    rng = np.random.default_rng(9)
    kit = copy.copy(CHOCOLATE_KIT)
    object.__setattr__(kit, "table", None)
    pk = _pfsms(CHOCOLATE, rng, 3)
    which = rng.integers(0, 3, 20)
    a, b = Memory.fresh(20), Memory.fresh(20)
    for _ in range(5):
        inp = _inputs(CHOCOLATE_KIT, rng, 20)
        u = rng.random((20, DRAWS))
        assert np.array_equal(step(kit, pk, which, a, inp, u),
                              step_reference(CHOCOLATE_KIT, pk, which, b, inp, u))
