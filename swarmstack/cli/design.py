"""`swarmstack design`: automatic design of a PFSM for a mission (swarmstack.design)."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

from pathlib import Path
from typing import Optional

import typer

from swarmstack.cli.common import apply_threads, fail, threads_option


def mission_file(mission: str) -> Path:
    """A mission's experiment file: a path, or the name of a built-in mission."""
    from swarmstack.design.missions import EXAMPLES, OBJECTIVES

    path = Path(mission)
    return EXAMPLES / f"{mission}.toml" if path.suffix != ".toml" and mission in OBJECTIVES \
        else path


def register(app: typer.Typer) -> None:
    @app.command("design")
    def design_cmd(
        mission: str = typer.Argument(..., help="experiment file of the mission, or a built-in "
                                                "mission: aggregation, foraging, shelter, "
                                                "coverage, rvr_mission"),
        budget: int = typer.Option(..., "--budget", min=1, help="simulation runs in all"),
        seed: int = typer.Option(..., "--seed", min=0, help="seed of the design"),
        out: Path = typer.Option(..., "--out", help="folder for best.txt, the ledger, scores"),
        workers: int = typer.Option(1, "--workers", min=1, help="processes simulating"),
        ray: Optional[str] = typer.Option(
            None, "--ray", metavar="ADDRESS",
            help="simulate on a Ray cluster: auto, local or HOST:PORT (instead of --workers)"),
        resume: bool = typer.Option(False, "--resume", help="continue the design in --out"),
        objective: Optional[str] = typer.Option(
            None, "--objective", help="objective (default: the mission file's name)"),
        group: str = typer.Option("swarm", "--group", help="robot group the PFSM controls"),
        runs_per_batch: int = typer.Option(50, "--runs-per-batch", min=1,
                                           help="runs simulated together in one batch"),
        fresh: int = typer.Option(30, "--fresh-seeds", min=1,
                                  help="fresh seeds of the final assessment"),
        timeout: Optional[float] = typer.Option(
            None, "--timeout", min=0, metavar="SECONDS",
            help="wall-clock budget of each run; a batch past it ends the design, which "
                 "--resume continues (default: the file's simulation.timeout, else 3600; "
                 "0: none)"),
        quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
        n_threads: Optional[int] = threads_option(),
    ) -> None:
        """Design a PFSM by iterated F-race; write best.txt and its scores on fresh seeds."""
        from swarmstack.design.evaluate import EvaluationError
        from swarmstack.design.missions import OBJECTIVES
        from swarmstack.design.run import DesignError, LedgerMismatch, design
        from swarmstack.experiments.config import ConfigError

        apply_threads(n_threads)
        path = mission_file(mission)
        name = objective or path.stem
        if name not in OBJECTIVES:
            fail(f"error: no objective {name!r}: give --objective (one of "
                 f"{', '.join(OBJECTIVES)})", code=2)
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        err = Console(stderr=True)
        columns = (TextColumn("design"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("runs"), TimeElapsedColumn(), TimeRemainingColumn())
        try:
            with Progress(*columns, console=err, disable=quiet, transient=True) as bar:
                task = bar.add_task("design", total=None)

                def progress(done, total):
                    bar.update(task, completed=done, total=total)

                best, a = design(path, name, budget, seed, out, workers=workers, ray=ray,
                                 resume=resume, group=group, runs_per_batch=runs_per_batch,
                                 n_fresh=fresh, progress=progress, timeout_s=timeout)
        except EvaluationError as exc:
            fail(f"error: {exc}; the runs done are kept: --resume continues")
        except (ConfigError, DesignError, LedgerMismatch) as exc:
            fail(*str(exc).splitlines())
        s = a.summary()
        console = Console(soft_wrap=True)   # one line per message, whatever the width
        console.print(f"best PFSM: {best}", markup=False)
        console.print(f"on {len(a.seeds)} fresh seeds: design median {s['design_median']:.4g}, "
                      f"random PFSMs {s['random_median']:.4g}"
                      + (f", hand-written {s['hand_median']:.4g}" if "hand_median" in s else "")
                      + f"; design > random: p = {a.p_value:.3g}", markup=False)
        console.print(f"wrote {out / 'best.txt'}, {out / 'scores.json'}, {out / 'scores.png'}",
                      markup=False)
