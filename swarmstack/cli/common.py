"""What every command shares: how a command fails, the ``--threads N`` option, and how the
command line presents itself — ``-h`` beside ``--help``, flags shown as flags (no ``<bool>``
after ``--quiet``, which takes no value) and argument names without braces in the usage line
(``swarmstack run [OPTIONS] EXPERIMENT``), applied once to the whole command tree."""

from __future__ import annotations

import inspect
import re
import sys
from typing import NoReturn, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from swarmstack.sim import threads

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}
THREADS_HELP = ("threads for the simulation kernels (0: every usable core; default: "
                "SWARMSTACK_THREADS, else 0); worker processes (--workers, --ray) share them out")


def fail(*lines: str, code: int = 1) -> NoReturn:
    """Print ``lines`` on standard error as they are (never re-wrapped to the terminal's width)
    and end the command with exit status ``code``."""
    for line in lines:
        print(line, file=sys.stderr)
    raise typer.Exit(code)


def threads_option():
    """The ``--threads`` option (None when not given: ``SWARMSTACK_THREADS`` decides)."""
    return typer.Option(None, "--threads", min=0, metavar="N", help=THREADS_HELP)


def apply_threads(n: Optional[int]) -> int:
    """Use ``n`` threads in this process (and share them among its worker processes); a bad
    ``SWARMSTACK_THREADS`` is a usage error (exit 2), not a traceback."""
    try:
        return threads.set_threads(n)
    except ValueError as exc:
        fail(f"error: {exc}", code=2)


def _flags_without_type(params):
    for p in params:
        if p.metavar is not None:
            continue
        if getattr(p, "is_flag", False):
            p.metavar = ""   # the help's type column then stays empty for flags
        elif p.param_type_name == "argument":
            p.metavar = p.name.upper()
    return params


def _reflowed(doc: str | None) -> str | None:
    """A docstring's paragraphs as single lines: the help reflows them to the terminal
    instead of keeping the source's line breaks mid-sentence."""
    if not doc:
        return doc
    paragraphs = re.split(r"\n\s*\n", inspect.cleandoc(doc))
    return "\n\n".join(" ".join(line.strip() for line in p.splitlines()) for p in paragraphs)


class _Plain:
    def get_params(self, ctx):
        return _flags_without_type(super().get_params(ctx))

    def collect_usage_pieces(self, ctx):
        return [p[1:-1] if len(p) > 2 and p[0] == "{" and p[-1] == "}" else p
                for p in super().collect_usage_pieces(ctx)]


class PlainCommand(_Plain, TyperCommand):
    pass


class PlainGroup(_Plain, TyperGroup):
    pass


def apply(app: typer.Typer) -> None:
    """Give every command of ``app`` (and of its sub-apps) the plain presentation."""
    app.info.cls = PlainGroup
    app.info.context_settings = {**(app.info.context_settings or {}), **HELP_OPTIONS}
    for command in app.registered_commands:
        command.cls = PlainCommand
        if command.help is None and command.callback is not None:
            command.help = _reflowed(command.callback.__doc__)
        command.context_settings = {**(command.context_settings or {}), **HELP_OPTIONS}
    for group in app.registered_groups:
        apply(group.typer_instance)
