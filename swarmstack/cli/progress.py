"""Progress of a run on standard error: a live bar on a terminal, and a plain line every few
seconds otherwise (a log file, CI, ``2> run.log``), so a long run is never silent."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

PLAIN_EVERY_S = 5.0


class PlainProgress:
    """``tick(done, total)`` prints ``NAME: tick D/T (P %), R robot-ticks/s, S s left`` at most
    every ``every_s`` seconds (and the last tick); time is counted from the first tick, so
    set-up does not dilute the rate."""

    def __init__(self, name: str, robots: int, every_s: float = PLAIN_EVERY_S, stream=None,
                 clock: Callable[[], float] = time.monotonic):
        self.name, self.robots, self.every_s = name, robots, every_s
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self._start: Optional[float] = None
        self._last = -float("inf")

    def tick(self, done: int, total: int) -> None:
        now = self.clock()
        if self._start is None:
            self._start = self._last = now
            self._first = done
            print(f"{self.name}: set up, running {total} ticks", file=self.stream, flush=True)
        if now - self._last < self.every_s and done != total:
            return
        self._last = now
        elapsed = max(now - self._start, 1e-9)
        rate = (done - self._first) / elapsed
        left = (total - done) / rate if rate > 0 else float("inf")
        print(f"{self.name}: tick {done}/{total} ({100 * done / max(total, 1):.0f} %), "
              f"{rate * self.robots:,.0f} robot-ticks/s, {left:.0f} s left",
              file=self.stream, flush=True)


@contextmanager
def run_progress(name: str, total: int, robots: int,
                 quiet: bool) -> Iterator[tuple[Callable, Callable, Callable]]:
    """``(progress(done, total), echo(line), stop())`` for the runner: a rich bar when standard
    error is a terminal, plain periodic lines otherwise, nothing with ``quiet`` (which never
    imports rich)."""
    if quiet:
        yield (lambda done, total_: None), (lambda line: print(line, file=sys.stderr)), \
            (lambda: None)
        return
    from rich.console import Console
    from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                               TimeElapsedColumn, TimeRemainingColumn)

    console = Console(stderr=True)
    if not console.is_terminal:
        plain = PlainProgress(name, robots)
        yield plain.tick, (lambda line: print(line, file=sys.stderr, flush=True)), (lambda: None)
        return
    columns = (TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("ticks"), TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=False) as bar:
        # the first run after installation also compiles the kernels (cached afterwards)
        task = bar.add_task(f"{name}: setting up", total=total)
        stride = max(1, total // 200)

        def progress(done, total_):
            if done == 1:
                bar.update(task, description=name)
            if done % stride == 0 or done == total_:
                bar.update(task, completed=done)

        def echo(line):
            bar.console.print(line, markup=False, emoji=False, highlight=False, soft_wrap=True)

        yield progress, echo, bar.stop
