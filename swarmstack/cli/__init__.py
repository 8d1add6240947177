"""The `swarmstack` command. Thin: every sub-command delegates to a package."""

# No `from __future__ import annotations` in the command modules: typer reads the annotations
# of every command when the command line is parsed, and string annotations cost it a compile
# and an eval each (some 250, 4 ms of every start).

import copy
import gc
import sys

import typer
import typer.main

from swarmstack import __version__
from swarmstack.cli import buzz as buzz_cli
from swarmstack.cli import common
from swarmstack.cli import design as design_cli
from swarmstack.cli import real as real_cli
from swarmstack.cli import reproduce as reproduce_cli
from swarmstack.cli import sim as sim_cli
from swarmstack.cli import study as study_cli
from swarmstack.cli import tools as tools_cli
from swarmstack.cli import view as view_cli
from swarmstack.cli.process import exit_now

app = typer.Typer(
    name="swarmstack",
    help="Simulate swarms of real robots, run Buzz scripts, reproduce published validations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _print_version(value: bool) -> None:
    if value:
        print(f"swarmstack {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: bool = typer.Option(False, "--version", is_eager=True,
                                       callback=_print_version,
                                       help="print the version and exit")) -> None:
    """Simulate swarms of real robots, run Buzz scripts, reproduce published validations."""


for register in (sim_cli.register, reproduce_cli.register, tools_cli.register_robot,
                 design_cli.register, view_cli.register, study_cli.register, tools_cli.register,
                 real_cli.register):
    register(app)
app.add_typer(buzz_cli.app, name="buzz")


def _only_command_named(name: str):
    """``app`` with only its command ``name`` (a copy), or None when no single command (or a
    group too) has that name."""
    commands = [c for c in app.registered_commands
                if (c.name or typer.main.get_command_name(c.callback.__name__)) == name]
    if len(commands) != 1 or any(g.name == name for g in app.registered_groups):
        return None
    only = copy.copy(app)
    only.registered_commands, only.registered_groups = commands, []
    return only


# commands that build simulations, and so import the simulator and Numba
SIMULATING = frozenset({"run", "sweep", "design", "reproduce", "compile"})


def import_simulator_without_collector() -> bool:
    """Import the simulator (NumPy, Numba, the kernel modules) with Python's cyclic garbage
    collector off, then set what the imports made aside for good (``gc.freeze``: objects that
    live as long as the process are never scanned again) and switch the collector back on.
    The collector would otherwise go over those objects many times during the imports (some
    0.1 s of CPU of a short ``swarmstack run``). Returns False, and does nothing, when the
    collector is already off (the caller's choice is left alone)."""
    if not gc.isenabled():
        return False
    gc.disable()
    try:
        import swarmstack.sim.simulation  # noqa: F401
    finally:
        gc.freeze()
        gc.enable()
    return True


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] in SIMULATING:
        import_simulator_without_collector()
    common.apply(app)   # every command registered by now, whoever added it
    # Typer builds every command's parameters before it looks at which one was asked for (3 ms
    # of each start, for 17 commands). When the first argument names a command, nothing else
    # on the line can name another, and that command's messages never list the others: the
    # command line is read by the same app with that one command.
    asked = _only_command_named(sys.argv[1]) if len(sys.argv) > 1 else None
    try:
        (asked or app)()
    except SystemExit as exc:
        code = exc.code
    else:
        code = 0
    exit_now(code)   # the command has closed what it opened: skip the tear-down (0.1–0.2 s)


common.apply(app)
