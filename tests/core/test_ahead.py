"""Kernels built ahead of time: a small run starts without Numba and gives the same bits.

``swarmstack compile`` (which the set-up runs) builds the serial kernels into an extension
module. A run whose kernels are all in it never imports Numba; every reading and pose is the
same bits as through Numba; a kernel whose sources changed since the build goes to Numba.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.experiments.compile import scene, variants
from swarmstack.experiments.simulation import Simulation
from swarmstack.kernels import ahead

ROOT = Path(__file__).resolve().parents[2]

def moving_and_noisy(cfg: dict) -> dict:
    """A warm-up scene whose devices add noise (the robots' random streams matter) and whose
    wheeled robots drive at random."""
    from swarmstack.robots import base

    group = cfg["robots"][0]
    devices = base.get(group["type"]).devices
    for name, options in list(group["sensors"].items()):
        fields = devices[name].options.model_fields
        if "noise" in fields and "level" in fields:
            group["sensors"][name] = {**(options if isinstance(options, dict) else {}),
                                      "level": 0.05}
            group["sensors"][name].setdefault("noise", "uniform")
            if group["sensors"][name]["noise"] == "none":
                group["sensors"][name]["noise"] = "uniform"
    if group["type"] in ("epuck2", "rvr"):
        group["controller"] = {"python": "tests.core.controllers:RandomWheels"}
    return cfg


RUN = """
import json, sys
from swarmstack.experiments.compile import scene, variants
from swarmstack.experiments.simulation import Simulation
from tests.core.test_ahead import moving_and_noisy
out = {}
for name in ("epuck2", "crazyflie", "rvr"):
    for count, runs in ((1, 1), (3, 2)):
        cfg = moving_and_noisy(scene(name, count))
        sim = Simulation.from_dict(cfg, seed=3, runs=runs)
        sim.run(12)
        g = sim.groups[0]
        out[f"{name}-{count}"] = {
            "pose": sim.world.bodies.pose.tobytes().hex(),
            "readings": {k: v.tobytes().hex() for k, v in sorted(g.readings.items())}}
print(json.dumps({"numba": "numba" in sys.modules, "runs": out}))
"""


def _run(code: str, **env) -> dict:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "SWARMSTACK_THREADS": "1",
                              **env})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _built() -> None:
    if not (ahead.folder() / ahead.MANIFEST).is_file():
        pytest.fail("no kernels built ahead of time: the set-up runs `swarmstack compile`")


def test_small_runs_of_every_robot_type_start_without_numba_and_match_it_bit_for_bit():
    _built()
    built = _run(RUN)
    through_numba = _run(RUN, SWARMSTACK_AHEAD="0")
    assert built["numba"] is False
    assert through_numba["numba"] is True
    assert built["runs"].keys() == through_numba["runs"].keys()
    for name, run in built["runs"].items():
        assert run == through_numba["runs"][name], name


@settings(max_examples=8, deadline=None)
@given(count=st.integers(1, 6), runs=st.integers(1, 2), seed=st.integers(0, 2 ** 32 - 1),
       name=st.sampled_from(["epuck2", "crazyflie", "rvr"]), variant=st.integers(0, 3))
def test_readings_built_ahead_are_numbas_on_random_scenes(count, runs, seed, name, variant):
    """In one process: the tick's bound kernels run the machine code built ahead, unless it is
    switched off."""
    _built()
    cfg = moving_and_noisy(scene(name, count, variant % variants(name)))

    def run():
        sim = Simulation.from_dict(cfg, seed=seed, runs=runs)
        sim.run(8)
        return sim.world.bodies.pose.copy(), {k: v.copy() for k, v in
                                              sim.groups[0].readings.items()}

    with ahead.disabled():
        pose_numba, readings_numba = run()
    pose, readings = run()
    assert pose.tobytes() == pose_numba.tobytes()
    assert readings.keys() == readings_numba.keys()
    for k in readings:
        assert readings[k].tobytes() == readings_numba[k].tobytes(), k


KERNEL = """
import numpy as np
from swarmstack.kernels import njit

@njit(cache=True, error_model="numpy")
def scale(a, k):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = a[i] * k + {offset}
    return out
"""

CALL = """
import json, sys
from pathlib import Path
import numpy as np
sys.path.insert(0, {folder!r})
import kmod
from swarmstack.kernels import ahead
r = kmod.scale(np.arange(3.0), 2.0)
if {build}:
    built = ahead.build(roots=[{folder!r}])
    assert built.path is not None, built.skipped
    # a folder that cannot be made: nothing built, and it says why
    (Path({folder!r}) / "a file").write_text("")
    refused = ahead.build(Path({folder!r}) / "a file" / "ahead", roots=[{folder!r}])
    assert refused.path is None and refused.skipped.startswith("cannot write"), refused
print(json.dumps({{"r": r.tolist(), "numba": "numba" in sys.modules}}))
"""


def test_a_kernel_changed_since_the_build_goes_to_numba(tmp_path):
    """Built ahead from one source, run without Numba; once the source changes, Numba compiles
    the new code (and the old machine code is not used)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "kmod.py").write_text(KERNEL.format(offset="1.0"))
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first = _run(CALL.format(folder=str(src), build=True), **env)
    assert first == {"r": [1.0, 3.0, 5.0], "numba": True}
    assert (tmp_path / "cache" / "ahead" / ahead.MANIFEST).is_file()

    again = _run(CALL.format(folder=str(src), build=False), **env)
    assert again == {"r": [1.0, 3.0, 5.0], "numba": False}

    (src / "kmod.py").write_text(KERNEL.format(offset="10.0"))
    changed = _run(CALL.format(folder=str(src), build=False), **env)
    assert changed == {"r": [10.0, 12.0, 14.0], "numba": True}

    # another argument type than the build's: Numba, same answer as before
    other = _run(textwrap.dedent(f"""
        import json, sys
        import numpy as np
        sys.path.insert(0, {str(src)!r})
        import kmod
        r = kmod.scale(np.arange(3, dtype=np.float32), 2.0)
        print(json.dumps({{"r": r.tolist(), "numba": "numba" in sys.modules}}))
        """), **env)
    assert other == {"r": [10.0, 12.0, 14.0], "numba": True}


