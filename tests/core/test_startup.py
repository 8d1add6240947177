"""What a command loads, and thread settings changed between ticks.

A small group's tick calls the serial kernels directly; when the thread settings change, a
group that may now go parallel is handed back to its methods, and results stay the same bits
either way. A quiet run of the command imports neither rich nor duckdb and runs with the
garbage collector on; importing the command line leaves the collector as it was.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from swarmstack.sim import threads
from swarmstack.sim.simulation import Simulation
from swarmstack.sensors import encoders

ROOT = Path(__file__).resolve().parents[2]

@pytest.fixture
def restored_threads():
    with threads.using(threads.threads()):
        yield


def test_thread_settings_changed_between_ticks_take_effect(restored_threads):
    """A simulation built on one thread and switched to two (every kernel parallel) runs the
    parallel forms from the next tick on, with the same results as staying on one."""
    cfg = {"arena": {"size": [1.5, 1.5]},
           "robots": [{"name": "epuck2", "type": "epuck2", "count": 12, "sensors": {"encoders": True},
                       "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
    runs = []
    for switch in (False, True):
        with threads.using(1):
            sim = Simulation.from_dict(cfg, seed=11, base_dir=ROOT, runs=2)
            sim.run(10)
            if switch:
                threads.set_threads(2)
                threads.set_parallel_min(1)
                threads.set_chunk_max(5)
            sim.run(30)
        runs.append((sim.world.bodies.pose.copy(), sim.readings("epuck2")["encoders"].copy()))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    assert encoders.parallel_rows.signatures  # the parallel form ran


COMMAND = """
import atexit, gc, sys
atexit.register(lambda: print("LOADED", *sorted(m for m in ("rich", "duckdb") if m in sys.modules),
                              "collector", gc.isenabled(), gc.get_freeze_count() > 0,
                              file=sys.stderr))
from swarmstack.cli import main
main()
"""


def test_a_quiet_run_of_the_command_that_logs_nothing_imports_neither_rich_nor_duckdb(tmp_path):
    """And the garbage collector, off while the command imports the simulator, is on during
    the run, with what the imports made set aside."""
    exp = tmp_path / "one.toml"
    exp.write_text('[arena]\nsize = [1.0, 1.0]\n\n[[robots]]\nname = "e"\ncount = 1\n'
                   'sensors = { encoders = true }\n'
                   'controller = { python = "tests.core.controllers:RandomWheels" }\n\n'
                   '[output]\ntrajectories = false\n')
    out = subprocess.run([sys.executable, "-c", COMMAND, "run", str(exp), "--out",
                          str(tmp_path / "out"), "--quiet", "--ticks", "3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "LOADED collector True True"
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["ticks_done"] == 3


IMPORT_CLI = """
import gc, json, sys
seen = {}
if sys.argv[1] == "off":
    gc.disable()
if sys.argv[1] == "frozen":
    gc.freeze()
before = gc.get_freeze_count()
import swarmstack.cli
seen["on"] = gc.isenabled()
seen["nothing_frozen_left_or_set_aside"] = (gc.get_freeze_count() > 0) == (before > 0)
print(json.dumps(seen))
"""


def test_importing_the_command_line_leaves_the_collector_as_it_found_it(tmp_path):
    # on, off (a script's choice), or with objects set aside for good (a sweep's worker)
    for state, on in (("on", True), ("off", False), ("frozen", True)):
        out = subprocess.run([sys.executable, "-c", IMPORT_CLI, state], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300,
                             env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout.strip().splitlines()[-1]) == {
            "on": on, "nothing_frozen_left_or_set_aside": True}, state
