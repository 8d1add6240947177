"""`swarmstack buzz run`: the standalone multi-robot harness on the command line.

Standard output carries the scripts' ``log`` lines only, as they are produced, ``[robot ID]
text`` (plain ``text`` with one robot), with the bytes the script logged: it can be piped or
compared. Everything else goes to standard error: afterwards a summary lists each robot's
final globals (those the script defined) and stigmergy contents, then each failure with its
location. Exit status 0; 1 when any robot's VM failed (a script that does not compile fails
every robot); 2 for a usage error (an unreadable file, a bad option). All of it is plain text:
no markup or emoji substitution touches locations (``robot.bzz:100:3``) or script text.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

from swarmstack.buzz.values import Closure, HostClosure, display, str_bytes

from .harness import Harness, SwarmRun


def fmt_value(v: Any, depth: int = 0, limit: int = 60) -> str:
    """A short, Buzz-flavoured rendering of a value for the summary."""
    if v is None:
        s = "nil"
    elif isinstance(v, int):  # bools too
        s = str(int(v))
    elif isinstance(v, float):
        s = f"{v:f}"
    elif isinstance(v, str):
        s = repr(v) if depth else display(v)
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


def _console():
    """The report console: standard error, and no markup, emoji or highlighting applied to
    what it prints (styles only through ``Text``)."""
    from rich.console import Console

    return Console(stderr=True, markup=False, emoji=False, highlight=False)


def print_summary(run: SwarmRun, console) -> None:
    from rich.table import Table as RichTable
    from rich.text import Text

    table = RichTable(title=f"{len(run.robots)} robot(s), {run.steps} step(s)")
    table.add_column("robot", justify="right")
    for column in ("status", "globals", "stigmergy"):
        table.add_column(column)
    for r in run.robots:
        status = Text("failed", style="red") if r.failed else Text("ok")
        g = "\n".join(f"{display(str(k))} = {fmt_value(v)}" for k, v in sorted(r.globals.items())
                      if not isinstance(v, (Closure, HostClosure))) or "-"
        vs = "\n".join(
            f"#{vid}: " + (", ".join(f"{fmt_value(k, 1)}={fmt_value(x, 1)}" for k, x in list(c.items())[:12])
                           + (", …" if len(c) > 12 else "") if c else "{}")
            for vid, c in sorted(r.stigmergy.items())
        ) or "-"
        table.add_row(Text(str(r.id)), status, Text(g), Text(vs))
    console.print(table)
    if run.packets_sent:
        console.print(Text(f"radio: {run.packets_sent} packets on links, {run.packets_dropped} dropped"))


def run_command(file: Path, robots: int, steps: int, topology: str, drop: float, seed: int,
                profile: str, payload_cap: Optional[int], include: Optional[list[Path]] = None,
                distance_unit: str = "cm") -> int:
    """Run ``file`` on ``robots`` robots for ``steps`` steps; return the exit status."""
    import typer
    from rich.text import Text

    from swarmstack.buzz.errors import BuzzSyntaxError
    from swarmstack.buzz.scanner import read_source
    from swarmstack.buzz.vm import load_program

    from .robot import DISTANCE_UNITS

    console = _console()

    def usage(message: str) -> int:
        console.print(Text("error: ", style="red") + Text(message), soft_wrap=True)
        return 2

    try:
        source = read_source(file)
    except OSError as e:
        return usage(f"cannot read {display(str(file))}: {e.strerror or e}")
    if robots < 1 or steps < 0:
        return usage("--robots must be >= 1 and --steps >= 0")
    if profile not in ("buzz", "bittybuzz"):
        return usage(f"unknown profile {profile!r}: choose buzz or bittybuzz")
    if distance_unit not in DISTANCE_UNITS:
        return usage(f"unknown distance unit {distance_unit!r}: choose {', '.join(DISTANCE_UNITS)}")
    single = robots == 1

    def on_log(rid: int, text: str) -> None:
        line = text if single else f"[robot {rid}] {text}"
        if line.isascii():
            typer.echo(line)
        elif getattr(sys.stdout, "buffer", None) is not None:
            typer.echo(str_bytes(line))  # the bytes the script logged
        else:  # a text-only stream
            typer.echo(display(line))

    include_path = [file.parent] + list(include or [])
    try:
        h = Harness(source, robots, filename=str(file), topology=topology, drop=drop,
                    payload_cap=payload_cap, seed=seed, profile=profile,
                    include_path=include_path, on_log=on_log, distance_unit=distance_unit)
    except ValueError as e:
        return usage(display(str(e)))
    try:
        # compile once up front: a script that does not compile is reported as `check`
        # reports it (the robots' VMs then share the compiled program)
        load_program(source, str(file), include_path, profile)
    except BuzzSyntaxError as e:
        console.print(Text(e.pretty()), soft_wrap=True)
        return 1
    run = h.run(steps)
    print_summary(run, console)
    if run.failed:
        groups: dict[tuple, list[int]] = {}
        for r in run.failed:
            groups.setdefault((str(r.failed_at), r.report or str(r.error)), []).append(r.id)
        for (where, err), ids in groups.items():
            who = f"robot {ids[0]}" if len(ids) == 1 else "robots " + ", ".join(map(str, ids))
            console.print(Text(f"{who} failed", style="red") + Text(f" ({display(where)}): {display(err)}"),
                          soft_wrap=True)
        return 1
    return 0
