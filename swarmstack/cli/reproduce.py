"""`swarmstack reproduce`: run a published validation and compare paper vs ours."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from swarmstack.experiments import reproduce as validations


def register(app: typer.Typer) -> None:
    @app.command("reproduce")
    def reproduce(
        name: Optional[str] = typer.Argument(None, help="validation to run (see --list)"),
        out: Path = typer.Option(Path("runs/reproduce"), "--out", help="folder for tables and plots"),
        list_: bool = typer.Option(False, "--list", help="list the validations and exit"),
        controller: Optional[str] = typer.Option(
            None, "--controller",
            help="flight controller for validations that take one: pd (default) or pid"),
    ) -> None:
        """Reproduce a paper's validation; exit 0 inside tolerance, 1 outside."""
        console = Console()
        if list_ or name is None:
            for n in validations.names():
                console.print(n)
            raise typer.Exit(0)
        if name not in validations.names():
            console.print(f"[red]error:[/] unknown validation {name!r}; "
                          f"choose one of: {', '.join(validations.names())}")
            raise typer.Exit(2)
        if controller is not None and controller not in ("pd", "pid"):
            console.print(f"[red]error:[/] --controller {controller!r}; choose pd or pid")
            raise typer.Exit(2)
        if controller is None:
            result = validations.run(name, out / name)
        else:
            fn = _validation(name)
            if "controller" not in inspect.signature(fn).parameters:
                console.print(f"[red]error:[/] {name} takes no --controller")
                raise typer.Exit(2)
            (out / name).mkdir(parents=True, exist_ok=True)
            result = fn(out / name, controller=controller)
        table = Table(title=f"{result.name}: {result.title}")
        for col in ("quantity", "paper", "ours", "ok"):
            table.add_column(col)
        for row in result.rows:
            table.add_row(row.quantity, row.paper, row.ours, "yes" if row.ok else "[red]NO[/]")
        console.print(table)
        if result.notes:
            console.print(result.notes)
        for f in result.files:
            console.print(f"wrote {f}")
        console.print("[green]inside tolerance[/]" if result.ok else "[red]outside tolerance[/]")
        raise typer.Exit(0 if result.ok else 1)


def _validation(name: str):
    """The function registered under ``name`` (its module imported)."""
    importlib.import_module(validations._MODULES[name])
    return validations._REGISTRY[name]
