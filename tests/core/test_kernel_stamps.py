"""A cached kernel is compiled again when a module it uses changes (``swarmstack.kernel_stamps``).

Numba alone would keep loading a kernel whose own file is unchanged although a function it
calls, from another file, was edited: the result would come from the old code. Each process
below is fresh, with its own Numba cache folder, as after an update.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

RUN = """
import json, sys
from swarmstack import kernel_stamps
kernel_stamps.ROOTS.append(sys.argv[1])
sys.path.insert(0, sys.argv[2])
from pkgx.kern import k, own
print(json.dumps({"k": k(1.0), "own": own(1.0), "hits": k.stats.cache_hits.get(k.signatures[0], 0)
                  if k.signatures else None}))
"""

HELPER = """
from numba import njit

STEP = {step}

@njit(cache=True, inline="always")
def bump(x):
    return x + STEP
"""

KERNEL = """
from numba import njit
from pkgx.helper import bump

@njit(cache=True)
def k(x):
    return bump(x) * 10.0

@njit(cache=True)
def own(x):
    return x * 3.0
"""


def _run(site: Path, cache: Path, watch: bool = True) -> dict:
    # no bytecode cache: a file rewritten within the same second with the same size would
    # otherwise be run from its old bytecode, whatever the kernels' stamps say
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "NUMBA_CACHE_DIR": str(cache),
           "PYTHONDONTWRITEBYTECODE": "1"}
    roots = str(site / "pkgx") if watch else str(site / "elsewhere")
    out = subprocess.run([sys.executable, "-c", RUN, roots, str(site)], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _package(site: Path, step: int) -> None:
    pkg = site / "pkgx"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text(HELPER.format(step=step))
    (pkg / "kern.py").write_text(KERNEL)


def test_a_kernel_is_compiled_again_when_a_module_it_calls_changes(tmp_path):
    site, cache = tmp_path / "site", tmp_path / "cache"
    _package(site, 1)
    first = _run(site, cache)
    assert first["k"] == 20.0
    again = _run(site, cache)
    assert again["k"] == 20.0 and again["hits"] == 1   # unchanged: loaded from the cache
    _package(site, 2)                                    # only the helper's file changes
    after = _run(site, cache)
    assert after["k"] == 30.0 and after["hits"] == 0     # compiled again, the new code
    assert _run(site, cache)["hits"] == 1                # and cached again


def test_without_the_stamp_numba_would_run_the_old_code(tmp_path):
    """The hazard the stamp removes: a kernel outside the watched folders keeps Numba's own
    stamp, and a changed helper leaves its cached machine code in use."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    _package(site, 1)
    assert _run(site, cache, watch=False)["k"] == 20.0
    _package(site, 2)
    assert _run(site, cache, watch=False)["k"] == 20.0


def test_the_package_kernels_carry_the_stamp_of_what_they_import():
    code = ("import sys, swarmstack, numba\n"
            "from swarmstack.sensors import tof\n"
            "from swarmstack.kernel_stamps import ImportsStamp, _imported_files\n"
            "stamp = tof.transfer._cache._cache_file._source_stamp\n"
            "files = sorted(p.split('swarmstack/')[-1] for p in _imported_files(tof))\n"
            "print(isinstance(stamp, ImportsStamp), files)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("True")
    for needed in ("geometry/rays.py", "sensors/ranging.py", "sensors/noise.py", "world/rng.py"):
        assert needed in out.stdout


def test_a_kernels_stamp_does_not_depend_on_what_else_is_loaded():
    """The digest of what a kernel's module imports is the same in a one-robot run and in a
    process that loaded every module of the package (``swarmstack compile`` runs every robot
    type): otherwise the cache and the kernels built ahead would not be found by small runs. A
    kernel module that imported a package by name (its namespace grows with the submodules
    others load) failed this."""
    code = """
import importlib, json, pkgutil, sys
import swarmstack
from swarmstack.experiments.simulation import Simulation
from swarmstack.kernels import declare
from swarmstack.kernels.ahead import _digest_of
from swarmstack.kernel_stamps import imports_digest
sim = Simulation.from_dict({"arena": {"size": [1.0, 1.0]}, "robots": [{"name": "e", "count": 1,
    "sensors": {"encoders": True, "battery": {"model": "cubic"}, "proximity": True},
    "controller": {"python": "tests.core.controllers:RandomWheels"}}]}, seed=1)
sim.run(3)
def digests():
    imports_digest.cache_clear()
    return {k.py_func.__module__: _digest_of(k) for k in declare.declared()}
before = digests()
for m in pkgutil.walk_packages(swarmstack.__path__, "swarmstack."):
    try:
        importlib.import_module(m.name)
    except Exception:   # an optional extra not installed
        pass
after = digests()
print(json.dumps({"checked": len(before),
                  "changed": sorted(k for k in before if after.get(k) != before[k])}))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["checked"] > 5 and result["changed"] == []
