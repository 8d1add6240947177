"""`swarmstack run` and `swarmstack validate`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                           TimeElapsedColumn, TimeRemainingColumn)

from swarmstack.controllers.api import ControllerError
from swarmstack.experiments.config import ConfigError, load_experiment


def _fail(console: Console, problems: list[str]) -> None:
    # plain print: one problem per line, never re-wrapped to the terminal width
    for p in problems:
        print(p, file=sys.stderr)
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        experiment: Path = typer.Argument(..., help="experiment file (TOML)"),
        out: Path = typer.Option(Path("runs/latest"), "--out", help="results folder"),
        seed: Optional[int] = typer.Option(None, "--seed", help="seed of run 0 (default: file)"),
        runs: int = typer.Option(1, "--runs", min=1, help="independent runs, seeds s…s+K−1"),
        ticks: Optional[int] = typer.Option(None, "--ticks", min=1, help="override duration"),
        quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
        strict: bool = typer.Option(False, "--strict",
                                    help="stop the run when one robot's Buzz VM fails"),
        verbose: bool = typer.Option(False, "--verbose",
                                     help="also print script log lines on the console"),
    ) -> None:
        """Run an experiment; writes summary.json and Parquet trajectories to --out."""
        from swarmstack.experiments.runner import run_experiment

        err = Console(stderr=True)
        try:
            cfg = load_experiment(experiment)
        except ConfigError as exc:
            _fail(err, exc.problems)
        total = cfg.simulation.total_ticks if ticks is None else ticks
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("ticks"), TimeElapsedColumn(), TimeRemainingColumn())
        with Progress(*columns, console=err, disable=quiet, transient=False) as bar:
            # the first run after installation also compiles the kernels (cached afterwards)
            task = bar.add_task(f"{experiment.name}: setting up", total=total)
            stride = max(1, total // 200)

            def progress(done, total_):
                if done == 1:
                    bar.update(task, description=experiment.name)
                if done % stride == 0 or done == total_:
                    bar.update(task, completed=done)

            try:
                summary = run_experiment(cfg, out, seed=seed, runs=runs, ticks=ticks,
                                         base_dir=experiment.parent, source=str(experiment),
                                         progress=progress, strict=strict,
                                         echo=(lambda line: bar.console.print(
                                             line, markup=False, emoji=False,
                                             highlight=False, soft_wrap=True)) if verbose else None)
            except ConfigError as exc:
                bar.stop()
                _fail(err, exc.problems)
            except ControllerError as exc:
                bar.stop()
                print(f"error: {exc}", file=sys.stderr)
                err.print(f"data logged so far is in {out}/ (summary.json: status failed)")
                raise typer.Exit(1)
            except KeyboardInterrupt:
                bar.stop()
                err.print(f"interrupted: data logged so far is in {out}/ "
                          "(summary.json: status interrupted)")
                raise typer.Exit(130)
        console = Console()
        console.print(
            f"{summary['runs']} run(s) × {summary['robots']} robots × {summary['ticks']} ticks "
            f"in {summary['wall_time_s']:.2f} s "
            f"({summary['robot_ticks_per_s']:,.0f} robot-ticks/s); results in {out}/",
            markup=False, emoji=False)
        if summary["failed_robots"]:
            first = summary["robot_failures"][0]
            print(f"warning: {summary['failed_robots']} robot(s) failed and stopped; the first: "
                  f"robot {first['robot']} of group {first['group']!r} (run {first['run']}) at "
                  f"tick {first['tick']}: {first['report']}\n(all in {out}/logs/ and "
                  "summary.json)", file=sys.stderr)

    @app.command("validate")
    def validate(experiment: Path = typer.Argument(..., help="experiment file (TOML)")) -> None:
        """Check an experiment file (and build its world); exit 1 listing every problem."""
        from swarmstack.experiments.simulation import Simulation

        err = Console(stderr=True)
        try:
            cfg = load_experiment(experiment)
            Simulation(cfg, runs=1, base_dir=experiment.parent, source=str(experiment))
        except ConfigError as exc:
            _fail(err, exc.problems)
        Console().print(f"{experiment}: valid")
