"""`swarmstack reproduce NAME`: the papers' validation experiments as commands.

Each validation is a function ``(out_dir: Path) -> Reproduction`` registered under a name with
:func:`validation`. It prints nothing itself: the CLI prints the table and decides the exit code
from ``ok``. Modules are imported lazily so that ``--list`` stays fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# name -> module that defines it (imported on first use)
_MODULES: dict[str, str] = {
    "epuck2-tof": "swarmstack.experiments.reproduce.epuck2_tof",
    "epuck2-encoders": "swarmstack.experiments.reproduce.epuck2_encoders",
    "epuck2-proximity": "swarmstack.experiments.reproduce.epuck2_proximity",
    "epuck2-light": "swarmstack.experiments.reproduce.epuck2_light",
    "epuck2-camera": "swarmstack.experiments.reproduce.epuck2_camera",
    "epuck2-battery": "swarmstack.experiments.reproduce.epuck2_battery",
    "crazyflie-camera": "swarmstack.experiments.reproduce.crazyflie_camera",
    "crazyflie-battery": "swarmstack.experiments.reproduce.crazyflie_battery",
    "buzz-barrier": "swarmstack.experiments.reproduce.buzz_barrier",
    "buzz-vs-consensus": "swarmstack.experiments.reproduce.buzz_vs_consensus",
    "buzz-bidding": "swarmstack.experiments.reproduce.buzz_bidding",
    "sim-barrier": "swarmstack.experiments.reproduce.sim_barrier",
    "sim-vs-consensus": "swarmstack.experiments.reproduce.sim_vs_consensus",
    "sim-bidding": "swarmstack.experiments.reproduce.sim_bidding",
    "sim-bandwidth": "swarmstack.experiments.reproduce.sim_bandwidth",
    "crazyflie-velocity": "swarmstack.experiments.reproduce.crazyflie_velocity",
    "crazyflie-position": "swarmstack.experiments.reproduce.crazyflie_position",
    "rvr-ground-noise": "swarmstack.experiments.reproduce.rvr_ground_noise",
    "rvr-imu": "swarmstack.experiments.reproduce.rvr_imu",
    "rvr-neighbours": "swarmstack.experiments.reproduce.rvr_neighbours",
    "automode-aggregation": "swarmstack.experiments.reproduce.automode_aggregation",
    "epuck2-study": "swarmstack.experiments.reproduce.epuck2_study",
    "sar": "swarmstack.experiments.reproduce.sar",
}

_REGISTRY: dict[str, Callable[[Path], "Reproduction"]] = {}


@dataclass
class Row:
    """One compared quantity: what the paper reports, what we measure, and whether it agrees."""

    quantity: str
    paper: str
    ours: str
    ok: bool


@dataclass
class Reproduction:
    name: str
    title: str
    rows: list[Row] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    notes: str = ""

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.rows) and bool(self.rows)


def validation(name: str):
    """Decorator registering ``fn(out_dir) -> Reproduction`` under ``name``."""

    def register(fn):
        _REGISTRY[name] = fn
        return fn

    return register


def names() -> list[str]:
    return sorted(_MODULES)


def run(name: str, out_dir: Path) -> Reproduction:
    if name not in _MODULES:
        raise KeyError(name)
    importlib.import_module(_MODULES[name])
    out_dir.mkdir(parents=True, exist_ok=True)
    return _REGISTRY[name](out_dir)


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
