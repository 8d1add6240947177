"""How the command line presents itself: ``-h`` beside ``--help``, flags shown as flags (no
``<bool>`` after ``--quiet``, which takes no value) and argument names without braces in the
usage line (``swarmstack run [OPTIONS] EXPERIMENT``). Applied once to the whole command tree."""

from __future__ import annotations

import inspect
import re

import typer
from typer.core import TyperCommand, TyperGroup

HELP_OPTIONS = {"help_option_names": ["-h", "--help"]}


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


def _unbraced(pieces: list[str]) -> list[str]:
    return [p[1:-1] if len(p) > 2 and p[0] == "{" and p[-1] == "}" else p for p in pieces]


class PlainCommand(TyperCommand):
    def get_params(self, ctx):
        return _flags_without_type(super().get_params(ctx))

    def collect_usage_pieces(self, ctx):
        return _unbraced(super().collect_usage_pieces(ctx))


class PlainGroup(TyperGroup):
    def get_params(self, ctx):
        return _flags_without_type(super().get_params(ctx))

    def collect_usage_pieces(self, ctx):
        return _unbraced(super().collect_usage_pieces(ctx))


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
