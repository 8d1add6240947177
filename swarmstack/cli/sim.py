"""`swarmstack run` and `swarmstack validate`."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from swarmstack.cli.common import apply_threads, fail, threads_option
from swarmstack.cli.progress import run_progress
from swarmstack.controllers.api import ControllerError


def _located(experiment: Path, problems: list[str]) -> list[str]:
    """An .argos file's problems name the XML element they come from."""
    from swarmstack.argos import locate_problems

    return locate_problems(experiment, problems)


def _untranslated(experiment: Path) -> list[str]:
    """What an .argos file asks for that is not simulated, said before it runs."""
    if experiment.suffix != ".argos":  # a TOML file: no need to load the translator
        return []
    from swarmstack.argos import untranslated as notes

    return notes(experiment)


def _stopped(exc: BaseException, out: Path) -> int:
    """Say why the run did not complete, in one line (a controller error: two); returns the
    exit status."""
    from swarmstack.experiments.results_writer import read_summary
    from swarmstack.experiments.runner import RunInterrupted

    if isinstance(exc, RunInterrupted):
        print(f"interrupted ({exc}): data up to tick {exc.summary['ticks_done']} is in {out}/ "
              f"(summary.json: status {exc.summary['status']})", file=sys.stderr)
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        print("interrupted before the run started", file=sys.stderr)
        return 130
    if isinstance(exc, MemoryError):
        kept = (f": the data written before is in {out}/ (summary.json: status failed)"
                if (read_summary(out) or {}).get("status") == "failed" else "")
        print(f"error: out of memory{kept}", file=sys.stderr)
        return 1
    print(f"error: {exc}", file=sys.stderr)   # a write error: "cannot write PATH: CAUSE"
    if isinstance(exc, ControllerError):
        print(f"data logged so far is in {out}/ (summary.json: status failed)", file=sys.stderr)
    return 1


def _report(summary: dict, out: Path, as_json: bool = False) -> None:
    """Print how a run that went to its end went; exit 1 if a run of it failed."""
    line = (f"{summary['runs']} run(s) × {summary['robots']} robots × {summary['ticks_done']} "
            f"ticks in {summary['wall_time_s']:.2f} s "
            f"({summary['robot_ticks_per_s']:,.0f} robot-ticks/s; "
            f"{summary.get('robot_ticks_per_cpu_s', 0.0):,.0f} per CPU-second) after "
            f"{summary['setup_time_s']:.2f} s of set-up (kernel compilation included); "
            f"results in {out}/")
    if as_json:
        from swarmstack.experiments.results_writer import read_summary

        print(line, file=sys.stderr)
        print(json.dumps(read_summary(out), indent=1))   # what the run wrote, word for word
    else:
        print(line)
    scripted = {g.get("name") for g in (summary.get("config") or {}).get("robots", ())
                if (g.get("controller") or {}).get("buzz") or (g.get("controller") or {}).get("lua")}
    for group, counters in (summary.get("drive_counters") or {}).items():
        clamped = sum(counters.get("wheels_clamped", ()))
        if clamped:  # said once per run: the usual cause is a controller written in cm/s
            # Buzz and Lua scripts already write cm/s: the m/s hint would mislead them
            unit = ("" if group in scripted else
                    " (wheel speeds are in m/s; ARGoS controllers write cm/s)")
            print(f"warning: group {group!r}: wheel speeds above the robot's maximum were "
                  f"clamped in {clamped} robot-ticks{unit} — drive_counters in summary.json",
                  file=sys.stderr)
    if summary["failed_robots"]:
        first = summary["robot_failures"][0]
        print(f"warning: {summary['failed_robots']} robot(s) failed and stopped; the first: "
              f"robot {first['robot']} of group {first['group']!r} (run {first['run']}) at "
              f"tick {first['tick']}: {first['report']}\n(all in {out}/logs/ and "
              "summary.json)", file=sys.stderr)
    failed = [r for r in summary["runs_status"] if r["status"] == "failed"]
    if not failed:
        return
    if all((r.get("error") or {}).get("kind") == "timeout" for r in failed):
        who = f"run {failed[0]['run']}" if len(failed) == 1 else \
            f"{len(failed)} of {summary['runs']} runs"
        fail(f"error: {who} stopped: {failed[0]['error']['error']} (simulation.timeout); "
             f"data up to the stop is in {out}/ (summary.json: status failed)")
    for k, r in enumerate(failed[:20]):  # the first in full, the others in one line each
        e = r.get("error") or {}
        where = (f"error: run {r['run']}: controller of robot {e.get('robot')} of group "
                 f"{e.get('group')!r} raised at tick {e.get('tick')}")
        if k == 0:
            print(f"{where}:\n{e.get('traceback', '')}", file=sys.stderr)
        else:
            print(f"{where}: {e.get('error', '')}", file=sys.stderr)
    rest = "" if len(failed) == summary["runs"] else "; the others ran to the end"
    fail(f"{len(failed)} of {summary['runs']} run(s) failed and stopped at their error{rest} "
         "(summary.json: status failed, runs_status)")


