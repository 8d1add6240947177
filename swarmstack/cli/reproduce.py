"""`swarmstack reproduce`: run a published validation and compare paper vs ours."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import importlib
import inspect
import json
import sys
from pathlib import Path
from typing import Optional

import typer

from swarmstack.cli import threads_option
from swarmstack.experiments import reproduce as validations


def _usage_error(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    raise typer.Exit(2)


def _validation(name: str):
    """The function registered under ``name`` (its module imported)."""
    importlib.import_module(validations._MODULES[name])
    return validations._REGISTRY[name]


def _takes_controller(name: str) -> bool:
    return "controller" in inspect.signature(_validation(name)).parameters


def _takes_scale(name: str) -> bool:
    return "scale" in inspect.signature(_validation(name)).parameters


def _run_one(name: str, out: Path, controller: Optional[str], scale: Optional[float] = None):
    kw = {}
    if controller is not None and _takes_controller(name):
        kw["controller"] = controller
    if scale is not None and _takes_scale(name):
        kw["scale"] = scale
    if not kw:
        return validations.run(name, out / name)
    (out / name).mkdir(parents=True, exist_ok=True)
    return _validation(name)(out / name, **kw)


def _as_json(result) -> dict:
    return {"name": result.name, "title": result.title, "ok": bool(result.ok),
            "rows": [{"quantity": r.quantity, "paper": r.paper, "ours": r.ours, "ok": bool(r.ok)}
                     for r in result.rows],
            "files": [str(f) for f in result.files], "notes": result.notes}


def _print_table(console, result) -> None:
    from rich.table import Table

    table = Table(title=f"{result.name}: {result.title}")
    for col in ("quantity", "paper", "ours", "ok"):
        table.add_column(col)
    for row in result.rows:
        table.add_row(row.quantity, row.paper, row.ours, "yes" if row.ok else "[red]NO[/]")
    console.print(table)
    if result.notes:
        console.print(result.notes, markup=False)
    for f in result.files:
        console.print(f"wrote {f}", markup=False, soft_wrap=True)
    console.print("[green]inside tolerance[/]" if result.ok else "[red]outside tolerance[/]")


def register(app: typer.Typer) -> None:
    @app.command("reproduce")
    def reproduce(
        name: Optional[str] = typer.Argument(None, metavar="NAME",
                                             help="validation to run (see --list)"),
        out: Path = typer.Option(Path("runs/reproduce"), "--out",
                                 help="folder for tables and plots (one sub-folder each)"),
        list_: bool = typer.Option(False, "--list", help="list the validations and exit"),
        all_: bool = typer.Option(False, "--all", help="run every validation, one after another"),
        controller: Optional[str] = typer.Option(
            None, "--controller",
            help="flight controller for validations that take one: pd (default) or pid"),
        scale: Optional[float] = typer.Option(
            None, "--scale",
            help="share of a study's runs for validations that take one (sar; default 1)"),
        as_json: bool = typer.Option(False, "--json",
                                     help="print the results as JSON on standard output"),
        n_threads: Optional[int] = threads_option.option(),
    ) -> None:
        """Reproduce a paper's validation; exit 0 inside tolerance, 1 outside.

        With --all every validation runs (a summary line each, then the tables of those
        outside tolerance); the exit status is 1 if any is outside."""
        from rich.console import Console

        console = Console(soft_wrap=True)
        if list_ or (name is None and not all_):
            if as_json:
                print(json.dumps(validations.names()))
            else:
                for n in validations.names():
                    print(n)
            raise typer.Exit(0)
        if name is not None and all_:
            _usage_error("give a validation NAME or --all, not both")
        if name is not None and name not in validations.names():
            _usage_error(f"unknown validation {name!r}; choose one of: "
                         f"{', '.join(validations.names())}")
        if controller is not None and controller not in ("pd", "pid"):
            _usage_error(f"--controller {controller!r}; choose pd or pid")
        if name is not None and controller is not None and not _takes_controller(name):
            _usage_error(f"{name} takes no --controller")
        if scale is not None and not 0 < scale <= 1:
            _usage_error(f"--scale {scale:g}; give a share of the runs in (0, 1]")
        if name is not None and scale is not None and not _takes_scale(name):
            _usage_error(f"{name} takes no --scale")
        threads_option.apply(n_threads)
        chosen = validations.names() if all_ else [name]
        results = []
        for n in chosen:
            result = _run_one(n, out, controller, scale)
            results.append(result)
            if all_ and not as_json:
                mark = "ok " if result.ok else "OUT"
                print(f"{mark} {n}: {result.title}", flush=True)
        ok = all(r.ok for r in results)
        if as_json:
            doc = [_as_json(r) for r in results]
            print(json.dumps(doc if all_ else doc[0], indent=1))
        else:
            for r in results:
                if not all_ or not r.ok:
                    _print_table(console, r)
            if all_:
                print(f"{sum(r.ok for r in results)} of {len(results)} validations inside "
                      f"tolerance; tables and plots in {out}/")
        raise typer.Exit(0 if ok else 1)
