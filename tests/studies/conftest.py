import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

EXPERIMENT = """
[simulation]
ticks_per_second = 10
ticks = {ticks}
seed = 3

[arena]
size = [1.0, 1.0]
walls = true

[[robots]]
name = "bots"
type = "epuck2"
count = 4
controller = {{ python = "tests.studies.controllers:{controller}", params = {{ speed = 0.05 }} }}
sensors = {{ proximity = true }}

[output]
sensors = ["proximity"]
chunk_ticks = 7
"""


@pytest.fixture
def experiment(tmp_path):
    def make(ticks=30, controller="Wander", extra=""):
        path = tmp_path / "exp.toml"
        path.write_text(EXPERIMENT.format(ticks=ticks, controller=controller) + extra)
        return path
    return make


def cli(*args, check=True, env=None, **kw):
    """The swarmstack command from this source tree, in a subprocess."""
    e = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    p = subprocess.run([sys.executable, "-c", "from swarmstack.cli import main; main()", *args],
                       capture_output=True, text=True, env=e, cwd=ROOT, **kw)
    if check:
        assert p.returncode == 0, p.stderr
    return p