def _server(serve: Optional[str], runs: int):
    """``on_simulation`` for ``--serve``: a function starting the server on the simulation."""
    if serve is None:
        return None
    if serve != "ros2":
        fail(f"error: --serve: one of ros2, cflib, not {serve!r}", code=2)
    if runs != 1:
        fail("error: --serve ros2 serves one run; drop --runs", code=2)
    try:
        from swarmstack.bridge.serve import serve_ros2
        import rosbags, xxhash, zenoh  # noqa: F401,E401  (imported lazily where used)
    except ImportError as exc:
        fail(f"error: --serve ros2 needs the ros2 extra (pip install 'swarmstack[ros2]'): {exc}")

    def start(sim):
        import os

        from swarmstack.experiments.config import ConfigError

        # the domain ROS 2 nodes started from this shell use
        domain = os.environ.get("ROS_DOMAIN_ID", "").strip() or "0"
        if not domain.isdigit() or int(domain) > 232:
            raise ConfigError([f"ROS_DOMAIN_ID={domain!r}: expected a domain id 0 … 232"])
        server = serve_ros2(sim, domain=int(domain))
        # namespaces follow the run-wide robot ids (the second group's first robot is not _0)
        by_group: dict = {}
        for g, _, name, node, _, _ in server.robots:
            by_group.setdefault(g.name, (node.name, []))[1].append("/" + name)
        for group, (node, names) in by_group.items():
            shown = ", ".join(names) if len(names) <= 4 else f"{names[0]} … {names[-1]}"
            print(f"ros2: group {group!r}: {shown} ({node} each)", flush=True)
        return server
    return start


