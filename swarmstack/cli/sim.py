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


def _status(out: Path) -> Optional[str]:
    from swarmstack.experiments.results import read_summary

    summary = read_summary(out)
    return summary.get("status") if summary else None


def _stopped(exc: BaseException, out: Path) -> int:
    """Say why the run did not complete; returns the exit status."""
    from swarmstack.experiments.results import ResultsWriteError
    from swarmstack.experiments.runner import RunInterrupted

    if isinstance(exc, RunInterrupted):
        print(f"interrupted ({exc}): data up to tick {exc.summary['ticks_done']} is in {out}/ "
              f"(summary.json: status {exc.summary['status']})", file=sys.stderr)
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        print("interrupted before the run started", file=sys.stderr)
        return 130
    print(f"error: {exc}", file=sys.stderr)
    if isinstance(exc, ResultsWriteError) and _status(out) == "failed":
        print(f"the run stopped; the parts written before are kept in {out}/ "
              "(summary.json: status failed)", file=sys.stderr)
    elif isinstance(exc, ControllerError):
        print(f"data logged so far is in {out}/ (summary.json: status failed)", file=sys.stderr)
    return 1


def _report(summary: dict, out: Path) -> None:
    """Print how a run that went to its end went; exit 1 if a run of it failed."""
    Console().print(
        f"{summary['runs']} run(s) × {summary['robots']} robots × {summary['ticks_done']} ticks "
        f"in {summary['wall_time_s']:.2f} s (+ {summary['setup_time_s']:.2f} s setup; "
        f"{summary['robot_ticks_per_s']:,.0f} robot-ticks/s); results in {out}/",
        markup=False, emoji=False, soft_wrap=True)
    if summary["failed_robots"]:
        first = summary["robot_failures"][0]
        print(f"warning: {summary['failed_robots']} robot(s) failed and stopped; the first: "
              f"robot {first['robot']} of group {first['group']!r} (run {first['run']}) at "
              f"tick {first['tick']}: {first['report']}\n(all in {out}/logs/ and "
              "summary.json)", file=sys.stderr)
    failed = [r for r in summary["runs_status"] if r["status"] == "failed"]
    if not failed:
        return
    for k, r in enumerate(failed[:20]):  # the first in full, the others in one line each
        e = r.get("error") or {}
        where = (f"error: run {r['run']}: controller of robot {e.get('robot')} of group "
                 f"{e.get('group')!r} raised at tick {e.get('tick')}")
        if k == 0:
            print(f"{where}:\n{e.get('traceback', '')}", file=sys.stderr)
        else:
            print(f"{where}: {e.get('error', '')}", file=sys.stderr)
    rest = "" if len(failed) == summary["runs"] else "; the others ran to the end"
    print(f"{len(failed)} of {summary['runs']} run(s) failed and stopped at their error{rest} "
          "(summary.json: status failed, runs_status)", file=sys.stderr)
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        experiment: Path = typer.Argument(..., help="experiment file (TOML)"),
        out: Path = typer.Option(Path("runs/latest"), "--out",
                                 help="results folder (new or empty, or see --overwrite)"),
        overwrite: bool = typer.Option(False, "--overwrite",
                                       help="replace the run already in --out (only a run's "
                                            "own files are removed)"),
        seed: Optional[int] = typer.Option(None, "--seed", min=0,
                                           help="seed of run 0 (default: file)"),
        runs: int = typer.Option(1, "--runs", min=1, help="independent runs, seeds s…s+K−1"),
        ticks: Optional[int] = typer.Option(None, "--ticks", min=1, help="override duration"),
        quiet: bool = typer.Option(False, "--quiet", help="no progress bar"),
        strict: bool = typer.Option(False, "--strict",
                                    help="stop the whole batch at the first controller error "
                                         "(also one robot's Buzz VM)"),
        verbose: bool = typer.Option(False, "--verbose",
                                     help="also print script log lines on the console"),
        record: Optional[bool] = typer.Option(None, "--record/--no-record",
                                              help="write the viewer's recording to "
                                                   "--out/recording (default: output.record)"),
        record_every: Optional[int] = typer.Option(None, "--record-every", min=1,
                                                   help="record every k-th tick (default: "
                                                        "output.record_every)"),
        view: bool = typer.Option(False, "--view", help="show the run live in the browser "
                                                        "(records it); serves until Ctrl-C"),
        view_port: int = typer.Option(8765, "--view-port", min=0, max=65535,
                                      help="port of --view (taken: a free one is used)"),
    ) -> None:
        """Run an experiment; writes summary.json and Parquet trajectories to --out.

        Exit status: 0 completed, 1 failed (a controller error, a write error, an unusable
        --out), 130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM."""
        from swarmstack.experiments.results import OutputFolderError, ResultsWriteError
        from swarmstack.experiments.runner import StopSignals, run_experiment

        err = Console(stderr=True)
        try:
            cfg = load_experiment(experiment)
        except ConfigError as exc:
            _fail(err, exc.problems)
        total = cfg.simulation.total_ticks if ticks is None else ticks
        columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("ticks"), TimeElapsedColumn(), TimeRemainingColumn())
        # signals are held from here until the command exits: a late Ctrl-C interrupts
        # neither the last writes nor the report of how the run ended
        with StopSignals() as signals:
            with Progress(*columns, console=err, disable=quiet, transient=False) as bar:
                # the first run after installation also compiles the kernels (cached afterwards)
                task = bar.add_task(f"{experiment.name}: setting up", total=total)
                stride = max(1, total // 200)

                def progress(done, total_):
                    if done == 1:
                        bar.update(task, description=experiment.name)
                    if done % stride == 0 or done == total_:
                        bar.update(task, completed=done)

                def echo(line):
                    bar.console.print(line, markup=False, emoji=False, highlight=False,
                                      soft_wrap=True)

                live = []  # --view: the server of the run's recorder

                def on_recorder(recorder):
                    from swarmstack.viewer.server import Source, serve

                    live.append(serve(Source(recorder=recorder), view_port))
                    if live[0].note:
                        echo(live[0].note)
                    echo(f"live view: open {live[0].url}")

                try:
                    summary = run_experiment(
                        cfg, out, seed=seed, runs=runs, ticks=ticks, base_dir=experiment.parent,
                        source=str(experiment), progress=progress, strict=strict,
                        echo=echo if verbose else None, overwrite=overwrite, signals=signals,
                        record=True if view else record, record_every=record_every,
                        on_recorder=on_recorder if view else None)
                except ConfigError as exc:
                    bar.stop()
                    _fail(err, exc.problems)
                except (OutputFolderError, ResultsWriteError, ControllerError,
                        KeyboardInterrupt) as exc:
                    bar.stop()
                    raise typer.Exit(_stopped(exc, out))
            _report(summary, out)
        if view and live:
            from swarmstack.cli.view import hold

            hold(live[0], f"the run is over; the page still shows {out}")

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
        print(f"{experiment}: valid")  # plain: a path is neither wrapped nor read as markup
