"""``swarmstack real``: an experiment's controller driving real robots through ROS 2.

The experiment is built as a one-run simulation of the bridged group only, with one robot per
name given; the simulated world is never stepped. Each tick (at the experiment's
``ticks_per_second``, in real time): the robots' newest readings replace the simulated ones,
the controllers of live robots step exactly as in simulation (Python per robot or batched,
Buzz, a designed PFSM), and the commands go out to the drivers in the units they take. A group
with a radio (Buzz always has one) talks through the ``/swarm/radio`` topic
(:mod:`swarmstack.bridge.radio`).
"""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional

import numpy as np

from swarmstack.bridge.links import TOPICS, RobotLinks, topics_for
from swarmstack.bridge.node import Node, SessionError
from swarmstack.bridge.radio import TopicRadio


class RealRunError(ValueError):
    """A user error: the experiment or the robot list cannot be run on robots."""


def real_config(cfg, n: int, group: Optional[str] = None, source: str = "<experiment>"):
    """``cfg`` with only the group to bridge, ``n`` robots, placement left to the builder."""
    from swarmstack.experiments.config import PlacementCfg

    bridged = [g for g in cfg.robots if g.type in TOPICS]
    if group is not None:
        pick = [g for g in cfg.robots if g.name == group]
        if not pick:
            raise RealRunError(f"{source}: no group named {group!r} (groups: "
                               f"{', '.join(g.name for g in cfg.robots)})")
        if pick[0].type not in TOPICS:
            raise RealRunError(f"{source}: group {group!r} is of type {pick[0].type!r}, "
                               "which has no ROS 2 bridge")
    elif not bridged:
        raise RealRunError(f"{source}: no group of a robot type with a ROS 2 bridge "
                           f"({', '.join(sorted(TOPICS))})")
    else:
        # a group without a controller has nothing to run on robots: not a candidate
        pick = [g for g in bridged if g.controller is not None] or bridged
        if len(pick) > 1 and pick is bridged:
            raise RealRunError(f"{source}: no controller to run: groups "
                               f"{', '.join(g.name for g in pick)} have none")
        if len(pick) > 1:
            raise RealRunError(f"{source}: several groups could run on robots "
                               f"({', '.join(g.name for g in pick)}): say which with --group")
    g = pick[0]
    if g.controller is None:
        raise RealRunError(f"{source}: group {g.name!r} has no controller to run")
    g = g.model_copy(update={"count": n, "placement": PlacementCfg()})
    return cfg.model_copy(update={"robots": [g]})


@dataclass
class RealRun:
    """One experiment on real robots; :meth:`tick` steps it once, :meth:`run` paces it."""

    sim: object
    links: RobotLinks
    node: Node
    events: list = field(default_factory=list)
    radio: object = None          # TopicRadio when the group uses the radio
    ticks: int = 0

    @property
    def dt(self) -> float:
        return self.sim.cfg.simulation.dt

    def tick(self) -> None:
        live = self.links.refresh()
        if self.radio is not None:
            self.radio.deliver(live)      # what was sent last tick
        _control(self.sim, self.links.group, live)
        self.sim.world.tick += 1
        self.links.send(live)
        if self.radio is not None:
            self.radio.publish(live, time.time())
        self.ticks += 1

    def run(self, ticks: int, should_stop: Callable[[], bool] = lambda: False) -> None:
        next_t = time.monotonic()
        try:
            for _ in range(ticks):
                if should_stop():
                    break
                self.tick()
                next_t += self.dt
                delay = next_t - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                else:             # late: keep the rate from now instead of catching up
                    next_t = time.monotonic()
        finally:
            self.links.stop_all()

    def close(self) -> None:
        self.node.close()

    def summary(self) -> dict:
        out = {"ticks": self.ticks, "robots": self.links.status(), "events": self.events}
        if self.radio is not None:
            out["radio"] = {"frames_sent": self.radio.sent, "receptions": self.radio.heard,
                            "frames_ignored": self.radio.ignored}
        return out


def _control(sim, g, live: np.ndarray) -> None:
    """The group's controllers for this tick: per-robot ones, Buzz VMs and Lua scripts of live
    robots only; a batched Python controller (a PFSM too) sees every robot, and the paused
    robots' commands are reset after it."""
    from swarmstack.sim.simulation import controller_error

    tick = int(sim.world.tick)
    if g.batched:
        ctrl = g.controllers[0]
        if hasattr(ctrl, "paused"):     # Buzz, Lua: the paused robots do not step
            ctrl.paused = ~live
        view = g.views[0]
        view._new_tick()
        try:
            g.controllers[0].step(view)
        except Exception:
            raise controller_error(g.name, None, None, tick, traceback.format_exc()) from None
    else:
        for k, (ctrl, view) in enumerate(zip(g.controllers, g.views)):
            if live[k]:
                try:
                    ctrl.step(view)
                except Exception:
                    raise controller_error(g.name, 0, view.id, tick,
                                           traceback.format_exc()) from None
    paused = ~live
    if paused.any():
        for c in g.robot_type.commands:
            g.commands[c.name][paused] = c.safe


def open_real(cfg, robots: list[str], base_dir: Path | str = ".", source: str = "<experiment>",
              group: Optional[str] = None, domain: int = 0, listen: Iterable[str] = (),
              connect: Iterable[str] = (), multicast: bool = False,
              link_timeout_s: float = 0.5,
              on_event: Optional[Callable[[str, str, str], None]] = None) -> RealRun:
    """Build the experiment for ``robots`` and link them (the caller closes the run)."""
    from swarmstack.bridge.links import check_names
    from swarmstack.sim.simulation import Simulation

    try:
        check_names(robots)
    except ValueError as exc:
        raise RealRunError(f"--robots: {exc}") from None
    rcfg = real_config(cfg, len(robots), group, source)
    sim = Simulation(rcfg, runs=1, base_dir=base_dir, source=source, strict=True)
    sim.start()       # kernels compiled, controllers' init called
    g = sim.groups[0]
    try:
        node = Node("swarmstack_bridge", domain=domain, listen=listen, connect=connect,
                    multicast=multicast)
    except SessionError as exc:
        raise RealRunError(str(exc)) from None
    events: list = []

    def event(name, state, text):
        events.append({"robot": name, "state": state, "tick": int(sim.world.tick)})
        if on_event is not None:
            on_event(name, state, text)

    try:
        links = RobotLinks(node, topics_for(g.robot_type.name), g, robots, link_timeout_s,
                           event, extra_readings=("pose",) if sim.medium is not None else ())
        radio = TopicRadio(node, links, sim.medium) if sim.medium is not None else None
    except ValueError as exc:
        node.close()
        raise RealRunError(f"{source}: {exc}") from None
    except Exception:
        node.close()
        raise
    return RealRun(sim, links, node, events, radio)
