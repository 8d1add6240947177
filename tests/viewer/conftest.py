"""A small recorded run with known poses and LED colours, and a headless Chromium."""

from pathlib import Path

import pytest

from swarmstack.experiments.config import parse_experiment
from swarmstack.experiments.runner import run_experiment

HERE = Path(__file__).parent
# robot 0 stands still at (-0.15, 0.1) facing +x, red; robot 1 at (0.12, -0.1) facing +y,
# green; robot 2 drives forward from (0.15, 0.15) with its LEDs off
POSES = [[-0.15, 0.1, 0.0], [0.12, -0.1, 1.5707963267948966], [0.15, 0.15, 3.141592653589793]]
COLOURS = [[255, 0, 0], [0, 255, 0], [0, 0, 0]]
SPEEDS = [0.0, 0.0, 0.05]


def experiment(ticks: int = 40) -> dict:
    return {
        "simulation": {"ticks": ticks, "seed": 3},
        "arena": {"size": [0.6, 0.6], "walls": True},
        "cylinders": [{"center": [-0.15, -0.15], "radius": 0.04, "height": 0.05}],
        "robots": [{"name": "e", "type": "epuck2",
                    "placement": {"kind": "explicit", "poses": POSES},
                    "controller": {"python": "controllers.py:Colours",
                                   "params": {"colours": COLOURS, "speeds": SPEEDS}},
                    "radio": {"range": 0.8}, "sensors": {"proximity": True}}],
        "output": {"record": True, "record_every": 2},
    }


def record(out: Path, ticks: int = 40, **kw) -> dict:
    cfg = parse_experiment(experiment(ticks), "viewer-test")
    return run_experiment(cfg, out, base_dir=HERE, source="viewer-test", **kw)


@pytest.fixture(scope="session")
def recorded(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("viewer") / "run"
    record(out)
    return out


@pytest.fixture(scope="session")
def browser():
    from swarmstack.viewer.browser import CHROMIUM_ARGS, chromium_path

    exe = chromium_path()
    sync = pytest.importorskip("playwright.sync_api")
    if exe is None:
        pytest.skip("no Chromium (make test installs Debian's chromium)")
    with sync.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()
