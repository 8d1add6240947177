"""`swarmstack reproduce NAME`: the papers' validation experiments as commands.

Each validation is a function ``(out_dir: Path, quick: bool = False) -> Reproduction`` registered
under a name with :func:`validation`; ``quick`` runs the same checks at a smaller budget. It
prints nothing itself: the CLI prints the table and decides the exit code from ``ok``. Modules
are imported lazily so that ``--list`` stays fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

# the validations' names; the module defining each is its name with "_" for "-" (imported on
# first use)
_MODULES: dict[str, str] = {name: f"{__name__}.{name.replace('-', '_')}" for name in (
    "epuck2-tof", "epuck2-encoders", "epuck2-proximity", "epuck2-light", "epuck2-camera",
    "epuck2-battery", "epuck2-ground", "crazyflie-camera", "crazyflie-battery", "buzz-barrier",
    "buzz-vs-consensus", "buzz-bidding", "sim-barrier", "sim-vs-consensus", "sim-bidding",
    "sim-bandwidth", "crazyflie-velocity", "crazyflie-position", "rvr-ground-noise", "rvr-imu",
    "rvr-neighbours", "rvr-ranging", "automode-aggregation", "epuck2-study", "sar")}

_REGISTRY: dict[str, Callable[[Path], "Reproduction"]] = {}


@dataclass
class Row:
    """One compared quantity: what the paper reports, what we measure, and whether it agrees.

    ``paper`` and ``ours`` are the texts shown; where the quantity is a number, ``paper_value``
    (the paper's literal number), ``ours_value``, ``tolerance`` (two-sided, in the same unit:
    agreement is ``|ours_value − paper_value| ≤ tolerance``) and ``unit`` carry it for other
    tools (``swarmstack reproduce --json``).

    An ``informative`` row reports numbers that are not ours to judge -- a paper's own gap, such
    as its robot's data against its model -- with ``ok`` telling whether they agree; it is shown
    as "info" and does not count in :attr:`Reproduction.ok`."""

    quantity: str
    paper: str
    ours: str
    ok: bool
    paper_value: Optional[float] = None
    ours_value: Optional[float] = None
    tolerance: Optional[float] = None
    unit: str = ""
    informative: bool = False

    @classmethod
    def within(cls, quantity: str, paper_value: float, ours_value: float, tolerance: float,
               unit: str = "", digits: int = 3, informative: bool = False, *,
               paper: Optional[str] = None, ours: Optional[str] = None, cite: str = "",
               note: str = "", also: bool = True) -> "Row":
        """A numeric row judged two-sided: ``|ours − paper| ≤ tolerance`` (a NaN never agrees)
        and ``also`` (the row's other conditions). ``paper`` and ``ours`` replace the texts
        shown; ``cite`` (where the reference comes from, after " — ") and ``note`` are added
        to them."""
        ok = bool(abs(float(ours_value) - float(paper_value)) <= float(tolerance)) and bool(also)
        u = f" {unit}" if unit else ""
        if paper is None:
            paper = f"{paper_value:.{digits}g}{u} (± {tolerance:.{digits}g})"
        if ours is None:
            ours = f"{ours_value:.{digits}g}{u}"
        return cls(quantity, paper + (f" — {cite}" if cite else ""), ours + note, ok,
                   float(paper_value), float(ours_value), float(tolerance), unit, informative)


@dataclass
class Reproduction:
    name: str
    title: str
    rows: list[Row] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    notes: str = ""

    @property
    def ok(self) -> bool:
        """Every judged row agrees, and there is at least one (informative rows do not count)."""
        judged = [r for r in self.rows if not r.informative]
        return all(r.ok for r in judged) and bool(judged)


def validation(name: str):
    """Decorator registering ``fn(out_dir) -> Reproduction`` under ``name``."""

    def register(fn):
        _REGISTRY[name] = fn
        return fn

    return register


def names() -> list[str]:
    return sorted(_MODULES)


def run(name: str, out_dir: Path, quick: bool = False) -> Reproduction:
    """Validation ``name``, its files in ``out_dir``; ``quick``: the same checks at a smaller
    budget (seconds each)."""
    if name not in _MODULES:
        raise KeyError(name)
    importlib.import_module(_MODULES[name])
    out_dir.mkdir(parents=True, exist_ok=True)
    return _REGISTRY[name](out_dir, quick=quick)


def pyplot():
    """matplotlib's pyplot on the file-only Agg backend (validations run without a display)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def style_axes(ax, xlabel: str, ylabel: str, title: str, legend=True) -> None:
    """The validations' plot style: labels, title, a small legend (``legend``: False for none,
    or the legend's options) and a light grid."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(**({"fontsize": 8} if legend is True else legend))
    ax.grid(alpha=0.3)


def subplots(*args, **kwargs):
    """A new figure and its axes: ``pyplot().subplots``."""
    return pyplot().subplots(*args, **kwargs)


def save_plot(fig, path: Path, layout: bool = True) -> Path:
    """Lay out, write (PNG, 120 dpi) and close a matplotlib figure; returns ``path``."""
    if layout:
        fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot().close(fig)
    return path
