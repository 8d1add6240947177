"""`swarmstack robot`: the reference of a robot type (sensors, indices, LEDs, units)."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import sys
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("robot")
    def robot(
        name: Optional[str] = typer.Argument(
            None, metavar="TYPE",
            help="robot type: a name, or 'module.path:NAME' / 'file.py:NAME' naming a RobotType "
                 "(none: list the types, built-in and installed plug-ins)"),
        write: Optional[Path] = typer.Option(None, "--write", metavar="DIR",
                                             help="write TYPE.md and TYPE.png (a view from "
                                                  "above) into DIR instead of printing"),
    ) -> None:
        """Print a robot type's reference: commands, sensors (reading names, index order and
        angles, units and ranges), LEDs and their colours, radio."""
        from swarmstack.robots import base
        from swarmstack.robots.reference import markdown, write as write_page

        if name is None:
            for n in sorted(base.ROBOT_TYPES):
                print(n)
            for n, why in sorted(base.ROBOT_TYPES.broken.items()):
                print(f"warning: {why}", file=sys.stderr)
            raise typer.Exit(0)
        try:
            rt = base.resolve(name, Path.cwd())
        except base.RobotTypeError as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise typer.Exit(2)
        if write is None:
            print(markdown(rt), end="")
        else:
            for path in write_page(rt, write):
                print(f"wrote {path}")
