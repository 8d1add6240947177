"""`swarmstack robot`: the reference of a robot type (sensors, indices, LEDs, units)."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import sys
from pathlib import Path
from typing import Optional

import typer


def register(app: typer.Typer) -> None:
    @app.command("robot")
    def robot(
        name: Optional[str] = typer.Argument(None, metavar="TYPE",
                                             help="robot type (none: list the types)"),
        write: Optional[Path] = typer.Option(None, "--write", metavar="DIR",
                                             help="write TYPE.md and TYPE.png (a view from "
                                                  "above) into DIR instead of printing"),
    ) -> None:
        """Print a robot type's reference: commands, sensors (reading names, index order and
        angles, units and ranges), LEDs and their colours, radio."""
        import swarmstack.robots  # noqa: F401  (registers the built-in types)
        from swarmstack.robots import base
        from swarmstack.robots.reference import markdown, write as write_page

        if name is None:
            for n in sorted(base.ROBOT_TYPES):
                print(n)
            raise typer.Exit(0)
        if name not in base.ROBOT_TYPES:
            print(f"error: unknown robot type {name!r}; one of: "
                  f"{', '.join(sorted(base.ROBOT_TYPES))}", file=sys.stderr)
            raise typer.Exit(2)
        rt = base.ROBOT_TYPES[name]
        if write is None:
            print(markdown(rt), end="")
        else:
            for path in write_page(rt, write):
                print(f"wrote {path}")
