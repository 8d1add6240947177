"""`swarmstack export`: a run folder in another format."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import sys
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("export")
    def export(
        results_dir: Path = typer.Argument(..., help="results folder of a run (--out of run)"),
        mcap: Path = typer.Option(..., "--mcap", help="write this MCAP file (ROS 2 messages: "
                                                      "poses, sensor readings, LEDs)"),
        force: bool = typer.Option(False, "--force", help="replace --mcap if it exists"),
    ) -> None:
        """Export a run: trajectories, sensor logs and recorded LEDs as ROS 2 messages in an
        MCAP file that Foxglove and `ros2 bag` open (docs/cflib-and-mcap.md)."""
        try:
            from swarmstack.export.mcap import ExportError, export_mcap
        except ImportError as exc:
            print(f"error: MCAP export needs the mcap extra (pip install "
                  f"'swarmstack[mcap]'): {exc}", file=sys.stderr)
            raise typer.Exit(1)
        if mcap.exists() and not force:   # as import -o and run --out: no silent overwrite
            print(f"error: {mcap} exists (--force replaces it)", file=sys.stderr)
            raise typer.Exit(1)
        try:
            counts = export_mcap(results_dir, mcap)
        except ExportError as exc:
            print(f"error: {exc}", file=sys.stderr)
            raise typer.Exit(1)
        except ImportError as exc:
            print(f"error: MCAP export needs the mcap extra (pip install "
                  f"'swarmstack[mcap]'): {exc}", file=sys.stderr)
            raise typer.Exit(1)
        print(f"{mcap}: {sum(counts.values())} messages on {len(counts)} topics")
