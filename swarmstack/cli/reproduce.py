"""`swarmstack reproduce`: run a published validation and compare paper vs ours."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import importlib
import inspect
import json
import os
from pathlib import Path
from typing import Optional

import typer

from swarmstack import validations
from swarmstack.cli.common import apply_threads, fail, threads_option


def _validation(name: str):
    """The function registered under ``name`` (its module imported)."""
    importlib.import_module(validations._MODULES[name])
    return validations._REGISTRY[name]


def _takes(name: str, parameter: str) -> bool:
    return parameter in inspect.signature(_validation(name)).parameters


def _run_one(name: str, out: Path, controller: Optional[str], scale: Optional[float] = None,
             quick: bool = False):
    kw = {"quick": True} if quick else {}
    if controller is not None and _takes(name, "controller"):
        kw["controller"] = controller
    if scale is not None and _takes(name, "scale"):
        kw["scale"] = scale
    if not kw:
        return validations.run(name, out / name)
    (out / name).mkdir(parents=True, exist_ok=True)
    return _validation(name)(out / name, **kw)


def _as_json(result) -> dict:
    return {"name": result.name, "title": result.title, "ok": bool(result.ok),
            "rows": [{"quantity": r.quantity, "paper": r.paper, "ours": r.ours, "ok": bool(r.ok),
                      "paper_value": r.paper_value, "ours_value": r.ours_value,
                      "tolerance": r.tolerance, "unit": r.unit,
                      "informative": bool(r.informative)}
                     for r in result.rows],
            "files": [str(f) for f in result.files], "notes": result.notes}


def verdict(row) -> str:
    """The report's verdict on one row: within tolerance, off by how much, not reproducible or
    not run (a row whose ``ours`` says why), or info (not judged; whether it agrees with a
    number the paper gives)."""
    if row.ours.startswith(("not reproducible", "not run")):
        return row.ours
    if row.informative:
        return "info" if row.paper_value is None else \
            f"info ({'agrees' if row.ok else 'disagrees'})"
    if row.ok:
        return "within tolerance"
    if row.paper_value is not None and row.ours_value is not None:
        unit = f" {row.unit}" if row.unit else ""
        off = f"off by {abs(row.ours_value - row.paper_value):.3g}{unit}"
        return off + (f" (tolerance {row.tolerance:.3g}{unit})" if row.tolerance is not None
                      else "")
    return "outside tolerance"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _command(name: str, quick: bool, controller: Optional[str], scale: Optional[float]) -> str:
    words = ["swarmstack reproduce", name]
    if controller is not None:
        words.append(f"--controller {controller}")
    if scale is not None:
        words.append(f"--scale {scale:g}")
    if quick:
        words.append("--quick")
    return " ".join(words)


def fidelity_report(results, made_by: str, quick: bool, controller: Optional[str],
                    scale: Optional[float], report: Path) -> str:
    """One Markdown table, a row per compared quantity of every result, then the plots (linked
    relative to ``report``)."""
    form = ("the quick form (the same checks at a smaller budget, seconds each; run a command "
            "without `--quick` for the full size)" if quick else "the full-size validations")
    lines = [
        "# Fidelity report",
        "",
        "Every quantity swarmstack's validations compare with a published result, one row each:",
        "the paper's number (section, table or figure cited), the command that reproduces it,",
        "what swarmstack measures and the verdict. Verdicts: *within tolerance* (the row's",
        "stated, two-sided tolerance); *off by X* (|ours − paper|, with the tolerance missed);",
        "*outside tolerance* (a non-numeric check that does not hold); *not reproducible* (a",
        "simulator cannot speak to it, and why); *info* (numbers shown, not judged: a paper's",
        "own gap, or a measurement with no published counterpart).",
        "",
        f"Generated from {form} by `{made_by}`.",
        "",
        f"{sum(r.ok for r in results)} of {len(results)} validations inside tolerance.",
        "",
        "| paper result | command | ours | verdict |",
        "|---|---|---|---|",
    ]
    for result in results:
        command = "`{}`".format(_command(
            result.name, quick, controller if _takes(result.name, "controller") else None,
            scale if _takes(result.name, "scale") else None))
        for row in result.rows:
            lines.append(f"| {_cell(row.quantity)}: {_cell(row.paper)} | {command} | "
                         f"{_cell(row.ours)} | {_cell(verdict(row))} |")
    lines += ["", "## Plots", "",
              "Written by the commands above (under their `--out` folder, not kept in the",
              "repository); the links work once the command has run.", ""]
    for result in results:
        plots = [f for f in result.files if Path(f).suffix in (".png", ".svg", ".pdf")]
        if plots:
            links = ", ".join(
                f"[{Path(f).name}]({Path(os.path.relpath(f, report.parent)).as_posix()})"
                for f in plots)
            lines.append(f"- {result.name}: {links}")
    return "\n".join(lines) + "\n"


def _print_table(console, result) -> None:
    from rich.table import Table

    table = Table(title=f"{result.name}: {result.title}")
    for col in ("quantity", "paper", "ours", "ok"):
        table.add_column(col)
    for row in result.rows:
        mark = "info" if row.informative else "yes" if row.ok else "[red]NO[/]"
        table.add_row(row.quantity, row.paper, row.ours, mark)
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
        quick: bool = typer.Option(False, "--quick",
                                   help="the same checks at a smaller budget (seconds to a "
                                        "minute each)"),
        report: Optional[Path] = typer.Option(
            None, "--report", help="also write the results as one Markdown table to this file "
                                   "(e.g. docs/fidelity.md)"),
        as_json: bool = typer.Option(False, "--json",
                                     help="print the results as JSON on standard output"),
        n_threads: Optional[int] = threads_option(),
    ) -> None:
        """Reproduce a paper's validation; exit 0 inside tolerance, 1 outside.

        With --all every validation runs (a summary line each, then the tables of those
        outside tolerance); the exit status is 1 if any is outside."""
        from rich.console import Console

        console = Console(soft_wrap=True)
        if list_ or (name is None and not all_):
            names = validations.names()
            print(json.dumps(names) if as_json else "\n".join(names))
            raise typer.Exit(0)
        if name is not None and all_:
            fail("error: give a validation NAME or --all, not both", code=2)
        if name is not None and name not in validations.names():
            fail(f"error: unknown validation {name!r}; choose one of: "
                 f"{', '.join(validations.names())}", code=2)
        if controller is not None and controller not in ("pd", "pid"):
            fail(f"error: --controller {controller!r}; choose pd or pid", code=2)
        if name is not None and controller is not None and not _takes(name, "controller"):
            fail(f"error: {name} takes no --controller", code=2)
        if scale is not None and not 0 < scale <= 1:
            fail(f"error: --scale {scale:g}; give a share of the runs in (0, 1]", code=2)
        if name is not None and scale is not None and not _takes(name, "scale"):
            fail(f"error: {name} takes no --scale", code=2)
        if report is not None and report.is_dir():
            fail(f"error: --report {report}: a folder; give the Markdown file to write", code=2)
        apply_threads(n_threads)
        chosen = validations.names() if all_ else [name]
        results = []
        for n in chosen:
            result = _run_one(n, out, controller, scale, quick)
            results.append(result)
            if all_ and not as_json:
                print(f"{'ok ' if result.ok else 'OUT'} {n}: {result.title}", flush=True)
        ok = all(r.ok for r in results)
        if report is not None:
            made_by = " ".join(
                [_command("--all" if all_ else name, quick, controller, scale)]
                + ([f"--out {out}"] if out != Path("runs/reproduce") else [])
                + [f"--report {report}"])
            try:
                report.parent.mkdir(parents=True, exist_ok=True)
                report.write_text(fidelity_report(results, made_by, quick, controller, scale,
                                                  report), encoding="utf-8")
            except OSError as e:
                fail(f"error: --report {report}: cannot write it ({e.strerror})", code=2)
            if not as_json:
                print(f"wrote {report}")
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
