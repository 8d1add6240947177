"""How far a sweep is, on stderr: a bar on a terminal (runs done, robot-ticks/s, time left),
else one plain line every few seconds (logs, CI)."""

from __future__ import annotations

import sys
import time
from typing import Optional, TextIO

PLAIN_EVERY_S = 5.0


def _duration(s: float) -> str:
    if s != s or s == float("inf"):
        return "?"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


class SweepProgress:
    """``update(runs_done, robot_ticks_done)`` as batches finish; ``tick()`` between them keeps
    the display alive. Rates count only what this process ran (a resumed sweep's earlier runs
    are in ``runs_done`` but not in the rate)."""

    def __init__(self, total_runs: int, total_robot_ticks: float, runs_done: int = 0,
                 robot_ticks_done: float = 0.0, stream: Optional[TextIO] = None,
                 enabled: bool = True, label: str = "sweep"):
        self.stream = stream if stream is not None else sys.stderr
        self.total_runs = total_runs
        self.total = total_robot_ticks
        self.runs_done = runs_done
        self.done = robot_ticks_done
        self._start_done = robot_ticks_done
        self.failed = 0
        self.t0 = time.monotonic()
        self.enabled = enabled
        self.label = label
        self._last_plain = 0.0
        self._bar = None
        if enabled and getattr(self.stream, "isatty", lambda: False)():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._bar = Progress(TextColumn(f"[bold]{label}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("runs"),
                                 TextColumn("{task.fields[rate]}"),
                                 TextColumn("{task.fields[left]}"),
                                 console=Console(file=self.stream), transient=False)
            self._task = self._bar.add_task(label, total=total_runs, completed=runs_done,
                                            rate="", left="")
            self._bar.start()

    def rate(self) -> float:
        elapsed = time.monotonic() - self.t0
        return (self.done - self._start_done) / elapsed if elapsed > 0 else 0.0

    def left_s(self) -> float:
        r = self.rate()
        return (self.total - self.done) / r if r > 0 else float("inf")

    def update(self, runs: int, robot_ticks: float, failed: int = 0) -> None:
        self.runs_done += runs
        self.done += robot_ticks
        self.failed += failed
        self.tick(force=True)

    def line(self) -> str:
        fail = f", {self.failed} failed" if self.failed else ""
        return (f"{self.label}: {self.runs_done}/{self.total_runs} runs{fail}, "
                f"{self.rate():,.0f} robot-ticks/s, {_duration(self.left_s())} left")

    def tick(self, force: bool = False) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.update(self._task, completed=self.runs_done,
                             rate=f"{self.rate():,.0f} robot-ticks/s",
                             left=f"{_duration(self.left_s())} left")
            return
        now = time.monotonic()
        if now - self._last_plain >= PLAIN_EVERY_S or (force and self.runs_done ==
                                                         self.total_runs):
            self._last_plain = now
            print(self.line(), file=self.stream, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
