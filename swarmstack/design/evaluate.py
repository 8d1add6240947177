"""Candidate PFSMs × instances evaluated as batched simulations, on any executor.

A :class:`Batch` (picklable) is K (PFSM string, seed) pairs of one mission: one
:class:`~swarmstack.experiments.simulation.Simulation` of K runs in which run k has seed
``seeds[k]`` and runs ``pfsms[k]`` — every robot of every run stepped by one call per tick.
Run k is bit-identical to the same seed simulated alone, so a score does not depend on what
else shared its batch. Workers keep their simulations between batches (one per batch size) and
only re-place and re-key the runs.

Batches go to any :class:`concurrent.futures.Executor`: in this process, a local process pool
or Ray (``swarmstack.studies.executors.make_executor``).
"""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional




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


_SIMS: dict = {}


def _simulation(mission: Mission, runs: int):
    from swarmstack.experiments.simulation import Simulation

    k = (mission.experiment, runs)
    if k not in _SIMS:
        if len(_SIMS) >= 8:   # a few sizes kept (building one takes ~20 ms for 50 runs)
            _SIMS.pop(next(iter(_SIMS)))
        _SIMS[k] = Simulation.from_file(Path(mission.experiment), runs=runs)
    return _SIMS[k]


def run_batch(batch: Batch) -> list:
    """The scores of a batch, in its order."""
    from swarmstack.design.missions import run_scores

    runs = len(batch.seeds)
    sim = _simulation(batch.mission, runs)
    sim.seed_runs(batch.seeds)
    # the file's controller parameters (its flavour among them), with each run's PFSM
    g = next(g for g in sim.cfg.robots if g.name == batch.mission.group)
    base = dict(g.controller.params) if g.controller is not None else {}
    sim.reset(params=[{batch.mission.group: {**base, "pfsm": t}} for t in batch.pfsms])
    return [float(v) for v in run_scores(sim, batch.mission.objective, batch.mission.group,
                                         batch.mission.ticks)]


def evaluate(mission: Mission, pairs: list, executor: cf.Executor, runs_per_batch: int,
             workers: int = 1, ledger=None,
             on_batch: Optional[Callable[[int], None]] = None) -> list:
    """Scores of (PFSM string, seed) pairs: those in ``ledger`` read, the others simulated in
    batches of ``runs_per_batch`` runs (fewer, to give every worker one), then recorded."""
    known = ledger.lookup(pairs) if ledger is not None else {}
    todo = [p for p in dict.fromkeys((t, int(s)) for t, s in pairs) if p not in known]
    scores = dict(known)
    if known and on_batch is not None:
        on_batch(len(known))
    if todo:
        size = max(1, min(runs_per_batch, -(-len(todo) // max(1, workers))))
        chunks = [todo[i:i + size] for i in range(0, len(todo), size)]
        futures = [(chunk, executor.submit(run_batch, Batch(
            mission, tuple(t for t, _ in chunk), tuple(s for _, s in chunk))))
            for chunk in chunks]
        for chunk, fut in futures:
            values = fut.result()
            rows = [(t, s, v) for (t, s), v in zip(chunk, values)]
            if ledger is not None:
                ledger.record(rows)
            scores.update({(t, s): v for t, s, v in rows})
            if on_batch is not None:
                on_batch(len(chunk))
    return [scores[(t, int(s))] for t, s in pairs]
