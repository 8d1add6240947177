"""`swarmstack real`: an experiment's controller on real robots through ROS 2."""

# no `from __future__ import annotations`: see swarmstack/cli/__init__.py

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from swarmstack.cli.common import fail


def register(app: typer.Typer) -> None:
    @app.command("real")
    def real(
        experiment: Path = typer.Argument(..., help="experiment file (TOML, or ARGoS .argos)"),
        robots: str = typer.Option(..., "--robots", metavar="NAME,…",
                                   help="the robots, by ROS namespace (rvr_1,rvr_2: their "
                                        "topics are /rvr_1/rvr/odom …)"),
        group: Optional[str] = typer.Option(None, "--group",
                                            help="the group whose controller runs (needed "
                                                 "when several could)"),
        ticks: Optional[int] = typer.Option(None, "--ticks", min=1,
                                            help="how long (default: the file's duration)"),
        connect: list[str] = typer.Option([], "--connect", metavar="ENDPOINT",
                                          help="zenoh endpoint to connect to, e.g. "
                                               "tcp/localhost:7447 (rmw_zenoh's router); "
                                               "repeatable"),
        listen: list[str] = typer.Option([], "--listen", metavar="ENDPOINT",
                                         help="zenoh endpoint to listen on; repeatable"),
        multicast: bool = typer.Option(False, "--multicast",
                                       help="also find peers by UDP multicast scouting"),
        domain: int = typer.Option(0, "--domain", min=0, max=232, envvar="ROS_DOMAIN_ID",
                                   help="ROS domain id (default: $ROS_DOMAIN_ID, as ROS 2 "
                                        "nodes take it, else 0)"),
        link_timeout: float = typer.Option(0.5, "--link-timeout", min=0.01,
                                           help="seconds without readings before a robot's "
                                                "wheels are stopped"),
        as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
    ) -> None:
        """Run the experiment's controller (Python, Buzz or a designed PFSM) on real robots.

        Each tick the robots' newest ROS 2 readings replace the simulated ones and their
        commands go to their drivers in the drivers' units. A robot is driven once every topic
        its controller reads has arrived; a robot silent for --link-timeout has its wheels
        stopped and its controller paused until it speaks again. Ctrl-C stops every robot and
        exits 130."""
        from swarmstack.experiments.config import ConfigError, load_experiment

        try:
            from swarmstack.bridge.real import RealRunError, open_real
            import rosbags, xxhash, zenoh  # noqa: F401,E401  (imported lazily where used)
        except ImportError as exc:   # the ros2 extra is missing
            fail(f"error: swarmstack real needs the ros2 extra (pip install "
                 f"'swarmstack[ros2]'): {exc}")
        try:
            cfg = load_experiment(experiment)
        except ConfigError as exc:
            fail(*exc.problems)
        names = [n.strip() for n in robots.split(",") if n.strip()]

        def event(name, state, text):
            print(f"{name}: {state} ({text})", file=sys.stderr, flush=True)

        try:
            run = open_real(cfg, names, base_dir=experiment.parent, source=str(experiment),
                            group=group, domain=domain, listen=listen, connect=connect,
                            multicast=multicast, link_timeout_s=link_timeout, on_event=event)
        except (RealRunError, ConfigError) as exc:
            fail(*(p if str(p).startswith(str(experiment)) else f"error: {p}"
                   for p in getattr(exc, "problems", None) or [str(exc)]))
        total = ticks if ticks is not None else cfg.simulation.total_ticks
        print(f"driving {', '.join(names)} at {cfg.simulation.ticks_per_second:g} ticks/s for "
              f"{total} ticks; Ctrl-C stops every robot", file=sys.stderr, flush=True)
        code = 0
        try:
            run.run(total)
        except KeyboardInterrupt:
            print("interrupted: every robot was sent the stop command", file=sys.stderr)
            code = 130
        except Exception as exc:   # a controller error: the robots were stopped by run()
            print(f"error: {exc}", file=sys.stderr)
            code = 1
        finally:
            summary = run.summary()
            run.close()
        if as_json:
            print(json.dumps(summary, indent=1))
        else:
            for r in summary["robots"]:
                missing = f"; never heard: {', '.join(r['missing'])}" if r["missing"] else ""
                print(f"{r['robot']}: {r['state']}, {r['dropped']} malformed message(s) "
                      f"dropped{missing}")
        raise typer.Exit(code)
