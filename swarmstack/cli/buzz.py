"""`swarmstack buzz …`: check, compile, disassemble, size and run Buzz scripts."""

from __future__ import annotations

import typer

app = typer.Typer(help="Buzz scripts: check, compile, disasm, size, run.", no_args_is_help=True)


# `run`: the multi-robot harness (swarm layer)
from pathlib import Path as _Path  # noqa: E402
from typing import Optional as _Optional  # noqa: E402


@app.command("run")
def run(
    file: _Path = typer.Argument(..., help="Buzz script (.bzz)"),
    robots: int = typer.Option(1, "--robots", help="number of robots (ids 0..N-1)"),
    steps: int = typer.Option(10, "--steps", help="control steps after top level and init()"),
    topology: str = typer.Option("full", "--topology", help="line | ring | full | star | random:R"),
    drop: float = typer.Option(0.0, "--drop", help="probability that a packet is lost on a link"),
    seed: int = typer.Option(0, "--seed", help="seed of the radio, the topology and the VMs"),
    profile: str = typer.Option("buzz", "--profile", help="buzz | bittybuzz"),
    payload_cap: _Optional[int] = typer.Option(None, "--payload-cap", help="bytes per robot per step"),
    include: _Optional[list[_Path]] = typer.Option(None, "-I", "--include", help="include folder"),
) -> None:
    """Run a script on N robots in lockstep over an in-memory radio; exit 1 if a VM failed."""
    from swarmstack.buzz.swarm.cli_run import run_command

    raise typer.Exit(run_command(file, robots, steps, topology, drop, seed, profile, payload_cap, include))
