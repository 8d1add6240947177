"""`swarmstack buzz …`: check, compile, disasm, size and run Buzz scripts."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Optional

import typer

app = typer.Typer(help="Buzz scripts: check, compile, disasm, size, run.", no_args_is_help=True)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        typer.echo(f"{path}: cannot read: {e.strerror}", err=True)
        raise typer.Exit(1)


def _compile(path: Path, include: list[str]):
    from swarmstack.buzz.compiler import compile_source
    from swarmstack.buzz.errors import BuzzSyntaxError

    try:
        return compile_source(_read(path), str(path), tuple(include))
    except BuzzSyntaxError as e:
        typer.echo(e.pretty(), err=True)
        raise typer.Exit(1)


@app.command("check")
def check(file: Path = typer.Argument(..., help="Buzz script"),
          include: list[str] = typer.Option([], "-I", "--include", help="extra include folder")) -> None:
    """Parse and compile FILE; exit 0 if it is valid, else print FILE:LINE:COL: message."""
    _compile(file, include)
    typer.echo(f"{file}: ok")


@app.command("compile")
def compile_cmd(file: Path = typer.Argument(..., help="Buzz script"),
                out: Optional[Path] = typer.Option(None, "-o", "--out", help="bytecode file (default FILE.bbo)"),
                include: list[str] = typer.Option([], "-I", "--include", help="extra include folder")) -> None:
    """Compile FILE to a bytecode file (header, string table, code, line/col debug info)."""
    from swarmstack.buzz.bytecode import encode

    prog = _compile(file, include)
    data = encode(prog)
    target = out or file.with_suffix(".bbo")
    target.write_bytes(data)
    typer.echo(f"wrote {target} ({len(data)} bytes)")


@app.command("disasm")
def disasm(file: Path = typer.Argument(..., help="bytecode file (.bbo) or Buzz script (.bzz)")) -> None:
    """Print a readable listing of a bytecode file (or of a script, compiled on the fly)."""
    from swarmstack.buzz.bytecode import MAGIC, decode
    from swarmstack.buzz.disasm import disassemble

    raw = file.read_bytes() if file.exists() else b""
    if raw[:4] == MAGIC:
        try:
            prog = decode(raw)
        except (ValueError, IndexError, struct.error, UnicodeDecodeError) as e:
            typer.echo(f"{file}: bad bytecode file: {e}", err=True)
            raise typer.Exit(1)
    else:
        prog = _compile(file, [])
    typer.echo(disassemble(prog), nl=False)


@app.command("size")
def size(file: Path = typer.Argument(..., help="Buzz script"),
         profile: str = typer.Option("buzz", "--profile", help="buzz or bittybuzz"),
         steps: int = typer.Option(5, "--steps", help="step() calls to run when measuring the heap"),
         include: list[str] = typer.Option([], "-I", "--include", help="extra include folder")) -> None:
    """Report bytecode size, string-table size and peak heap use (measured by running the
    top level, init() and a few step() calls)."""
    from swarmstack.buzz.bytecode import encode
    from swarmstack.buzz.heap import BBZHEAP_SIZE
    from swarmstack.buzz.swarm.service import SwarmService, control_step
    from swarmstack.buzz.vm import BuzzVM

    if profile not in ("buzz", "bittybuzz"):
        typer.echo(f"unknown profile {profile!r}: choose buzz or bittybuzz", err=True)
        raise typer.Exit(2)
    prog = _compile(file, include)
    data = encode(prog)
    vm = BuzzVM(None, filename=str(file), program=prog, profile=profile, log=lambda s: None,
                measure_heap=True)
    vm.sources[str(file)] = _read(file)
    # a lone robot at the origin with its swarm layer and the harness's robot API (the `pose`
    # sensor, a `goto` that moves nothing), so scripts written for `buzz run` run here too
    swarm_layer = SwarmService(vm, 0, profile)
    swarm_layer.install()
    vm.set_global("pose", vm.to_buzz({"position": {"x": 0.0, "y": 0.0, "z": 0.0},
                                      "orientation": {"yaw": 0.0, "pitch": 0.0, "roll": 0.0}}))
    vm.register("goto", lambda vm_, *args: None)
    vm.run_top_level()
    peak = vm.measure_heap()
    vm.init()
    peak = max(peak, vm.measure_heap())
    for _ in range(steps):
        control_step(swarm_layer, [], None)
        peak = max(peak, vm.measure_heap())
    peak = max(peak, vm.heap_peak)
    typer.echo(f"file:            {file}")
    typer.echo(f"profile:         {profile}")
    typer.echo(f"bytecode:        {len(data)} bytes in file ({prog.code_size()} bytes of code)")
    typer.echo(f"string table:    {len(prog.strings)} strings, {prog.string_table_size()} bytes")
    typer.echo(f"peak heap:       {peak} bytes (measured over the top level, init() and {steps} step() calls)")
    if profile == "bittybuzz":
        typer.echo(f"heap budget:     {BBZHEAP_SIZE} bytes (BBZHEAP_SIZE)")
    if vm.failed:
        typer.echo(vm.error.pretty(), err=True)
        raise typer.Exit(1)


# `run`: the multi-robot harness (swarm layer: swarmstack.buzz.swarm)
@app.command("run")
def run(
    file: Path = typer.Argument(..., help="Buzz script (.bzz)"),
    robots: int = typer.Option(1, "--robots", help="number of robots (ids 0..N-1)"),
    steps: int = typer.Option(10, "--steps", help="control steps after top level and init()"),
    topology: str = typer.Option("full", "--topology", help="line | ring | full | star | random:R"),
    drop: float = typer.Option(0.0, "--drop", help="probability that a packet is lost on a link"),
    seed: int = typer.Option(0, "--seed", help="seed of the radio, the topology and the VMs"),
    profile: str = typer.Option("buzz", "--profile", help="buzz | bittybuzz"),
    payload_cap: Optional[int] = typer.Option(None, "--payload-cap", help="bytes per robot per step"),
    include: Optional[list[Path]] = typer.Option(None, "-I", "--include", help="include folder"),
) -> None:
    """Run a script on N robots in lockstep over an in-memory radio; exit 1 if a VM failed."""
    from swarmstack.buzz.swarm.cli_run import run_command

    raise typer.Exit(run_command(file, robots, steps, topology, drop, seed, profile, payload_cap, include))