def register(app: typer.Typer) -> None:
    @app.command("run")
    def run(
        experiment: Path = typer.Argument(..., help="experiment file (TOML, or ARGoS .argos)"),
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
        as_json: bool = typer.Option(False, "--json",
                                     help="print summary.json on standard output at the end"),
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
        n_threads: Optional[int] = threads_option(),
        serve: Optional[str] = typer.Option(None, "--serve", metavar="ros2|cflib",
                                            help="serve the robots to outside programs while "
                                                 "the run goes: ros2 (sensor and command "
                                                 "topics over rmw_zenoh, docs/real-robots.md) "
                                                 "or cflib (Crazyflies over UDP, "
                                                 "docs/cflib-and-mcap.md)"),
        serve_port: int = typer.Option(19850, "--serve-port", min=0, max=65535,
                                       help="--serve cflib: first drone's UDP port (one per "
                                            "drone; 0: free ports)"),
        serve_speed: float = typer.Option(1.0, "--serve-speed", min=0.0,
                                          help="--serve cflib: simulated seconds per second "
                                               "(0: as fast as it can)"),
    ) -> None:
        """Run an experiment; writes summary.json and Parquet trajectories to --out.

        Exit status: 0 completed, 1 failed (a controller error, a write error, an unusable
        --out), 130 interrupted by SIGINT (Ctrl-C), 143 by SIGTERM."""
        from swarmstack.experiments.config import ConfigError, load_experiment
        from swarmstack.experiments.results_writer import OutputFolderError, ResultsWriteError
        from swarmstack.experiments.runner import StopSignals, run_experiment

        if serve != "cflib" and (serve_port != 19850 or serve_speed != 1.0):
            # a real-time ros2 run, or no server at all, would ignore them silently
            fail("error: --serve-port and --serve-speed apply to --serve cflib only", code=2)
        apply_threads(n_threads)
        try:
            cfg = load_experiment(experiment)
        except ConfigError as exc:
            fail(*exc.problems)
        from swarmstack.experiments.checks import warnings_for

        for w in _untranslated(experiment) + warnings_for(cfg, str(experiment)):
            print(f"warning: {w}", file=sys.stderr)
        total = cfg.simulation.total_ticks if ticks is None else ticks
        robots = runs * sum(g.n for g in cfg.robots)
        server = None       # --serve cflib: paces the run tick by tick
        on_simulation = None   # --serve ros2: wraps the built simulation
        if serve == "cflib":
            from swarmstack.crtp.serve import ServeError, open_server

            try:
                server = open_server(serve, cfg, runs, serve_port, serve_speed)
            except ServeError as exc:
                fail(f"{experiment}: --serve {serve}: {exc}")
        else:
            on_simulation = _server(serve, runs)
        # signals are held from here until the command exits: a late Ctrl-C interrupts
        # neither the last writes nor the report of how the run ended
        with StopSignals() as signals:
            with run_progress(experiment.name, total, robots, quiet) as (progress, echo, stop_bar):
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
                        on_recorder=on_recorder if view else None,
                        on_tick=server.hook(signals, echo) if server is not None else None,
                        on_simulation=on_simulation)
                except ConfigError as exc:
                    stop_bar()
                    fail(*_located(experiment, exc.problems))
                except (OutputFolderError, ResultsWriteError, ControllerError, MemoryError,
                        KeyboardInterrupt) as exc:
                    stop_bar()
                    raise typer.Exit(_stopped(exc, out))
                finally:
                    if server is not None:
                        server.close()
                        print(server.report(), file=sys.stderr)
            _report(summary, out, as_json)
        if view and live:
            from swarmstack.cli.view import hold

            hold(live[0], f"the run is over; the page still shows {out}", sys.stderr)

    @app.command("validate")
    def validate(
        experiment: Path = typer.Argument(..., help="experiment file (TOML, or ARGoS .argos)"),
        as_json: bool = typer.Option(False, "--json",
                                     help="print {file, valid, problems, warnings} as JSON"),
    ) -> None:
        """Check an experiment file (and build its world); exit 1 listing every problem.

        Warnings (an object outside the arena, a logged sensor that no group has on) do not
        make a file invalid; they are printed on standard error."""
        from swarmstack.experiments.checks import warnings_for
        from swarmstack.experiments.config import ConfigError, load_experiment
        from swarmstack.sim.simulation import Simulation

        problems, warnings = [], []
        try:
            cfg = load_experiment(experiment)
            warnings = _untranslated(experiment) + warnings_for(cfg, str(experiment))
            Simulation(cfg, runs=1, base_dir=experiment.parent, source=str(experiment))
        except ConfigError as exc:
            problems = _located(experiment, exc.problems)
        if as_json:
            print(json.dumps({"file": str(experiment), "valid": not problems,
                              "problems": problems, "warnings": warnings}, indent=1))
            raise typer.Exit(1 if problems else 0)
        for w in warnings:
            print(f"warning: {w}", file=sys.stderr)
        if problems:
            fail(*problems)
        print(f"{experiment}: valid")  # plain: a path is neither wrapped nor read as markup
