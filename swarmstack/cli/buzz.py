"""`swarmstack buzz …`: check, compile, disasm, size and run Buzz scripts.

Everything printed is plain text: no markup or emoji substitution touches a location such as
``robot.bzz:100:3`` or a script's own text, and a byte of a script that is not UTF-8 shows as
``\\xNN`` in messages (``log`` lines keep their bytes as they are).
"""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import struct
from pathlib import Path
from typing import NoReturn, Optional

import typer

app = typer.Typer(help="Buzz scripts: check, compile, disasm, size, run.", no_args_is_help=True)


def _fail(text: str, code: int = 1) -> NoReturn:
    typer.echo(text, err=True)
    raise typer.Exit(code)


def _read(path: Path) -> str:
    """The script as the scanner reads it (see ``scanner.read_source``)."""
    from swarmstack.buzz.scanner import read_source
    from swarmstack.buzz.values import display

    try:
        return read_source(path)
    except OSError as e:
        _fail(f"{display(str(path))}: cannot read: {e.strerror or e}")


def _compile(path: Path, include: list[str], generate: bool = True):
    """Compile FILE; with ``generate``, also through the code generator when the code nests
    ifs or loops deeply enough for the generator's limits to matter (they are located errors
    too), so that what passes here loads in ``run``."""
    from swarmstack.buzz.codegen import MAX_BLOCKS, MAX_LOOPS, Generator
    from swarmstack.buzz.compiler import compile_source
    from swarmstack.buzz.errors import BuzzSyntaxError
    from swarmstack.buzz.parser import front_end
    from swarmstack.buzz.runtime import Profile

    source = _read(path)
    try:
        prog = compile_source(source, str(path), tuple(include))
        blocks, loops = prog.nesting
        if generate and (blocks > MAX_BLOCKS or loops > MAX_LOOPS):
            with front_end():
                Generator(prog, Profile("buzz"), sources={str(path): source}).source()
        return prog
    except BuzzSyntaxError as e:
        _fail(e.pretty())


@app.command("check")
def check(file: Path = typer.Argument(..., help="Buzz script"),
          include: list[str] = typer.Option([], "-I", "--include", help="extra include folder")) -> None:
    """Parse and compile FILE; exit 0 if it is valid, else print FILE:LINE:COL: message."""
    from swarmstack.buzz.values import display

    _compile(file, include)
    typer.echo(f"{display(str(file))}: ok")


@app.command("compile")
def compile_cmd(file: Path = typer.Argument(..., help="Buzz script"),
                out: Optional[Path] = typer.Option(None, "-o", "--out", help="bytecode file (default FILE.bbo)"),
                include: list[str] = typer.Option([], "-I", "--include", help="extra include folder")) -> None:
    """Compile FILE to a bytecode file (header, string table, code, line/col debug info)."""
    from swarmstack.buzz.bytecode import encode
    from swarmstack.buzz.values import display

    prog = _compile(file, include)
    data = encode(prog)
    target = out or file.with_suffix(".bbo")
    try:
        target.write_bytes(data)
    except OSError as e:
        _fail(f"{display(str(target))}: cannot write: {e.strerror or e}")
    typer.echo(f"wrote {display(str(target))} ({len(data)} bytes)")


@app.command("disasm")
def disasm(file: Path = typer.Argument(..., help="bytecode file (.bbo) or Buzz script (.bzz)")) -> None:
    """Print a readable listing of a bytecode file (or of a script, compiled on the fly)."""
    from swarmstack.buzz.bytecode import MAGIC, decode
    from swarmstack.buzz.disasm import disassemble
    from swarmstack.buzz.values import display

    try:
        raw = file.read_bytes() if file.exists() else b""
    except OSError as e:
        _fail(f"{display(str(file))}: cannot read: {e.strerror or e}")
    if raw[:4] == MAGIC:
        try:
            prog = decode(raw)
        except (ValueError, IndexError, struct.error, UnicodeDecodeError) as e:
            _fail(f"{display(str(file))}: bad bytecode file: {e}")
    else:
        prog = _compile(file, [], generate=False)
    typer.echo(disassemble(prog), nl=False)


@app.command("size")
def size(file: Path = typer.Argument(..., help="Buzz script"),
         profile: str = typer.Option("buzz", "--profile", help="buzz or bittybuzz"),
         steps: int = typer.Option(5, "--steps", help="step() calls to run when measuring the heap"),
         include: list[str] = typer.Option([], "-I", "--include", help="extra include folder")) -> None:
    """Report bytecode size, string-table size and peak heap use (measured by running the
    top level, init() and a few step() calls)."""
    from swarmstack.buzz.bytecode import encode
    from swarmstack.buzz.errors import BuzzSyntaxError
    from swarmstack.buzz.heap import BBZHEAP_SIZE
    from swarmstack.buzz.swarm.service import SwarmService, control_step
    from swarmstack.buzz.values import display
    from swarmstack.buzz.vm import BuzzVM

    if profile not in ("buzz", "bittybuzz"):
        _fail(f"unknown profile {profile!r}: choose buzz or bittybuzz", code=2)
    prog = _compile(file, include)
    data = encode(prog)
    try:
        vm = BuzzVM(None, filename=str(file), program=prog, profile=profile, log=lambda s: None,
                    measure_heap=True)
    except BuzzSyntaxError as e:
        _fail(e.pretty())
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
    typer.echo(f"file:            {display(str(file))}")
    typer.echo(f"profile:         {profile}")
    typer.echo(f"bytecode:        {len(data)} bytes in file ({prog.code_size()} bytes of code)")
    typer.echo(f"string table:    {len(prog.strings)} strings, {prog.string_table_size()} bytes")
    typer.echo(f"peak heap:       {peak} bytes (measured over the top level, init() and {steps} step() calls)")
    if profile == "bittybuzz":
        typer.echo(f"heap budget:     {BBZHEAP_SIZE} bytes (BBZHEAP_SIZE)")
    if vm.failed:
        _fail(vm.error.pretty())


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
    distance_unit: str = typer.Option(
        "cm", "--distance-unit",
        help="unit of neighbour distances and goto vectors: m | cm | mm (pose stays in metres)"),
) -> None:
    """Run a script on N robots in lockstep over an in-memory radio.

    Standard output carries the scripts' log lines only; the summary and failure reports go
    to standard error. Exit status: 0, 1 if a robot's VM failed, 2 for a usage error."""
    from swarmstack.buzz.swarm.cli_run import run_command

    raise typer.Exit(run_command(file, robots, steps, topology, drop, seed, profile, payload_cap,
                                 include, distance_unit=distance_unit))
