"""`swarmstack import`: an ARGoS experiment (.argos) as a swarmstack experiment (TOML)."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import sys
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
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
            print(f"error: {out} is the .argos file being imported; write the TOML elsewhere",
                  file=sys.stderr)
            raise typer.Exit(1)
        if out is not None and out.exists() and not force:
            print(f"error: {out} exists (--force replaces it)", file=sys.stderr)
            raise typer.Exit(1)
        out_dir = (out.parent if out is not None else Path(".")).absolute()
        try:
            imported = import_argos(argos_file, out_dir)
        except ArgosError as exc:
            for p in exc.problems:
                print(p, file=sys.stderr)
            raise typer.Exit(1)
        text = imported.toml()
        if out is None:
            sys.stdout.write(text)
            return
        try:
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            print(f"error: cannot write {out} ({exc.strerror or exc})", file=sys.stderr)
            raise typer.Exit(1)
        left = len(imported.notes)
        print(f"wrote {out}" + (f"; {left} thing(s) not translated are listed at its top"
                                if left else "; everything was translated"))
