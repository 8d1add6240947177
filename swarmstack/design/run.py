"""A whole design: iterated F-race over a flavour's PFSMs for a mission, with a ledger, then
the best PFSM assessed on fresh seeds against baselines.

Output folder: ``best.txt`` (the PFSM string; ``controller = { pfsm_file = "best.txt" }``),
``ledger.sqlite`` (every evaluation: resuming replays the race from it), ``scores.json``
(the design, the random PFSMs and the mission's own controller on the same fresh seeds, and a
one-sided Mann–Whitney test of the design against the random PFSMs) and ``scores.png``.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from swarmstack.design.controller import kit_for
from swarmstack.design.evaluate import Mission, evaluate
from swarmstack.studies.executors import executor_workers, make_executor
from swarmstack.design.irace import IteratedRace, sample_uniform
from swarmstack.design.space import pfsm_space, to_text
from swarmstack.experiments.config import load_experiment
from swarmstack.experiments.results_writer import write_file_atomic

LEDGER = "ledger.sqlite"
DEFAULT_TIMEOUT_S = 3600.0   # a run's wall-clock budget unless the file or the caller says
MIN_BATCH = 40   # evaluations a race step asks for at least (irace.IteratedRace.min_batch)


class DesignError(ValueError):
    """A design that cannot start (its folder, its mission); the message says why."""


@dataclass
class Assessment:
    seeds: list
    design: list
    random: list          # one list of scores per random PFSM
    random_pfsms: list
    hand: Optional[list]  # the mission file's own controller, if it is a PFSM
    p_value: float        # one-sided Mann–Whitney U: design > random PFSMs

    def summary(self) -> dict:
        pooled = [v for r in self.random for v in r]
        out = {"design_median": float(np.median(self.design)),
               "random_median": float(np.median(pooled)),
               "p_design_beats_random": self.p_value}
        if self.hand is not None:
            out["hand_median"] = float(np.median(self.hand))
        return out


class LedgerMismatch(ValueError):
    pass


class Ledger:
    """The design's ledger: every evaluation (PFSM string, instance seed → score) in SQLite.

    A design that is killed and started again with ``--resume`` replays its (deterministic)
    race from the beginning; every evaluation already in the ledger is read instead of
    simulated, so it reaches the same result as an uninterrupted design with the same seed.
    Each batch's results are committed together, as soon as they arrive."""

    def __init__(self, path: Path, settings: dict):
        self.path = Path(path)
        self.db = sqlite3.connect(self.path)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("CREATE TABLE IF NOT EXISTS settings (id INTEGER PRIMARY KEY CHECK "
                        "(id = 0), json TEXT NOT NULL)")
        self.db.execute("CREATE TABLE IF NOT EXISTS evaluations (pfsm TEXT NOT NULL, seed "
                        "INTEGER NOT NULL, score REAL NOT NULL, PRIMARY KEY (pfsm, seed))")
        row = self.db.execute("SELECT json FROM settings").fetchone()
        text = json.dumps(settings, sort_keys=True)
        if row is None:
            self.db.execute("INSERT INTO settings VALUES (0, ?)", (text,))
            self.db.commit()
        elif row[0] != text:
            old = json.loads(row[0])
            diff = sorted(k for k in set(old) | set(settings) if old.get(k) != settings.get(k))
            raise LedgerMismatch(f"{self.path} belongs to another design (it differs in "
                                 f"{', '.join(diff)}: {', '.join(f'{k}={old.get(k)!r}' for k in diff)})")

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM evaluations").fetchone()[0]

    def lookup(self, pairs: list[tuple[str, int]]) -> dict:
        found = {}
        for text, seed in pairs:
            row = self.db.execute("SELECT score FROM evaluations WHERE pfsm = ? AND seed = ?",
                                  (text, int(seed))).fetchone()
            if row is not None:
                found[(text, int(seed))] = row[0]
        return found

    def record(self, rows: list[tuple[str, int, float]]) -> None:
        with self.db:
            self.db.executemany("INSERT OR REPLACE INTO evaluations VALUES (?, ?, ?)",
                                [(t, int(s), float(v)) for t, s, v in rows])

    def close(self) -> None:
        self.db.close()


