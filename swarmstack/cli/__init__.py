"""The `swarmstack` command. Thin: every sub-command delegates to a package."""

from __future__ import annotations

import typer

from swarmstack.cli import buzz as buzz_cli
from swarmstack.cli import reproduce as reproduce_cli
from swarmstack.cli import sim as sim_cli
from swarmstack.cli import study as study_cli

app = typer.Typer(
    name="swarmstack",
    help="Simulate swarms of real robots, run Buzz scripts, reproduce published validations.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
sim_cli.register(app)
reproduce_cli.register(app)
study_cli.register(app)
app.add_typer(buzz_cli.app, name="buzz")


def main() -> None:
    app()
