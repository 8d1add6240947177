"""A run's wall-clock budget.

:class:`Watchdog` arms a real-time timer (``SIGALRM``) for the budget while a simulation
steps. When the budget is spent the handler raises in the main thread, wherever Python code
is running then:

* when the simulation (``watchdog.sim``) stops the runs of failing per-robot controllers
  alone (``isolate_runs``), it raises :class:`RunTimeout`, an ``Exception``: in a per-robot
  controller (the usual place of a hang) the simulation stops that robot's run as it stops any
  failing controller's (``Simulation.stop_run``) and the other runs go on with a new budget
  (the run that hung held them up). If no run was stopped :data:`FOLLOW_UP_S` later (the
  exception was raised elsewhere, or swallowed by the controller), :class:`BudgetSpent`
  follows;
* otherwise it raises :class:`BudgetSpent`, a ``BaseException`` that neither a script VM nor
  a controller's ``except Exception`` holds back: it leaves ``step()``, and
  :func:`stop_all` then stops every run still going.

:func:`mark` turns the stopped runs' errors into ``kind: timeout`` errors. Code that never
returns to Python (a compiled loop, a Lua script without its loop guard) is not interrupted:
a worker pool ends such a process (``swarmstack.studies.executors``). Only the thread that
owns signals (the main thread) can have a watchdog; elsewhere, and with no budget, it does
nothing. The handler and timer in place before are put back when it ends.

A process that runs batches for a pool sets :data:`on_arm` to learn, each time the timer is
set, the seconds until it fires (None when the watchdog ends), so that the pool can end a
process stuck where no signal reaches.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Callable, Optional

from swarmstack.sim.simulation import NOT_STOPPED

FOLLOW_UP_S = 1.0
on_arm: Optional[Callable[[Optional[float]], None]] = None


class RunTimeout(Exception):
    """A run's wall-clock budget is spent, raised where a failing per-robot controller stops
    only its own run."""


class BudgetSpent(BaseException):
    """A run's wall-clock budget is spent, raised past every ``except Exception``."""


def budget_text(seconds: float) -> str:
    return f"ran past its wall-clock budget of {seconds:g} s"


def _stopped(sim) -> int:
    return int((sim.stop_tick != NOT_STOPPED).sum())


class Watchdog:
    """``with Watchdog(budget_s) as w:`` (``w.sim = sim`` once built) raises when the block
    has run ``budget_s`` seconds of wall-clock time, and again each time a run was stopped for
    it and the others have run ``budget_s`` more (None: no budget)."""

    def __init__(self, budget_s: Optional[float], sim=None):
        self.budget_s = budget_s
        self.sim = sim
        self.active = False
        self._waiting = None     # runs stopped when RunTimeout was raised: a follow-up is due
        self._previous = None
        self._timer = (0.0, 0.0)
        self._entered = 0.0

    def __enter__(self) -> "Watchdog":
        if self.budget_s is None or threading.current_thread() is not threading.main_thread():
            return self
        self._entered = time.monotonic()
        self._previous = signal.signal(signal.SIGALRM, self._expired)
        self._timer = signal.setitimer(signal.ITIMER_REAL, 0.0)
        self.active = True
        self._set(self.budget_s)
        return self

    def _set(self, seconds: float) -> None:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        if on_arm is not None:
            on_arm(seconds)

    def _expired(self, signum, frame) -> None:
        sim = self.sim
        if self._waiting is not None:   # the follow-up of a RunTimeout
            waiting, self._waiting = self._waiting, None
            if sim is not None and _stopped(sim) > waiting:
                self._set(self.budget_s)   # a run was stopped: the others go on
                return
            raise BudgetSpent(budget_text(self.budget_s))
        if sim is not None and sim.isolate_runs and any(
                not g.batched and g.controllers for g in sim.groups):
            self._waiting = _stopped(sim)
            self._set(FOLLOW_UP_S)
            raise RunTimeout(budget_text(self.budget_s))
        raise BudgetSpent(budget_text(self.budget_s))

    def __exit__(self, *exc) -> None:
        if not self.active:
            return
        self.active = False
        signal.setitimer(signal.ITIMER_REAL, 0.0)
        signal.signal(signal.SIGALRM, self._previous if self._previous is not None
                      else signal.SIG_DFL)
        left, interval = self._timer
        if left > 0:   # a timer of the caller's: what was left of it, less the time spent here
            spent = time.monotonic() - self._entered
            signal.setitimer(signal.ITIMER_REAL, max(left - spent, 1e-6), interval)
        if on_arm is not None:
            on_arm(None)


def is_timeout(exc: Optional[BaseException]) -> bool:
    """``exc`` is a RunTimeout or BudgetSpent, or was raised because of one (a batched
    controller's ControllerError)."""
    seen = 0
    while exc is not None and seen < 20:
        if isinstance(exc, (RunTimeout, BudgetSpent)):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


def stop_all(sim, budget_s: float) -> None:
    """Stop every run of ``sim`` still going, for its budget spent."""
    tick = int(sim.tick)
    for run in range(sim.runs):
        if sim.stop_tick[run] == NOT_STOPPED:
            sim.stop_run(run, {"run": run, "tick": tick, "kind": "timeout",
                               "error": f"timeout: {budget_text(budget_s)}"})


def mark(sim) -> list[int]:
    """Give the errors of runs stopped by their budget ``kind: timeout`` and a message that
    says so; returns those runs."""
    runs = []
    for e in sim.run_errors:
        if e.get("kind") == "timeout":
            runs.append(e["run"])
        # (Simulation records a failing controller's error as "<exception type>: <message>")
        elif str(e.get("error", "")).startswith(f"{RunTimeout.__name__}: "):
            e["kind"] = "timeout"
            e["error"] = "timeout: " + e["error"].split(": ", 1)[1]
            runs.append(e["run"])
    return runs