ONE_ROBOT = """
import json, sys
from swarmstack.experiments.compile import scene
from swarmstack.experiments.simulation import Simulation
Simulation.from_dict(scene({name!r}, 1), seed=1).run(2)
print(json.dumps({{"numba": "numba" in sys.modules}}))
"""


def test_switched_off_for_a_process_by_the_environment():
    _built()
    code = ONE_ROBOT.format(name="rvr")
    assert _run(code, SWARMSTACK_AHEAD="0") == {"numba": True}
    assert _run(code) == {"numba": False}


LIGHT = """
import json, sys
from swarmstack.experiments.simulation import Simulation
from swarmstack.kernels import declare
declare.AHEAD_CALLS = 40
sim = Simulation.from_dict({"arena": {"size": [1.0, 1.0]},
                           "lights": [{"position": [0.1, 0.0, 0.05]}],
                           "robots": [{"name": "g", "count": 3, "sensors": {"light": True},
                                       "controller": {"python": "tests.core.controllers:Spin"}}]},
                          seed=1)
light, started = [], []
for _ in range(60):
    sim.step()
    light.append(sim.readings("g")["light"].tobytes().hex())
    started.append("numba" in sys.modules)
print(json.dumps({"light": light, "numba_from": started.index(True) if True in started else None}))
"""


def test_a_kernel_built_ahead_for_the_start_goes_to_numba_after_its_first_calls():
    """The E-Puck2's light sensors (``ahead="start"``): a run starts without Numba, its bound
    call runs Numba's code after ``AHEAD_CALLS`` ticks, and every reading is Numba's own."""
    _built()
    built = _run(LIGHT)
    through_numba = _run(LIGHT, SWARMSTACK_AHEAD="0")
    assert 30 < built["numba_from"] < 50
    assert through_numba["numba_from"] == 0
    assert built["light"] == through_numba["light"]
    assert len(set(built["light"])) > 10  # the robots turn: their readings change


def test_machine_code_built_ahead_refuses_nothing_it_was_not_built_for():
    """A call with another layout of the same arrays goes to Numba's dispatcher and still
    computes the right thing."""
    from swarmstack.sensors.encoders import encoder_kernel

    speed = np.array([[0.05, -0.02], [0.1, 0.0]])
    keys = np.zeros((2, 4), dtype=np.uint64)
    acc, out = np.zeros((2, 2)), np.zeros((2, 2), dtype=np.int32)
    encoder_kernel(speed, 0.1, 7800.0, 0, 0.0, keys[:, 1], 3, acc, out)
    fortran = np.asfortranarray(np.zeros((2, 2), dtype=np.int32))
    encoder_kernel(speed, 0.1, 7800.0, 0, 0.0, keys[:, 1], 3, np.zeros((2, 2)), fortran)
    assert fortran.tolist() == out.tolist()


def test_a_kernel_called_often_goes_to_numbas_dispatcher():
    """Unbound calls pay for working out their types in Python: after ``AHEAD_CALLS`` of them
    a kernel starts Numba, and computes the same. Numba started so, during a run, sets what
    its import made aside from the garbage collector, which is on again after."""
    _built()
    code = textwrap.dedent("""
        import gc, json, sys
        import numpy as np
        from swarmstack.kernels import declare
        from swarmstack.world.rng import uniform_array
        gc.enable()
        frozen = gc.get_freeze_count()
        keys = np.arange(3, dtype=np.uint64)
        first = uniform_array(keys, 7, 2)
        started = "numba" in sys.modules
        for _ in range(declare.AHEAD_CALLS):
            uniform_array(keys, 7, 2)
        print(json.dumps({"started_at_once": started, "started": "numba" in sys.modules,
                          "same": uniform_array(keys, 7, 2).tobytes() == first.tobytes(),
                          "collector_on": gc.isenabled(),
                          "set_aside": gc.get_freeze_count() - frozen > 10_000}))
        """)
    assert _run(code) == {"started_at_once": False, "started": True, "same": True,
                          "collector_on": True, "set_aside": True}
