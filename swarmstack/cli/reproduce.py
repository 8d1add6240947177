"""`swarmstack reproduce`: run a published validation and compare paper vs ours."""

from __future__ import annotations

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
        result = validations.run(name, out / name)
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
