"""`swarmstack robot`, `compile`, `import` and `export`: a robot type's reference, Numba's cache
warmed, an ARGoS experiment translated, a run exported."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import sys
import time
from pathlib import Path
from typing import Optional

import typer

from swarmstack.cli.common import fail

MCAP_EXTRA = "error: MCAP export needs the mcap extra (pip install 'swarmstack[mcap]'): "


def register_robot(app: typer.Typer) -> None:
    @app.command("robot")
    def robot(
        name: Optional[str] = typer.Argument(
            None, metavar="TYPE",
            help="robot type: a name, or 'module.path:NAME' / 'file.py:NAME' naming a RobotType "
                 "(none: list the types, built-in and installed plug-ins)"),
        write: Optional[Path] = typer.Option(None, "--write", metavar="DIR",
                                             help="write TYPE.md and TYPE.png (a view from "
                                                  "above) into DIR instead of printing"),
    ) -> None:
        """Print a robot type's reference: commands, sensors (reading names, index order and
        angles, units and ranges), LEDs and their colours, radio."""
        from swarmstack.robots import base
        from swarmstack.robots.reference import markdown, write as write_page

        if name is None:
            for n in sorted(base.ROBOT_TYPES):
                print(n)
            for n, why in sorted(base.ROBOT_TYPES.broken.items()):
                print(f"warning: {why}", file=sys.stderr)
            raise typer.Exit(0)
        try:
            rt = base.resolve(name, Path.cwd())
        except base.RobotTypeError as exc:
            fail(f"error: {exc}", code=2)
        if write is None:
            print(markdown(rt), end="")
        else:
            for path in write_page(rt, write):
                print(f"wrote {path}")


def register(app: typer.Typer) -> None:
    @app.command("compile")
    def compile_(
        robot_type: Optional[list[str]] = typer.Argument(
            None, metavar="TYPE", help="robot types to compile for (none: every type)"),
    ) -> None:
        """Compile the kernels of every robot type (or of the TYPEs given) into Numba's cache.

        The first run after an install otherwise compiles what it uses (10–30 s); later runs
        load the cache in milliseconds. The set-up (make) does this once."""
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        import swarmstack.robots  # noqa: F401  (registers the built-in types)
        from swarmstack.sim.warm_cache import compile_kernels, plan
        from swarmstack.robots import base

        unknown = [n for n in robot_type or [] if n not in base.ROBOT_TYPES]
        if unknown:
            fail(f"error: unknown robot type {unknown[0]!r}; one of: "
                 f"{', '.join(sorted(base.ROBOT_TYPES))}", code=2)
        t0 = time.perf_counter()
        steps = plan(robot_type or None)
        with Progress(TextColumn("{task.description}"), BarColumn(),
                      TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                      console=Console(stderr=True)) as progress:
            task = progress.add_task("compiling kernels", total=len(steps))

            def done(c) -> None:
                form = ("serial kernels" if c.threads == 1
                        else f"parallel kernels ({c.threads} threads)")
                progress.console.print(f"{c.robot_type}: {form} ready in {c.seconds:.1f} s")
                progress.advance(task)

            compile_kernels(robot_type or None, on_done=done)
        typer.echo(f"kernels compiled in {time.perf_counter() - t0:.1f} s")

    @app.command("import")
    def import_(
        argos_file: Path = typer.Argument(..., help="ARGoS experiment file (.argos)"),
        out: Optional[Path] = typer.Option(None, "-o", "--out",
                                           help="TOML file to write (default: print it)"),
        force: bool = typer.Option(False, "--force", help="replace --out if it exists"),
    ) -> None:
        """Translate an ARGoS experiment into an experiment file; what has no equivalent is
        listed, by XML path, in the comment at its top.

        Files the .argos file names (Lua and Buzz scripts, the floor image) are taken relative
        to it and written relative to the TOML file. `swarmstack run FILE.argos` does the same
        on the fly. Exit status 1 names the file, line and XML path of the problem."""
        from swarmstack.argos import ArgosError, import_argos

        if out is not None and out.exists() and out.resolve() == argos_file.resolve():
            fail(f"error: {out} is the .argos file being imported; write the TOML elsewhere")
        if out is not None and out.exists() and not force:
            fail(f"error: {out} exists (--force replaces it)")
        out_dir = (out.parent if out is not None else Path(".")).absolute()
        try:
            imported = import_argos(argos_file, out_dir)
        except ArgosError as exc:
            fail(*exc.problems)
        text = imported.toml()
        if out is None:
            sys.stdout.write(text)
            return
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            fail(f"error: cannot write {out} ({exc.strerror or exc})")
        left = len(imported.notes)
        print(f"wrote {out}" + (f"; {left} thing(s) not translated are listed at its top"
                                if left else "; everything was translated"))

    @app.command("export")
    def export(
        results_dir: Path = typer.Argument(..., help="results folder of a run (--out of run)"),
        mcap: Path = typer.Option(..., "--mcap", help="write this MCAP file (ROS 2 messages: "
                                                      "poses, sensor readings, LEDs)"),
        force: bool = typer.Option(False, "--force", help="replace --mcap if it exists"),
    ) -> None:
        """Export a run: trajectories, sensor logs and recorded LEDs as ROS 2 messages in an
        MCAP file that Foxglove and `ros2 bag` open (docs/cflib-and-mcap.md)."""
        try:
            from swarmstack.export.mcap import ExportError, export_mcap
        except ImportError as exc:
            fail(f"{MCAP_EXTRA}{exc}")
        if mcap.exists() and not force:   # as import -o and run --out: no silent overwrite
            fail(f"error: {mcap} exists (--force replaces it)")
        try:
            counts = export_mcap(results_dir, mcap)
        except ExportError as exc:
            fail(f"error: {exc}")
        except ImportError as exc:
            fail(f"{MCAP_EXTRA}{exc}")
        print(f"{mcap}: {sum(counts.values())} messages on {len(counts)} topics")
