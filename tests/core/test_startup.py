"""What a run loads, and the tick's direct kernel calls.

A run of the simulator loads its cached kernels without Numba's compiler library, SciPy or
PyYAML, and without importing the modules of the library functions those kernels use
(start-up time, ``swarmstack.jit``); compiling afterwards still works and loads them.
A small group's tick calls the compiled serial kernels directly; when the thread settings
change, a group that may now go parallel is handed back to its methods, and results stay
the same bits either way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from swarmstack import jit, threads
from swarmstack.experiments.simulation import Simulation
from swarmstack.sensors import encoders

ROOT = Path(__file__).resolve().parents[2]

RUN = """
import json, sys
from swarmstack.experiments.simulation import Simulation
cfg = {"arena": {"size": [1.0, 1.0]},
       "robots": [{"name": "e", "type": "epuck2", "count": 3, "sensors": {"encoders": True},
                   "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
sim = Simulation.from_dict(cfg, seed=5)
sim.start()
contacts_at_start = "swarmstack.physics.contacts" in sys.modules
sim.run(20)
loaded = {m: m in sys.modules for m in ("scipy", "yaml", "numba.np.arraymath",
                                        "numba.np.arrayobj", "numba.cpython.mathimpl",
                                        "swarmstack.robots.rvr", "swarmstack.robots.crazyflie",
                                        "duckdb", "numpy.ma", "email")}
from swarmstack.robots import ROBOT_TYPES
types = sorted(ROBOT_TYPES)   # listing the registry: every built-in type
from numba import njit
import numpy as np

@njit
def total(a):
    return np.sum(a * 2.0)

after = total(np.arange(4.0))
@njit
def first(a):
    return a[0]

from swarmstack.sensors.encoders import encoder_kernel

@njit
def twice(speed, keys, acc, out):  # new code calling a kernel the run loaded from the cache
    for _ in range(2):
        encoder_kernel(speed, 0.1, 7800.0, 0, 0.0, keys, 3, acc, out)

speed = np.array([[0.05, -0.02], [0.1, 0.0]])
keys = np.zeros((2, 4), dtype=np.uint64)[:, 1]
acc, out = np.zeros((2, 2)), np.zeros((2, 2), dtype=np.int32)
twice(speed, keys, acc, out)
linked = out.tolist()

try:  # Numba still refuses a masked array once they exist
    first(np.ma.array([1.0, 2.0]))
    masked = "accepted"
except Exception as exc:
    masked = "refused" if "MaskedArray" in str(exc) else repr(exc)
import scipy, yaml
print(json.dumps({"loaded": loaded, "after": after, "masked": masked, "linked": linked,
                  "contacts": [contacts_at_start, "swarmstack.physics.contacts" in sys.modules],
                  "pose": sim.world.bodies.pose[:, :3].round(12).tolist(), "types": types,
                  "compiler_library": "numba.np.arraymath" in sys.modules}))
"""


def test_a_run_loads_neither_the_compiler_library_nor_what_it_does_not_use(tmp_path):
    """Nor SciPy, PyYAML, DuckDB (nothing written) or the robot types it has no group of; the
    contact pass is imported at the first tick that moves a robot, not before."""
    out = subprocess.run([sys.executable, "-c", RUN], cwd=tmp_path, capture_output=True,
                         text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                         timeout=600)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert not any(r["loaded"].values()), r["loaded"]
    assert {"epuck2", "rvr", "crazyflie"} <= set(r["types"])
    assert r["contacts"] == [False, True]
    # compiling afterwards loads the library and computes as always
    assert r["after"] == 12.0 and r["compiler_library"] and r["masked"] == "refused"
    assert r["linked"][1][0] == 2 * 78
    # the same run in this process (modules loaded in any order) gives the same poses
    cfg = {"arena": {"size": [1.0, 1.0]},
           "robots": [{"name": "e", "type": "epuck2", "count": 3, "sensors": {"encoders": True},
                       "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
    sim = Simulation.from_dict(cfg, seed=5, base_dir=ROOT)
    sim.run(20)
    assert sim.world.bodies.pose[:, :3].round(12).tolist() == r["pose"]


def test_numba_reads_its_yaml_config_file_when_there_is_one(tmp_path):
    (tmp_path / ".numba_config.yaml").write_text("debug_cache: 0\n")
    code = "import sys, swarmstack, numba; print('yaml' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_compiled_is_the_kernel_for_those_types():
    speed = np.array([[0.05, -0.02], [0.1, 0.0]])
    keys = np.zeros((2, 4), dtype=np.uint64)[:, 1]
    args = (speed, 0.1, 7800.0, 0, 0.0, keys, 3)
    acc_a, out_a = np.zeros((2, 2)), np.zeros((2, 2), dtype=np.int32)
    acc_b, out_b = np.zeros((2, 2)), np.zeros((2, 2), dtype=np.int32)
    kernel = jit.compiled(encoders.encoder_kernel, *args, acc_a, out_a)
    for _ in range(5):
        kernel(*args, acc_a, out_a)
        encoders.encoder_kernel(*args, acc_b, out_b)
    assert np.array_equal(acc_a, acc_b) and np.array_equal(out_a, out_b)
    assert out_a[1, 0] == 5 * 78


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
    assert encoders.encoder_kernel_parallel.signatures  # the parallel form ran


RUNTIME = """
import json
import numpy as np
from numba import njit
from swarmstack import jit

jit.prepare()

@njit
def doubled_sum(n):
    a = np.arange(n) * 2   # allocates and frees: Numba's runtime at work
    return a.sum()

print(json.dumps({"sum": int(doubled_sum(10)), "cached": jit.runtime_loaded_from_cache,
                  "path": str(jit.runtime_cache_path())}))
"""


def _runtime_run(cache_dir):
    out = subprocess.run([sys.executable, "-c", RUNTIME], cwd=cache_dir, capture_output=True,
                         text=True, timeout=600,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin",
                              "NUMBA_CACHE_DIR": str(cache_dir)})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_numba_runtime_is_compiled_once_then_loaded_from_the_cache(tmp_path):
    first = _runtime_run(tmp_path)
    assert first["sum"] == 90 and not first["cached"]
    path = Path(first["path"])
    assert path.parent == tmp_path and path.is_file()
    second = _runtime_run(tmp_path)
    assert second == {**first, "cached": True}
    # a damaged file is compiled anew (and replaced), never trusted
    path.write_bytes(b"not a runtime")
    third = _runtime_run(tmp_path)
    assert third == first
    assert path.read_bytes() != b"not a runtime"   # and written anew for the next process


BLAS = """
import os, sys
import swarmstack, numpy
print(os.environ.get("OPENBLAS_NUM_THREADS"), len(os.listdir("/proc/self/task")))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_numpys_blas_starts_on_one_thread_unless_the_environment_chooses(tmp_path):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", BLAS], cwd=tmp_path, capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "1"]   # no BLAS thread beside the main one
    out = subprocess.run([sys.executable, "-c", BLAS], cwd=tmp_path, capture_output=True,
                         text=True, env={**env, "OPENBLAS_NUM_THREADS": "2"}, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split()[0] == "2"


COMMAND = """
import atexit, gc, sys
atexit.register(lambda: print("LOADED", *sorted(m for m in ("rich", "duckdb") if m in sys.modules),
                              "collector", gc.isenabled(), gc.get_freeze_count() > 0,
                              file=sys.stderr))
from swarmstack.cli import main
main()
"""


def test_a_quiet_run_of_the_command_that_logs_nothing_imports_neither_rich_nor_duckdb(tmp_path):
    """And the garbage collector, paused while the command starts, is on again at the end."""
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


COLLECTOR = """
import gc, json
from swarmstack import process
from swarmstack.experiments.simulation import Simulation
cfg = {"arena": {"size": [1.0, 1.0]},
       "robots": [{"name": "e", "type": "epuck2", "count": 2, "sensors": {"encoders": True},
                   "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
seen = {}
process.pause_collector()
sim = Simulation.from_dict(cfg, seed=5)
seen["while_building"] = gc.isenabled()
sim.run(3)
seen["after_start"] = gc.isenabled()
seen["frozen"] = gc.get_freeze_count() > 0
gc.disable()   # a script's own choice is left alone
process.pause_collector()
Simulation.from_dict(cfg, seed=5).run(3)
seen["kept_off"] = not gc.isenabled()
print(json.dumps(seen))
"""


def test_the_collector_paused_for_the_start_is_on_again_once_the_simulation_started(tmp_path):
    out = subprocess.run([sys.executable, "-c", COLLECTOR], cwd=tmp_path, capture_output=True,
                         text=True, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
                         timeout=600)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {
        "while_building": False, "after_start": True, "frozen": True, "kept_off": True}


IMPORT_CLI = """
import gc, json, sys
seen = {}
if sys.argv[1] == "off":
    gc.disable()
if sys.argv[1] == "frozen":
    gc.freeze()
before = gc.get_freeze_count()
import swarmstack.cli  # pauses the collector while it imports typer and the commands
seen["on"] = gc.isenabled()
seen["nothing_frozen_left_or_set_aside"] = (gc.get_freeze_count() > 0) == (before > 0)
print(json.dumps(seen))
"""


def test_importing_the_command_line_leaves_the_collector_as_it_found_it(tmp_path):
    # on, off (a script's choice), or with objects set aside for good (a sweep's worker): the
    # import of typer and the commands runs without the collector, which is then as it was
    for state, on in (("on", True), ("off", False), ("frozen", True)):
        out = subprocess.run([sys.executable, "-c", IMPORT_CLI, state], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300,
                             env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout.strip().splitlines()[-1]) == {
            "on": on, "nothing_frozen_left_or_set_aside": True}, state