def design(experiment: Path, objective: str, budget: int, seed: int, out: Path,
           workers: int = 1, resume: bool = False, group: str = "swarm",
           ray: Optional[str] = None,
           runs_per_batch: int = 50, n_fresh: int = 30, n_random: int = 20,
           ticks: Optional[int] = None,
           progress: Optional[Callable[[int, int], None]] = None,
           timeout_s: Optional[float] = None) -> tuple[str, Assessment]:
    """Run a design; returns (best PFSM string, assessment). ``timeout_s``: each run's
    wall-clock budget (default: the file's ``simulation.timeout``, else
    :data:`DEFAULT_TIMEOUT_S`; 0: none); a batch past it ends the design with
    :class:`~swarmstack.design.evaluate.EvaluationError` (the ledger keeps what was done)."""
    experiment = Path(experiment).resolve()
    cfg = load_experiment(experiment)
    groups = {g.name: g for g in cfg.robots}
    if group not in groups:
        raise DesignError(f"{experiment}: no robot group {group!r} (groups: "
                          f"{', '.join(groups)})")
    kit = kit_for(groups[group].type)
    space = pfsm_space(kit.flavour)
    need = IteratedRace(space, lambda pairs: [], budget, seed).min_budget
    if budget < need:
        raise DesignError(f"--budget {budget}: a race of this mission's PFSMs needs at least "
                          f"{need} runs")
    if timeout_s is None:
        timeout_s = cfg.simulation.timeout or DEFAULT_TIMEOUT_S
    timeout_s = float(timeout_s) or None
    out = Path(out)
    ledger_path = out / LEDGER
    if ledger_path.exists() and not resume:
        raise DesignError(f"{out} already holds a design ({LEDGER}); add --resume to continue "
                          "it or choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    settings = {"experiment": str(experiment), "objective": objective, "group": group,
                "budget": budget, "seed": seed, "ticks": ticks, "flavour": kit.flavour.name}
    ledger = Ledger(ledger_path, settings)
    mission = Mission(str(experiment), objective, group, ticks)
    flavour = kit.flavour
    done = [0]
    hand_text = groups[group].controller.params.get("pfsm") \
        if groups[group].controller is not None else None
    total = budget + n_fresh * (1 + n_random + (1 if hand_text else 0))

    def tick(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(min(done[0], total), total)

    executor = make_executor(workers if ray is None else None, ray)
    workers = executor_workers(executor)
    try:
        def costs(pairs):
            texts = [(to_text(c, flavour), s) for c, s in pairs]
            scores = evaluate(mission, texts, executor, runs_per_batch, workers, ledger, tick,
                              timeout_s)
            return [-v for v in scores]   # the race minimises

        # race steps big enough to give two workers a batch of runs each; a constant, so
        # that the design does not depend on how many workers run it
        race = IteratedRace(space, costs, budget, seed, min_batch=MIN_BATCH)
        result = race.run()
        done[0] = budget
        best = to_text(result.best, flavour)
        write_file_atomic(out / "best.txt", (best + "\n").encode())
        # assessment on fresh seeds: the design, random PFSMs and the file's own controller
        # (a stream of their own, apart from the race's instances)
        seeds = [int(v) for v in np.random.SeedSequence([seed, 0xF2E5]).generate_state(
            n_fresh, dtype=np.uint32)]
        rng = np.random.default_rng([seed, 0xBA5E])
        randoms = [to_text(sample_uniform(space, rng), flavour) for _ in range(n_random)]
        entries = [best] + randoms + ([hand_text] if hand_text else [])
        pairs = [(t, s) for t in entries for s in seeds]
        scores = evaluate(mission, pairs, executor, runs_per_batch, workers, ledger, tick,
                          timeout_s)
    except BaseException:
        if hasattr(executor, "terminate"):   # what the workers still run is of no use now
            executor.terminate()
        raise
    finally:
        executor.shutdown()
        ledger.close()
    table = np.array(scores).reshape(len(entries), n_fresh)
    from scipy import stats

    rand = table[1:1 + n_random]
    p = float(stats.mannwhitneyu(table[0], rand.ravel(), alternative="greater").pvalue) \
        if n_random else float("nan")
    assessment = Assessment(seeds, table[0].tolist(), rand.tolist(), randoms,
                            table[-1].tolist() if hand_text else None, p)
    write_file_atomic(out / "scores.json", json.dumps({
        "mission": settings, "best": best, "evaluations": result.evaluations,
        "iterations": result.iterations, "seeds": seeds, "design": assessment.design,
        "random": assessment.random, "random_pfsms": randoms, "hand": assessment.hand,
        "hand_pfsm": hand_text, **assessment.summary()}, indent=1).encode())
    box_plot(out / "scores.png", assessment, objective)
    return best, assessment


def box_plot(path: Path, a: Assessment, objective: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = [a.design, [v for r in a.random for v in r]]
    labels = ["design", f"random PFSMs ({len(a.random)})"]
    if a.hand is not None:
        data.append(a.hand)
        labels.append("hand-written")
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.boxplot(data)
    ax.set_xticks(range(1, len(data) + 1), labels)
    ax.set_ylabel(f"{objective} score")
    ax.set_title(f"{len(a.seeds)} fresh seeds; design > random: p = {a.p_value:.2g}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
