"""Iterated F-race (Birattari et al. 2010; López-Ibáñez et al. 2016, the irace package) over a
space of categorical, integer and real parameters with conditional activation.

Each iteration samples candidates around the elites found so far and races them: candidates
are evaluated instance by instance (an instance is a seed), and from the ``first_test``-th
instance on, every ``each_test`` instances, a Friedman test over the candidates' ranks (a
Wilcoxon signed-rank test when two remain) is followed by the post-hoc comparison against the
best (Conover's multiple comparison on rank sums), and those found worse are dropped. The
survivors, ranked by mean rank, become the elites; their sampling models then narrow (numbers:
the standard deviation shrinks by ``(1/N)^(1/d)``; categories: probability moves towards the
elite's value). The budget is counted in evaluations (simulation runs); evaluations are
requested in batches from a caller-supplied function, so a whole stage of a race can run as
one batched simulation. Costs are minimised. The same seed gives the same result.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Real:
    name: str
    low: float
    high: float
    when: Optional[Callable[[dict], bool]] = None   # active only if when(config)


@dataclass(frozen=True)
class Integer:
    name: str
    low: int
    high: int
    when: Optional[Callable[[dict], bool]] = None


@dataclass(frozen=True)
class Categorical:
    name: str
    values: tuple
    when: Optional[Callable[[dict], bool]] = None


@dataclass(frozen=True)
class Space:
    """Parameters in order: a condition (``when``) may read only parameters before it."""

    params: tuple

    @property
    def numeric(self) -> int:
        return sum(not isinstance(p, Categorical) for p in self.params)


def key(config: dict) -> str:
    """A stable text for a configuration (inactive parameters omitted)."""
    return " ".join(f"{k}={config[k]!r}" for k in sorted(config) if config[k] is not None)


@dataclass
class Candidate:
    id: int
    config: dict
    sd: dict = field(default_factory=dict)      # numeric parameter -> current std deviation
    probs: dict = field(default_factory=dict)   # categorical parameter -> probabilities
    _key: str = field(default="", repr=False, compare=False)

    @property
    def key(self) -> str:
        """:func:`key` of the configuration, made once (a race asks for it very often)."""
        if not self._key:
            self._key = key(self.config)
        return self._key


@dataclass
class Result:
    best: dict
    elites: list
    evaluations: int
    iterations: int
    history: list      # per iteration: (candidates raced, evaluations, elite ids)
    costs: dict        # candidate key -> {instance: cost}


def _active(p, config: dict) -> bool:
    return p.when is None or bool(p.when(config))


def sample_uniform(space: Space, rng: np.random.Generator) -> dict:
    config: dict = {}
    for p in space.params:
        config[p.name] = _uniform(p, rng) if _active(p, config) else None
    return config


def _uniform(p, rng):
    if isinstance(p, Categorical):
        return p.values[int(rng.integers(len(p.values)))]
    return int(rng.integers(p.low, p.high + 1)) if isinstance(p, Integer) else \
        float(rng.uniform(p.low, p.high))


def _around(p, centre, sd, rng):
    """A truncated normal around ``centre`` (irace's numeric sampling)."""
    lo, hi = (p.low - 0.5, p.high + 0.5) if isinstance(p, Integer) else (p.low, p.high)
    v = centre if sd <= 0 else _truncnorm(centre, sd, lo, hi, rng)
    return int(min(p.high, max(p.low, round(v)))) if isinstance(p, Integer) else \
        float(min(p.high, max(p.low, v)))


def _truncnorm(mu, sd, lo, hi, rng):
    # inverse-CDF sampling: one uniform per draw, so the stream of draws is fixed
    a, b = stats.norm.cdf((lo - mu) / sd), stats.norm.cdf((hi - mu) / sd)
    u = a + (b - a) * rng.uniform()
    u = min(max(u, 1e-12), 1 - 1e-12)
    return mu + sd * float(stats.norm.ppf(u))


@dataclass
class IteratedRace:
    """``evaluate(pairs)`` gets a list of ``(config, instance seed)`` and returns their costs.

    ``budget`` evaluations in all; ``seed`` fixes sampling and the instance sequence. ``fixed``
    candidates (configurations) join the first race, as irace's initial configurations."""

    space: Space
    evaluate: Callable[[list], Sequence[float]]
    budget: int
    seed: int = 0
    first_test: int = 5
    each_test: int = 1
    alpha: float = 0.05
    iterations: Optional[int] = None
    fixed: tuple = ()
    # after the first stage a race adds instances in blocks of at least each_test, enough
    # that a block asks for about min_batch evaluations (batched simulations need runs
    # together); the tests follow each block. 1 is irace's one instance at a time
    min_batch: int = 1
    on_progress: Optional[Callable[[int, int], None]] = None

    def __post_init__(self):
        d = max(1, len(self.space.params))
        self.n_iter = self.iterations or int(2 + math.log2(d))
        self.n_min = int(2 + round(math.log2(d)))
        self.rng = np.random.default_rng([self.seed, 0x1ACE])
        self.used = 0
        self.costs: dict[str, dict[int, float]] = {}
        self.next_id = 0
        self.n_instances = 0
        self.instances: list[int] = []

    @property
    def min_budget(self) -> int:
        """The smallest budget that races anything: ``n_min + 1`` candidates on
        ``first_test`` instances."""
        return (self.n_min + 1) * self.first_test

    # -------------------------------------------------------------- instances and evaluation
    def instance(self, k: int) -> int:
        while len(self.instances) <= k:
            j = len(self.instances)
            self.instances.append(int(np.random.SeedSequence([self.seed, 0x5EED, j])
                                      .generate_state(1, dtype=np.uint32)[0]))
        return self.instances[k]

    def _run(self, pairs: list) -> None:
        """Evaluate (candidate, instance index) pairs not yet known; count the budget."""
        todo: dict = {}   # each (configuration, instance) once, in the order first asked
        for c, k in pairs:
            if k not in self.costs.setdefault(c.key, {}):
                todo.setdefault((c.key, k), (c, k))
        unique = list(todo.values())
        if not unique:
            return
        costs = self.evaluate([(c.config, self.instance(k)) for c, k in unique])
        for (c, k), cost in zip(unique, costs):
            self.costs[c.key][k] = float(cost)
        self.used += len(unique)
        if self.on_progress is not None:
            self.on_progress(self.used, self.budget)

    def _cost(self, c: Candidate, k: int) -> float:
        return self.costs[c.key][k]

    # -------------------------------------------------------------- sampling
    def _new(self, config: dict, sd=None, probs=None) -> Candidate:
        c = Candidate(self.next_id, config, dict(sd or {}), dict(probs or {}))
        self.next_id += 1
        for p in self.space.params:
            if isinstance(p, Categorical):
                c.probs.setdefault(p.name, np.full(len(p.values), 1.0 / len(p.values)))
            else:
                c.sd.setdefault(p.name, (p.high - p.low) / 2.0)
        return c

    def _child(self, parent: Candidate) -> Candidate:
        config: dict = {}
        for p in self.space.params:
            if not _active(p, config):
                config[p.name] = None
                continue
            centre = parent.config.get(p.name)
            if isinstance(p, Categorical):
                probs = parent.probs[p.name]
                config[p.name] = p.values[int(self.rng.choice(len(p.values), p=probs))]
            elif centre is None:   # inactive in the parent: nothing to sample around
                config[p.name] = _uniform(p, self.rng)
            else:
                config[p.name] = _around(p, centre, parent.sd[p.name], self.rng)
        return self._new(config, parent.sd, parent.probs)

    def _update_models(self, elites: list[Candidate], iteration: int, n_new: int) -> None:
        shrink = (1.0 / max(n_new, 1)) ** (1.0 / max(1, self.space.numeric))
        # probability moves towards the elite's value, never all the way (irace's
        # (j − 1)/N_iter … capped so that every value stays possible)
        w = min(iteration, self.n_iter - 1) / self.n_iter
        for e in elites:
            for p in self.space.params:
                if isinstance(p, Categorical):
                    v = e.config.get(p.name)
                    if v is None:   # inactive in this elite: its model stays as it was
                        continue
                    probs = e.probs[p.name] * (1.0 - w)
                    probs[p.values.index(v)] += w
                    e.probs[p.name] = probs / probs.sum()
                else:
                    e.sd[p.name] = e.sd[p.name] * shrink

    # -------------------------------------------------------------- the race
    def _ranks(self, alive: list[Candidate], ks: list[int]) -> np.ndarray:
        m = np.array([[self._cost(c, k) for c in alive] for k in ks])
        return np.apply_along_axis(stats.rankdata, 1, m)

    def _eliminate(self, alive: list[Candidate], ks: list[int]) -> list[Candidate]:
        n, k = len(ks), len(alive)
        if k < 2 or n < 2:
            return alive
        m = np.array([[self._cost(c, j) for c in alive] for j in ks])
        if k == 2:
            d = m[:, 0] - m[:, 1]
            if np.all(d == 0):
                return alive
            p = stats.wilcoxon(m[:, 0], m[:, 1], zero_method="zsplit").pvalue
            return [alive[int(np.argmin(m.mean(axis=0)))]] if p < self.alpha else alive
        r = np.apply_along_axis(stats.rankdata, 1, m)
        if np.all(r == r[:, :1]):
            return alive
        p = stats.friedmanchisquare(*m.T).pvalue
        if not p < self.alpha:
            return alive
        # Conover's post-hoc on rank sums: drop those worse than the best by more than
        # t(1 − α/2, (n−1)(k−1)) · sqrt(2 (n A − Σ R²) / ((n−1)(k−1)))
        R = r.sum(axis=0)
        A = float((r ** 2).sum())
        dof = (n - 1) * (k - 1)
        spread = max(0.0, 2.0 * (n * A - float((R ** 2).sum())) / dof)
        t = stats.t.ppf(1 - self.alpha / 2, dof) * math.sqrt(spread)
        best = R.min()
        return [c for c, rc in zip(alive, R) if rc - best <= t]

    def _block(self, alive: list[Candidate], k: int, block: int) -> tuple[list, int]:
        """Every candidate on instances ``k … k + block − 1``, and how many of these pairs
        are still to evaluate."""
        pairs = [(c, j) for j in range(k, k + block) for c in alive]
        return pairs, sum(1 for c, j in pairs if j not in self.costs.get(c.key, {}))

    def _race(self, candidates: list[Candidate], budget: int, start: int) -> list[Candidate]:
        """Race from instance index ``start``; returns the survivors, best first."""
        alive = list(candidates)
        ks: list[int] = []
        k = start
        spent = 0
        while True:
            need = sum(1 for c in alive if k not in self.costs.get(c.key, {}))
            first_stage = len(ks) < self.first_test
            if ks and (spent + need > budget or self.used + need > self.budget):
                break
            if first_stage and not ks:
                # the first stage at once: every candidate on `first_test` instances
                block = self.first_test
                pairs, need = self._block(alive, k, block)
                if self.used + need > self.budget:
                    break
            else:
                block = max(self.each_test, -(-self.min_batch // max(1, need)))
                pairs, need = self._block(alive, k, block)
                while block > 1 and (spent + need > budget or self.used + need > self.budget):
                    block -= 1   # the block shrinks to what the budget still allows
                    pairs, need = self._block(alive, k, block)
            before = self.used
            self._run(pairs)
            spent += self.used - before
            ks.extend(range(k, k + block))
            k += block
            if len(ks) >= self.first_test:
                alive = self._eliminate(alive, ks)
            if len(alive) <= self.n_min and len(ks) >= self.first_test:
                break   # few enough survivors: they are this iteration's elites
            if self.used >= self.budget:
                break
        if not ks:
            return []
        mean_rank = self._ranks(alive, ks).mean(axis=0)
        order = np.argsort(mean_rank, kind="stable")
        self.last_instances = ks
        return [alive[i] for i in order]

    def run(self) -> Result:
        elites: list[Candidate] = []
        history = []
        start = 0
        it = idle = 0
        while True:
            it += 1
            remaining = self.budget - self.used
            # irace goes on past N_iter iterations while a race still fits in the budget
            if remaining < self.min_budget or (it > 1 and not elites):
                break
            b_j = remaining // max(1, self.n_iter - it + 1)
            n_j = max(self.n_min + 1, b_j // (self.first_test + min(5, it)))
            if it == 1:
                new = [self._new(dict(c)) for c in self.fixed][:n_j]
                new += [self._new(sample_uniform(self.space, self.rng))
                        for _ in range(n_j - len(new))]
            else:
                total = len(elites) * (len(elites) + 1) / 2
                weights = np.array([(len(elites) - i) / total for i in range(len(elites))])
                taken = {e.key for e in elites}
                new = []
                for _ in range(max(0, n_j - len(elites))):
                    # a child equal to a known candidate (a PFSM with no numbers to vary)
                    # is drawn again, a few times
                    for _attempt in range(10):
                        child = self._child(elites[int(self.rng.choice(len(elites),
                                                                        p=weights))])
                        if child.key not in taken:
                            break
                    taken.add(child.key)
                    new.append(child)
            pool = elites + [c for c in new if c.key not in
                             {e.key for e in elites}]
            used_before = self.used
            survivors = self._race(pool, max(b_j, self.first_test * len(pool)), start)
            if not survivors:
                break
            idle = idle + 1 if self.used == used_before else 0
            if idle >= 3:
                break   # nothing new could be evaluated (a small, exhausted space)
            elites = survivors[:self.n_min]
            self._update_models(elites, it, len(new))
            history.append((len(pool), self.used, [e.id for e in elites]))
        if not elites:
            raise ValueError(f"a budget of {self.budget} evaluations cannot race even "
                             f"{self.n_min + 1} candidates on {self.first_test} instances")
        return Result(best=elites[0].config, elites=[e.config for e in elites],
                      evaluations=self.used, iterations=len(history), history=history,
                      costs=self.costs)
