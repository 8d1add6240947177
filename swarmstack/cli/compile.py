"""`swarmstack compile`: warm Numba's cache now rather than in the first run."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import time
from typing import Optional

import typer


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
            typer.echo(f"error: unknown robot type {unknown[0]!r}; one of: "
                       f"{', '.join(sorted(base.ROBOT_TYPES))}", err=True)
            raise typer.Exit(2)
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
