"""`swarmstack sweep` and `swarmstack results`."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import csv
import json
import sys
from pathlib import Path
from typing import List, Optional

import typer

from swarmstack.cli.common import apply_threads, fail, threads_option


def register(app: typer.Typer) -> None:
    @app.command("sweep")
    def sweep(
        experiment: Optional[Path] = typer.Argument(
            None, help="experiment file (TOML, or ARGoS .argos); optional with --resume"),
        param: List[str] = typer.Option(
            [], "--param", help="KEY.PATH=VALUES: a range start:stop:count, a list a,b,c or "
                                "one value (repeatable; replaces the file's sweep-table entry)"),
        seeds: Optional[int] = typer.Option(
            None, "--seeds", help="runs per point (seeds s, s+1, … from the file's seed; "
                                  "default: the sweep table's seeds, else 1)"),
        out: Path = typer.Option(..., "--out", help="study folder (new, or this study's to "
                                                    "continue it)"),
        workers: Optional[int] = typer.Option(None, "--workers", min=1,
                                              help="local worker processes (default: cores)"),
        ray: Optional[str] = typer.Option(None, "--ray", help="run on a Ray cluster: auto, "
                                          "HOST:PORT, or local"),
        resume: bool = typer.Option(False, "--resume", help="continue the study in --out "
                                    "(the experiment and --param may be left out)"),
        ticks: Optional[int] = typer.Option(None, "--ticks", min=1,
                                            help="ticks per run (default: the file's duration)"),
        batch_runs: Optional[int] = typer.Option(None, "--batch-runs", min=1,
                                                 help="runs per batched simulation"),
        strict: bool = typer.Option(False, "--strict", help="stop at the first failed run"),
        timeout: Optional[float] = typer.Option(
            None, "--timeout", min=0, metavar="SECONDS",
            help="wall-clock budget of each run; one past it is recorded failed: timeout "
                 "(default: the file's simulation.timeout, else 3600; 0: none)"),
        quiet: bool = typer.Option(False, "--quiet", help="no progress on stderr"),
        n_threads: Optional[int] = threads_option(),
    ) -> None:
        """Run an experiment over swept key paths × seeds into a resumable study folder.

        Exit status: 0 every run done, 1 a run failed or bad input, 130 interrupted."""
        from swarmstack.experiments.config import ConfigError
        from swarmstack.studies.executors import ExecutorError
        from swarmstack.studies.ledger import StudyMismatch
        from swarmstack.studies.plan import make_study, read_experiment
        from swarmstack.studies.runner import StudyError, load_spec, run_study

        if workers is not None and ray is not None:
            fail("--workers and --ray: choose one")
        apply_threads(n_threads)
        try:
            if experiment is None:
                if not resume:
                    fail("give the experiment file (or --resume --out DIR to continue a study)")
                if param or seeds is not None or ticks is not None:
                    fail("--resume without the experiment file continues the study as "
                         "recorded: leave out --param, --seeds and --ticks")
                spec = load_spec(out)
            else:
                data = read_experiment(experiment)
                spec = make_study(data, str(experiment), experiment.parent, param, seeds,
                                  ticks)
                if resume:
                    load_spec(out)  # there must be a study to resume
            outcome = run_study(spec, out, workers=workers, ray=ray, strict=strict,
                                batch_runs=batch_runs, progress=not quiet, timeout_s=timeout)
        except ConfigError as exc:
            fail(*exc.problems)
        except (StudyError, StudyMismatch, ExecutorError) as exc:
            fail(f"error: {exc}")
        except OSError as exc:   # the study folder cannot be made or written
            fail(f"error: {exc.filename or out}: {exc.strerror or exc}")
        except KeyboardInterrupt:
            fail(f"interrupted: finished runs are recorded in {out}/; run the same command "
                 "(or --resume) to continue", code=130)
        print(f"{outcome.done} of {outcome.total} runs done, {outcome.failed} failed "
              f"({outcome.ran} run now); catalogue: swarmstack results {out} \"select * from "
              "runs\"")
        for f in outcome.failures[:10]:
            err = f.get("error") or {}
            print(f"failed: {f['run_id']}: {err.get('message', err)}", file=sys.stderr)
        if outcome.stopped:
            print("stopped at the first failure (--strict); the remaining runs are planned: "
                  "run the command again without --strict to continue", file=sys.stderr)
        raise typer.Exit(0 if outcome.ok else 1)

    @app.command("results")
    def results(
        folder: Path = typer.Argument(..., help="study folder"),
        sql: str = typer.Argument("select * from runs", help="SQL over the views runs, "
                                  "trajectories and sensors"),
        as_csv: bool = typer.Option(False, "--csv", help="CSV on stdout"),
        as_json: bool = typer.Option(False, "--json", help="JSON lines on stdout"),
    ) -> None:
        """Query a study's catalogue with DuckDB SQL."""
        from swarmstack.results import CatalogueError, query

        if as_csv and as_json:
            fail("--csv and --json: choose one")
        try:
            cols, rows = query(folder, sql)
        except CatalogueError as exc:
            fail(f"error: {exc}")
        if as_json:
            for row in rows:
                print(json.dumps(dict(zip(cols, row)), default=str))
        elif as_csv:
            w = csv.writer(sys.stdout)
            w.writerow(cols)
            w.writerows(rows)
        else:
            from rich.console import Console
            from rich.table import Table

            table = Table(*cols)
            for row in rows:
                table.add_row(*["" if v is None else str(v) for v in row])
            Console().print(table)
