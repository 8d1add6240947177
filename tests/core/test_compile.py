"""`swarmstack compile`: every robot type's warm-up scene is a valid experiment that switches
on all its devices, and the command compiles (here: loads) them and says so."""

import subprocess
import sys

import pytest

import swarmstack.robots  # noqa: F401
from swarmstack.sim import threads
from swarmstack.sim.warm_cache import compile_kernels, scene
from swarmstack.experiments.config import parse_experiment
from swarmstack.robots import base


@pytest.mark.parametrize("name", sorted(base.ROBOT_TYPES))
def test_scene_switches_on_every_device(name):
    cfg = parse_experiment(scene(name), f"<{name}>")
    (group,) = cfg.robots
    assert group.type == name
    assert set(group.sensors) == set(base.get(name).devices)
    assert group.radio_on == (base.get(name).radio is not None)
    assert cfg.boxes and cfg.cylinders and cfg.lights


def test_compile_runs_each_type_on_one_thread_then_parallel_and_restores_settings():
    before = (threads.threads(), threads.parallel_min(), threads.chunk(10**9))
    seen = []
    done = compile_kernels(["epuck2"], on_done=seen.append)
    assert done == seen
    assert [c.robot_type for c in done] == ["epuck2"] * len(done)
    expected = [1, 2] if threads.machine_threads() > 1 else [1]
    assert [c.threads for c in done] == expected
    assert (threads.threads(), threads.parallel_min(), threads.chunk(10**9)) == before


def _cli(*args):
    return subprocess.run([sys.executable, "-c", "from swarmstack.cli import main; main()",
                           "compile", *args], capture_output=True, text=True, timeout=600)


def test_cli_compile_reports_each_pass_with_its_progress():
    p = _cli("rvr")
    assert p.returncode == 0, p.stderr
    steps = 2 if threads.machine_threads() > 1 else 1
    assert "rvr: serial kernels ready in" in p.stderr
    assert "compiling kernels" in p.stderr and f"{steps}/{steps}" in p.stderr
    assert "kernels compiled in" in p.stdout


def test_cli_compile_unknown_type_is_a_clear_error():
    p = _cli("roomba")
    assert p.returncode == 2
    assert "unknown robot type 'roomba'" in p.stderr and "epuck2" in p.stderr
    assert "Traceback" not in p.stderr
