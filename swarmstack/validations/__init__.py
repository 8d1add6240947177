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

# name -> module that defines it (imported on first use)
_MODULES: dict[str, str] = {
    "epuck2-tof": "swarmstack.validations.epuck2_tof",
    "epuck2-encoders": "swarmstack.validations.epuck2_encoders",
    "epuck2-proximity": "swarmstack.validations.epuck2_proximity",
    "epuck2-light": "swarmstack.validations.epuck2_light",
    "epuck2-camera": "swarmstack.validations.epuck2_camera",
    "epuck2-battery": "swarmstack.validations.epuck2_battery",
    "epuck2-ground": "swarmstack.validations.epuck2_ground",
    "crazyflie-camera": "swarmstack.validations.crazyflie_camera",
    "crazyflie-battery": "swarmstack.validations.crazyflie_battery",
    "buzz-barrier": "swarmstack.validations.buzz_barrier",
    "buzz-vs-consensus": "swarmstack.validations.buzz_vs_consensus",
    "buzz-bidding": "swarmstack.validations.buzz_bidding",
    "sim-barrier": "swarmstack.validations.sim_barrier",
    "sim-vs-consensus": "swarmstack.validations.sim_vs_consensus",
    "sim-bidding": "swarmstack.validations.sim_bidding",
    "sim-bandwidth": "swarmstack.validations.sim_bandwidth",
    "crazyflie-velocity": "swarmstack.validations.crazyflie_velocity",
    "crazyflie-position": "swarmstack.validations.crazyflie_position",
    "rvr-ground-noise": "swarmstack.validations.rvr_ground_noise",
    "rvr-imu": "swarmstack.validations.rvr_imu",
    "rvr-neighbours": "swarmstack.validations.rvr_neighbours",
    "rvr-ranging": "swarmstack.validations.rvr_ranging",
    "automode-aggregation": "swarmstack.validations.automode_aggregation",
    "epuck2-study": "swarmstack.validations.epuck2_study",
    "sar": "swarmstack.validations.sar",
}

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
               unit: str = "", digits: int = 3, informative: bool = False) -> "Row":
        """A numeric row judged two-sided: ``|ours − paper| ≤ tolerance`` (a NaN never agrees)."""
        ok = bool(abs(float(ours_value) - float(paper_value)) <= float(tolerance))
        u = f" {unit}" if unit else ""
        return cls(quantity, f"{paper_value:.{digits}g}{u} (± {tolerance:.{digits}g})",
                   f"{ours_value:.{digits}g}{u}", ok, float(paper_value), float(ours_value),
                   float(tolerance), unit, informative)


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


def style_axes(ax, xlabel: str, ylabel: str, title: str, legend: bool = True) -> None:
    """The validations' plot style: labels, title, a small legend and a light grid."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if legend:
        ax.legend(fontsize=8)
    ax.grid(alpha=0.3)


def save_plot(fig, path: Path, layout: bool = True) -> Path:
    """Lay out, write (PNG, 120 dpi) and close a matplotlib figure; returns ``path``."""
    if layout:
        fig.tight_layout()
    fig.savefig(path, dpi=120)
    pyplot().close(fig)
    return path
