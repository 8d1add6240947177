"""Candidate PFSMs × instances evaluated as batched simulations, on any executor.

A :class:`Batch` (picklable) is K (PFSM string, seed) pairs of one mission: one
:class:`~swarmstack.sim.simulation.Simulation` of K runs in which run k has seed
``seeds[k]`` and runs ``pfsms[k]`` — every robot of every run stepped by one call per tick.
Run k is bit-identical to the same seed simulated alone, so a score does not depend on what
else shared its batch. Workers keep their simulations between batches (one per batch size) and
only re-place and re-key the runs.

Batches go to any :class:`concurrent.futures.Executor`: in this process, a local process pool
or Ray (``swarmstack.studies.executors.make_executor``). A batch whose worker died is run again
(up to :data:`MAX_ATTEMPTS` times); one that runs past its wall-clock budget (``timeout_s``,
``experiments.watchdog``) ends the evaluation with :class:`EvaluationError`.
"""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

MAX_ATTEMPTS = 3


class EvaluationError(RuntimeError):
    """Runs that could not be evaluated (past their time budget, or their worker kept dying);
    the message is one line."""


@dataclass(frozen=True)
class Mission:
    """An experiment file, the objective that scores it and the group the PFSMs control."""

    experiment: str
    objective: str
    group: str = "swarm"
    ticks: Optional[int] = None      # default: the file's duration


@dataclass(frozen=True)
class Batch:
    mission: Mission
    pfsms: tuple
    seeds: tuple
    timeout_s: Optional[float] = None   # wall-clock budget of each run (None: none)


_SIMS: dict = {}


def _simulation(mission: Mission, runs: int):
    from swarmstack.sim.simulation import Simulation

    k = (mission.experiment, runs)
    if k not in _SIMS:
        if len(_SIMS) >= 8:   # a few sizes kept (building one takes ~20 ms for 50 runs)
            _SIMS.pop(next(iter(_SIMS)))
        _SIMS[k] = Simulation.from_file(Path(mission.experiment), runs=runs)
    return _SIMS[k]


def run_batch(batch: Batch) -> list:
    """The scores of a batch, in its order."""
    from swarmstack.design.missions import run_scores
    from swarmstack.experiments.watchdog import Watchdog, budget_text, is_timeout

    runs = len(batch.seeds)
    with Watchdog(batch.timeout_s) as budget:
        try:
            sim = budget.sim = _simulation(batch.mission, runs)
            sim.seed_runs(batch.seeds)
            # the file's controller parameters (its flavour among them), with each run's PFSM
            g = next(g for g in sim.cfg.robots if g.name == batch.mission.group)
            base = dict(g.controller.params) if g.controller is not None else {}
            sim.reset(params=[{batch.mission.group: {**base, "pfsm": t}} for t in batch.pfsms])
            scores = run_scores(sim, batch.mission.objective, batch.mission.group,
                                batch.mission.ticks)
        except BaseException as exc:
            if not is_timeout(exc):
                raise
            _SIMS.pop((batch.mission.experiment, runs), None)   # stopped mid-tick: not reused
            raise EvaluationError(f"a batch of {runs} runs of {batch.mission.experiment} "
                                  f"{budget_text(batch.timeout_s)} (--timeout)") from None
    return [float(v) for v in scores]


def evaluate(mission: Mission, pairs: list, executor: cf.Executor, runs_per_batch: int,
             workers: int = 1, ledger=None,
             on_batch: Optional[Callable[[int], None]] = None,
             timeout_s: Optional[float] = None) -> list:
    """Scores of (PFSM string, seed) pairs: those in ``ledger`` read, the others simulated in
    batches of ``runs_per_batch`` runs (fewer, to give every worker one), then recorded.
    ``timeout_s``: each run's wall-clock budget."""
    from swarmstack.studies.executors import WorkerDied, WorkerTimedOut

    known = ledger.lookup(pairs) if ledger is not None else {}
    todo = [p for p in dict.fromkeys((t, int(s)) for t, s in pairs) if p not in known]
    scores = dict(known)
    if known and on_batch is not None:
        on_batch(len(known))
    if todo:
        size = max(1, min(runs_per_batch, -(-len(todo) // max(1, workers))))
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]

        def submit(chunk):
            return executor.submit(run_batch, Batch(mission, tuple(t for t, _ in chunk),
                                                    tuple(s for _, s in chunk), timeout_s))

        jobs = [[chunk, submit(chunk), 1] for chunk in chunks]
        for job in jobs:
            chunk = job[0]
            while True:
                try:
                    values = job[1].result()
                    break
                except WorkerTimedOut as exc:
                    raise EvaluationError(f"a batch of {len(chunk)} runs of "
                                          f"{mission.experiment}: {exc} (--timeout)") from None
                except WorkerDied as exc:   # its worker was replaced: the batch again
                    if job[2] >= MAX_ATTEMPTS:
                        raise EvaluationError(f"a batch of {len(chunk)} runs of "
                                              f"{mission.experiment} lost its worker "
                                              f"{job[2]} times; the last: {exc}") from None
                    job[1:] = [submit(chunk), job[2] + 1]
            rows = [(t, s, v) for (t, s), v in zip(chunk, values)]
            if ledger is not None:
                ledger.record(rows)
            scores.update({(t, s): v for t, s, v in rows})
            if on_batch is not None:
                on_batch(len(chunk))
    return [scores[(t, int(s))] for t, s in pairs]
