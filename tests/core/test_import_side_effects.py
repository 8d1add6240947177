"""Importing swarmstack, and building and running a simulation, changes nothing outside it.

In a fresh process: every function and class that Numba's modules, pydantic's plug-in loader
and ``importlib.metadata`` hold (and every method of those classes), the garbage
collector's state, the import system's hooks and the environment are noted before swarmstack
is imported, then compared after a simulation with kernels of every kind (sensors, contacts,
parallel forms) has run: all the same objects, all the same values.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import gc, importlib, importlib.metadata, inspect, json, os, sys

import numba, numba.core.caching, numba.core.codegen, numba.core.dispatcher  # noqa: E401
import numba.core.runtime.nrt, numba.core.typing.typeof, numba.np.ufunc.parallel  # noqa: E401
import pydantic, pydantic.plugin._loader  # noqa: E401

def noted(modules):
    out = {}
    for module in modules:
        for name, value in list(vars(module).items()):
            if not (inspect.isroutine(value) or inspect.isclass(value)):
                continue
            out[f"{module.__name__}.{name}"] = id(value)
            if inspect.isclass(value) and getattr(value, "__module__", "") == module.__name__:
                for attr, member in list(vars(value).items()):
                    # methods and nested classes, not data: Numba's own counters move as it
                    # compiles (``ArrayAnalysis.aa_count``)
                    if callable(member) or isinstance(member, (classmethod, staticmethod,
                                                                property)):
                        out[f"{module.__name__}.{name}.{attr}"] = id(member)
    return out

watched = [m for name, m in sorted(sys.modules.items())
           if name.startswith(("numba", "pydantic.plugin", "importlib.metadata"))
           and m is not None]
def state():
    return {"attributes": noted(watched),
            "metadata_module": id(sys.modules["importlib.metadata"]),
            "gc_enabled": gc.isenabled(), "gc_frozen": gc.get_freeze_count(),
            "gc_callbacks": len(gc.callbacks), "meta_path": [id(f) for f in sys.meta_path],
            "environ": dict(os.environ)}

before = state()
if sys.argv[1] == "pause":   # a check that the check sees a change of the collector
    gc.disable()
import swarmstack
import swarmstack.sim.simulation
from swarmstack.sim import threads
from swarmstack.sim.simulation import Simulation

cfg = {"arena": {"size": [1.5, 1.5]},
       "boxes": [{"center": [0.0, 0.5], "size": [0.2, 0.1, 0.1]}],
       "robots": [{"name": "e", "type": "epuck2", "count": 12,
                   "sensors": {"proximity": True, "encoders": True, "light": True},
                   "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
Simulation.from_dict(cfg, seed=3, runs=2).run(5)
with threads.using(2, parallel_min=1, chunk_max=4):
    Simulation.from_dict(cfg, seed=3, runs=2).run(5)
after = state()
changed = sorted(k for k in before["attributes"]
                 if after["attributes"].get(k) != before["attributes"][k])
other = sorted(k for k in before if k != "attributes" and before[k] != after[k])
print(json.dumps({"changed": changed, "other": other, "noted": len(before["attributes"])}))
"""


def _run(mode: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS", "OMP_"))}
    env["PYTHONPATH"] = str(ROOT)
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], cwd=ROOT, capture_output=True,
                         text=True, env=env, timeout=900)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_import_and_a_run_leave_numba_pydantic_the_collector_and_the_environment_alone():
    seen = _run("plain")
    assert seen["noted"] > 1000  # Numba's classes and functions were all noted
    assert seen["changed"] == []
    assert seen["other"] == []


def test_the_check_sees_a_change():
    assert _run("pause")["other"] == ["gc_enabled"]
