"""`swarmstack buzz run`: the standalone multi-robot harness on the command line.

Log lines stream as they are produced, ``[robot ID] text`` (plain ``text`` with one robot);
afterwards a summary lists each robot's final globals (those the script defined) and stigmergy
contents. Exit status 0, or 1 when any robot's VM failed (each failure is named, with the error
location).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from swarmstack.buzz.values import Closure, HostClosure

from .harness import Harness, SwarmRun


def fmt_value(v: Any, depth: int = 0, limit: int = 60) -> str:
    """A short, Buzz-flavoured rendering of a value for the summary."""
    if v is None:
        s = "nil"
    elif isinstance(v, bool):
        s = str(int(v))
    elif isinstance(v, int):
        s = str(v)
    elif isinstance(v, float):
        s = f"{v:f}"
    elif isinstance(v, str):
        s = repr(v) if depth else v
    elif isinstance(v, (Closure, HostClosure)):
        s = "[closure]"
    elif isinstance(v, dict):
        data = [(k, x) for k, x in v.items() if not isinstance(x, (Closure, HostClosure))]
        nfun = len(v) - len(data)
        if depth >= 2:
            s = f"[table with {len(v)} elems]"
        else:
            items = [f"{fmt_value(k, depth + 1)}: {fmt_value(x, depth + 1)}" for k, x in data[:8]]
            if len(data) > 8:
                items.append("…")
            if nfun:
                items.append(f"+{nfun} function{'s' if nfun > 1 else ''}")
            s = "{" + ", ".join(items) + "}"
    else:
        s = str(v)
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    return s


def print_summary(run: SwarmRun, console) -> None:
    from rich.markup import escape
    from rich.table import Table as RichTable

    table = RichTable(title=f"{len(run.robots)} robot(s), {run.steps} step(s)")
    table.add_column("robot", justify="right")
    table.add_column("status")
    table.add_column("globals")
    table.add_column("stigmergy")
    for r in run.robots:
        status = "[red]failed[/]" if r.failed else "ok"
        g = "\n".join(f"{k} = {fmt_value(v)}" for k, v in sorted(r.globals.items())
                      if not isinstance(v, (Closure, HostClosure))) or "-"
        vs = "\n".join(
            f"#{vid}: " + (", ".join(f"{fmt_value(k, 1)}={fmt_value(x, 1)}" for k, x in list(c.items())[:12])
                           + (", …" if len(c) > 12 else "") if c else "{}")
            for vid, c in sorted(r.stigmergy.items())
        ) or "-"
        table.add_row(str(r.id), status, escape(g), escape(vs))
    console.print(table)
    if run.packets_sent:
        console.print(f"radio: {run.packets_sent} packets on links, {run.packets_dropped} dropped")


def run_command(file: Path, robots: int, steps: int, topology: str, drop: float, seed: int,
                profile: str, payload_cap: Optional[int], include: Optional[list[Path]] = None) -> int:
    """Run ``file`` on ``robots`` robots for ``steps`` steps; return the exit status."""
    import typer
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False)
    try:
        source = file.read_text()
    except OSError as e:
        console.print(f"[red]error:[/] cannot read {escape(str(file))}: {e.strerror}")
        return 2
    if robots < 1 or steps < 0:
        console.print("[red]error:[/] --robots must be >= 1 and --steps >= 0")
        return 2
    single = robots == 1

    def on_log(rid: int, text: str) -> None:
        typer.echo(text if single else f"[robot {rid}] {text}")

    include_path = [file.parent] + list(include or [])
    try:
        h = Harness(source, robots, filename=str(file), topology=topology, drop=drop,
                    payload_cap=payload_cap, seed=seed, profile=profile,
                    include_path=include_path, on_log=on_log)
    except ValueError as e:
        console.print(f"[red]error:[/] {escape(str(e))}")
        return 2
    run = h.run(steps)
    print_summary(run, console)
    if run.failed:
        groups: dict[tuple, list[int]] = {}
        for r in run.failed:
            groups.setdefault((str(r.failed_at), r.report or str(r.error)), []).append(r.id)
        for (where, err), ids in groups.items():
            who = f"robot {ids[0]}" if len(ids) == 1 else "robots " + ", ".join(map(str, ids))
            console.print(f"[red]{who} failed[/] ({escape(where)}): {escape(err)}", soft_wrap=True)
        return 1
    return 0
