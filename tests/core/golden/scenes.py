"""Fingerprints of whole simulations, recorded once and compared bit for bit.

A fingerprint is the SHA-256 of every logged array over a run (poses every tick, every
enabled reading every tick) plus a few sampled arrays kept in full, so that a change that
alters any bit of any tick is caught and the failing quantity is named.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from swarmstack.sim.simulation import Simulation

ROOT = Path(__file__).resolve().parents[3]
TICKS = 300
SAMPLE_TICKS = (0, 1, 50, 150, 300)

ALL_SENSORS = {
    "simulation": {"ticks_per_second": 10, "seed": 5},
    "arena": {"size": [1.4, 1.4], "walls": {"thickness": 0.02, "height": 0.1}},
    "boxes": [{"center": [0.3, -0.2], "size": [0.2, 0.05, 0.08], "yaw": 0.4}],
    "cylinders": [{"center": [-0.3, 0.25], "radius": 0.07, "height": 0.1}],
    "lights": [{"position": [0.0, 0.0, 0.1], "intensity": 1.5},
               {"position": [0.5, 0.5, 0.1], "color": "red"}],
    "floor": {"regions": [{"color": "black", "ring": [0, 0, 0.3, 0.35]}], "resolution": 0.004},
    "robots": [
        {"name": "noisy", "count": 8,
         "sensors": {"proximity": {"noise": "uniform", "level": 0.05},
                     "light": {"noise": "gaussian", "level": 0.02},
                     "ground": {"noise": "uniform", "level": 0.03},
                     "tof": {"noise": "gaussian", "level": 0.01},
                     "encoders": {"noise": "uniform", "level": 0.0001},
                     "camera": {"noise": "uniform", "level": 0.5},
                     "battery": {"model": "cubic"}},
         "wheels": {"noise": "gaussian", "level": 0.05},
         "controller": {"python": "tests.core.controllers:Wanderer"}},
        {"name": "lit", "count": 5,
         "sensors": {"proximity": True, "light": True, "camera": True,
                     "battery": {"model": "approximated"}},
         "controller": {"python": "tests.core.controllers:RandomWheelsLeds"}},
    ],
}


def scenes() -> dict:
    """name → (Simulation factory) for every scene whose fingerprint is recorded."""
    out = {}
    for path in sorted((ROOT / "examples").glob("*.toml")):
        out[path.stem] = (lambda p=path: Simulation.from_file(p))
    out["all_sensors"] = lambda: Simulation.from_dict(ALL_SENSORS, base_dir=ROOT)
    out["all_sensors_batch3"] = lambda: Simulation.from_dict(ALL_SENSORS, base_dir=ROOT, runs=3,
                                                            seed=11)
    return out


def _arrays(sim) -> dict[str, np.ndarray]:
    b = sim.world.bodies
    out = {"x": b.x, "y": b.y, "yaw": b.yaw}
    for g in sim.groups:
        for name, arr in g.readings.items():
            out[f"{g.slice.name}.{name}"] = arr
    return out


def fingerprint(make, ticks: int = TICKS) -> dict[str, np.ndarray]:
    """Hashes of each array over ticks 0…ticks, and full copies at SAMPLE_TICKS."""
    sim = make()
    sim.start()
    hashes: dict[str, hashlib._Hash] = {}
    samples: dict[str, np.ndarray] = {}
    for t in range(ticks + 1):
        if t:
            sim.step()
        for k, v in _arrays(sim).items():
            a = np.ascontiguousarray(v)
            hashes.setdefault(k, hashlib.sha256()).update(a.tobytes())
            if t in SAMPLE_TICKS:
                samples[f"{k}@{t}"] = a.copy()
    out = {f"sha:{k}": np.array(h.hexdigest()) for k, h in hashes.items()}
    out.update(samples)
    return out


def record(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, make in scenes().items():
        np.savez_compressed(folder / f"{name}.npz", **fingerprint(make))


if __name__ == "__main__":
    record(Path(__file__).parent / "data")
