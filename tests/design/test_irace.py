"""Iterated F-race finds the known optima of benchmark functions, with noise, categorical and
conditional parameters, and is deterministic for a seed."""

import zlib

import numpy as np
import pytest

from swarmstack.design.irace import Categorical, Integer, IteratedRace, Real, Space, key


def noisy(f, sd=0.05):
    """Cost function over (config, instance): f plus noise drawn from the pair, as a
    simulation's outcome depends on both its seed and its controller."""
    def evaluate(pairs):
        return [f(c) + sd * np.random.default_rng([inst, zlib.crc32(key(c).encode())])
                .standard_normal() for c, inst in pairs]
    return evaluate


def test_finds_the_minimum_of_a_shifted_sphere():
    # 5-D: uniform sampling of the whole budget lands within 0.3 of the target in every
    # coordinate with probability ~1e-3; the race must narrow in on it
    target = np.array([1.5, -2.0, 0.5, 3.0, -4.0])
    space = Space(tuple(Real(f"x{i}", -5.0, 5.0) for i in range(5)))
    f = lambda c: float(sum((c[f"x{i}"] - target[i]) ** 2 for i in range(5)))  # noqa: E731
    res = IteratedRace(space, noisy(f), budget=2000, seed=1).run()
    best = np.array([res.best[f"x{i}"] for i in range(5)])
    assert np.abs(best - target).max() < 0.3
    assert res.evaluations <= 2000


def test_finds_the_right_category_and_the_parameter_it_activates():
    # y exists only for kind "b"; the optimum is kind b with y = 7 (cost 0), kind a costs 1,
    # kind c costs 2; n is an integer with its best at 3
    space = Space((Categorical("kind", ("a", "b", "c")),
                   Integer("y", 0, 10, when=lambda c: c["kind"] == "b"),
                   Integer("n", 0, 8)))

    def f(c):
        base = {"a": 1.0, "b": 0.1 * abs(c["y"] - 7) if c["y"] is not None else 9,
                "c": 2.0}[c["kind"]]
        return base + 0.2 * abs(c["n"] - 3)

    res = IteratedRace(space, noisy(f, 0.1), budget=1200, seed=4).run()
    assert res.best["kind"] == "b"
    assert abs(res.best["y"] - 7) <= 1
    assert abs(res.best["n"] - 3) <= 1
    # inactive parameters are None
    assert all((c["y"] is None) == (c["kind"] != "b") for c in res.elites)


def test_rosenbrock_valley_minimum_within_reach():
    space = Space((Real("a", -2.0, 2.0), Real("b", -1.0, 3.0)))
    f = lambda c: (1 - c["a"]) ** 2 + 10 * (c["b"] - c["a"] ** 2) ** 2  # noqa: E731
    res = IteratedRace(space, noisy(f, 0.01), budget=2000, seed=2).run()
    assert f(res.best) < 0.1


def test_same_seed_same_result_and_budget_is_respected():
    space = Space((Real("x", 0.0, 1.0), Categorical("k", (0, 1, 2))))
    f = lambda c: (c["x"] - 0.3) ** 2 + c["k"]  # noqa: E731
    calls = []

    def evaluate(pairs):
        calls.append(len(pairs))
        return noisy(f)(pairs)

    a = IteratedRace(space, evaluate, budget=400, seed=9).run()
    b = IteratedRace(space, noisy(f), budget=400, seed=9).run()
    assert a.best == b.best and a.history == b.history and a.costs == b.costs
    assert sum(calls) == a.evaluations <= 400
    assert max(calls) > 1       # evaluations come in batches (the first stage at once)
    c = IteratedRace(space, noisy(f), budget=400, seed=10).run()
    assert c.costs != a.costs


def test_a_too_small_budget_is_an_error():
    space = Space((Real("x", 0.0, 1.0),))
    with pytest.raises(ValueError, match="budget"):
        IteratedRace(space, noisy(lambda c: c["x"]), budget=5, seed=0).run()


def test_fixed_configurations_join_the_first_race():
    space = Space((Real("x", 0.0, 1.0),))
    seen = set()

    def evaluate(pairs):
        seen.update(key(c) for c, _ in pairs)
        return [abs(c["x"] - 0.123) for c, _ in pairs]

    IteratedRace(space, evaluate, budget=100, seed=0, fixed=({"x": 0.123},)).run()
    assert key({"x": 0.123}) in seen


def test_blocks_of_instances_fill_batches_and_still_find_the_optimum():
    target = np.array([1.5, -2.0, 0.5, 3.0, -4.0])
    space = Space(tuple(Real(f"x{i}", -5.0, 5.0) for i in range(5)))
    f = lambda c: float(sum((c[f"x{i}"] - target[i]) ** 2 for i in range(5)))  # noqa: E731
    sizes = []
    res = IteratedRace(space, lambda p: sizes.append(len(p)) or noisy(f, 1.0)(p), budget=2000,
                       seed=1, min_batch=40).run()
    best = np.array([res.best[f"x{i}"] for i in range(5)])
    assert np.abs(best - target).max() < 0.5
    one = []
    IteratedRace(space, lambda p: one.append(len(p)) or noisy(f, 1.0)(p), budget=2000,
                 seed=1).run()
    # one instance at a time asks for many small batches; blocks ask for few, larger ones
    assert len(sizes) < len(one) / 2
    assert np.median(sizes) > np.median(one)
