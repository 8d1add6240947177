"""`swarmstack compile`: compile the simulation kernels now rather than in the first run."""

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
        """Compile the kernels of every robot type (or of the TYPEs given) into the cache.

        The first run after an install otherwise compiles what it uses (10–30 s); later runs
        load the cache in milliseconds. Without TYPEs, the serial kernels are then also built
        ahead of time (with the C compiler), so that small runs need not start Numba. The
        set-up (make) does this once."""
        import swarmstack.robots  # noqa: F401  (registers the built-in types)
        from swarmstack.experiments.compile import built_ahead, compile_kernels
        from swarmstack.robots import base

        unknown = [n for n in robot_type or [] if n not in base.ROBOT_TYPES]
        if unknown:
            typer.echo(f"error: unknown robot type {unknown[0]!r}; one of: "
                       f"{', '.join(sorted(base.ROBOT_TYPES))}", err=True)
            raise typer.Exit(2)
        t0 = time.perf_counter()

        def done(c) -> None:
            form = "serial kernels" if c.threads == 1 else f"parallel kernels ({c.threads} threads)"
            typer.echo(f"{c.robot_type}: {form} ready in {c.seconds:.1f} s")

        # the module built ahead holds every type's kernels: only a full compile replaces it
        compile_kernels(robot_type or None, on_done=done, build_ahead=not robot_type)
        typer.echo(f"kernels compiled in {time.perf_counter() - t0:.1f} s")
        if robot_type:
            return
        built = built_ahead()
        if built.path is None:
            typer.echo(f"serial kernels not built ahead of time ({built.skipped}): runs start "
                       f"Numba to load them from its cache")
        else:
            typer.echo(f"{built.functions} serial kernels built ahead of time "
                       f"({time.perf_counter() - t0:.1f} s in all): small runs start without "
                       f"Numba")
