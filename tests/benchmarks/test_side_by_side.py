"""The ARGoS side-by-side benchmark's generator and its refusals (no ARGoS needed)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from benchmarks import side_by_side as sbs
from benchmarks.epuck2_sensors import experiment

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "side_by_side.py"
WORKLOADS = sbs.parse_workloads(sbs.DEFAULT_WORKLOADS)
SENSOR_TAGS = {"proximity": "epuck2_proximity", "light": "epuck2_light", "tof": "epuck2_tof",
               "ground": "epuck2_ground", "encoders": "epuck2_encoder",
               "camera": "epuck2_colored_blob_perspective_camera"}


def floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def generate(w, speed=0.075, ticks=72_000) -> ET.Element:
    return ET.fromstring(sbs.argos_config(w, speed, ticks, "/lib/libsensor_bench.so"))


def test_default_workloads_cover_every_sensor_with_50_robots_and_one_lone_robot():
    assert {w.sensor for w in WORKLOADS if w.robots == 50} == set(SENSOR_TAGS)
    assert sbs.Workload(1, "encoders") in WORKLOADS


@pytest.mark.parametrize("w", WORKLOADS, ids=lambda w: f"{w.robots}-{w.sensor}")
def test_argos_file_matches_the_swarmstack_experiment(w):
    root = generate(w)
    cfg = experiment(w.robots, w.sensor, "batched", 0.075)
    exp = root.find("framework/experiment")
    assert float(exp.get("length")) * float(exp.get("ticks_per_second")) == 72_000
    assert float(exp.get("ticks_per_second")) == cfg["simulation"]["ticks_per_second"]
    assert root.find("framework/system").get("threads") == "0"

    ctrl = root.find("controllers/sensor_bench")
    assert [s.tag for s in ctrl.find("sensors")] == [SENSOR_TAGS[w.sensor]]
    assert float(ctrl.find("params").get("velocity")) == pytest.approx(7.5)   # cm/s
    assert ctrl.find("actuators/differential_steering") is not None

    entity = root.find("arena/distribute/entity")
    assert int(entity.get("quantity")) == w.robots
    assert entity.find("e-puck2/controller").get("config") == ctrl.get("id")

    # walls: four boxes whose inner faces enclose the arena shrunk by the wall thickness
    side = cfg["arena"]["size"][0]
    t = cfg["arena"]["walls"]["thickness"]
    boxes = root.findall("arena/box")
    assert len(boxes) == 4
    inner = []
    for box in boxes:
        sx, sy, sz = floats(box.get("size"))
        px, py, _ = floats(box.find("body").get("position"))
        assert sz == pytest.approx(cfg["arena"]["walls"]["height"])
        assert box.get("movable") == "false"
        inner.append(abs(py) - sy / 2 if sx > sy else abs(px) - sx / 2)
        assert min(sx, sy) == pytest.approx(t)
    assert inner == pytest.approx([side / 2 - t] * 4)
    lo = floats(root.find("arena/distribute/position").get("min"))
    hi = floats(root.find("arena/distribute/position").get("max"))
    assert hi[:2] == pytest.approx([side / 2 - t - 0.035] * 2)
    assert lo[:2] == pytest.approx([-(side / 2 - t - 0.035)] * 2)

    lights = root.findall("arena/light")
    assert len(lights) == len(cfg["lights"])
    for light, want in zip(lights, cfg["lights"]):
        assert floats(light.get("position")) == pytest.approx(want["position"], abs=1e-9)
        assert light.get("medium") == root.find("media/led").get("id")
    if w.sensor == "camera":
        assert [light.get("color") for light in lights] == [
            "255,0,0,255", "0,255,0,255", "0,0,255,255", "255,255,0,255", "0,255,255,255",
            "255,0,255,255", "255,255,255,255", "255,140,0,255"]
        assert ctrl.find("sensors")[0].get("medium") == root.find("media/led").get("id")

    floor = root.find("arena/floor")
    if w.sensor == "ground":
        assert floor.get("source") == "loop_functions"
        lf = root.find("loop_functions")
        assert lf.get("label") == "uniform_floor"
        assert int(lf.find("floor").get("grey")) in (127, 128)   # grey 0.5 in bytes
    else:
        assert floor is None and root.find("loop_functions") is None


def test_light_workload_places_six_lights_as_the_swarmstack_benchmark_does():
    lights = generate(sbs.Workload(50, "light")).findall("arena/light")
    got = sorted(c for light in lights for c in [tuple(floats(light.get("position")))])
    want = sorted((x * 0.5, y * 0.5, 0.1) for x in (-1, 0, 1) for y in (-1, 1))
    assert [c for p in got for c in p] == pytest.approx([c for p in want for c in p])


def test_arena_grows_with_the_robot_count_and_speed_and_ticks_follow_the_options():
    root = generate(sbs.Workload(200, "proximity"), speed=0.03, ticks=600)
    assert float(root.find("framework/experiment").get("length")) == pytest.approx(60.0)
    assert float(root.find("controllers/sensor_bench/params").get("velocity")) == pytest.approx(3.0)
    hi = floats(root.find("arena/distribute/position").get("max"))
    assert hi[0] == pytest.approx(2.0 - 0.02 - 0.035)   # 4 × 4 m for 200 robots


def test_swarmstack_command_passes_speed_and_threads_only_when_given():
    w = sbs.Workload(50, "tof")
    cmd = sbs.swarmstack_command(w, 72_000, 0.075, None)
    assert cmd[cmd.index("--sim-seconds") + 1] == "7200"
    assert cmd[cmd.index("--speed-m-s") + 1] == "0.075"
    assert cmd[cmd.index("--sensors") + 1] == "tof" and "--json" in cmd
    assert "--threads" not in cmd
    cmd = sbs.swarmstack_command(w, 72_000, 0.075, 2)
    assert cmd[cmd.index("--threads") + 1] == "2"
    assert cmd[cmd.index("--controller") + 1] == "batched"
    cmd = sbs.swarmstack_command(w, 72_000, 0.075, None, "per-robot")
    assert cmd[cmd.index("--controller") + 1] == "per-robot"


def run_script(*args, path: str):
    env = {k: v for k, v in os.environ.items() if k != "PATH"}
    env["PATH"] = path
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_without_argos3_on_path_the_script_says_so_and_fails(tmp_path):
    r = run_script("--reps", "1", "--ticks", "10", path=str(tmp_path))
    assert r.returncode != 0
    assert "argos3 is not on PATH" in r.stderr
    assert "ARGoS 3 with the E-Puck2 plug-in installed" in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("spec", ["50:sonar", "x:proximity", "0:tof", ","])
def test_a_malformed_workload_is_one_line_not_a_traceback(spec, tmp_path):
    r = run_script("--workloads", spec, path=str(tmp_path))
    assert r.returncode == 2
    assert "--workloads" in r.stderr and "Traceback" not in r.stderr


def test_help_lists_the_options_the_docs_use(tmp_path):
    r = run_script("--help", path=str(tmp_path))
    assert r.returncode == 0
    for flag in ("--workloads", "--reps", "--ticks", "--speed-m-s", "--threads", "--controller"):
        assert flag in r.stdout


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_an_argos_without_the_epuck2_plugin_is_reported_when_building(tmp_path):
    fake = tmp_path / "prefix" / "bin" / "argos3"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    cmake_dir = str(Path(shutil.which("cmake")).parent)
    r = run_script("--workloads", "1:encoders", "--reps", "1", "--ticks", "10",
                   "--build-dir", str(tmp_path / "build"), path=f"{fake.parent}:{cmake_dir}")
    assert r.returncode == 2
    assert "building the ARGoS controller failed" in r.stderr
    assert "no E-Puck2 plug-in headers" in r.stderr
    assert "Traceback" not in r.stderr


def fake_run(whole: float, cpu: float) -> sbs.Run:
    return sbs.Run(whole_s=whole, user_s=cpu, sys_s=0.0, stdout="", stderr="")


def test_report_gives_medians_ratios_and_flags_a_checksum_that_changed(capsys):
    class Args:
        ticks, reps, speed_m_s, seed, threads, controller = 100, 3, 0.075, 1, None, "per-robot"

    steady = sbs.Result(sbs.Workload(50, "proximity"),
                        argos=[fake_run(w, 9.0) for w in (10.0, 12.0, 30.0)],
                        swarmstack=[fake_run(w, 1.5) for w in (2.0, 3.0, 2.5)],
                        in_loop_s=[1.0, 1.2, 1.1], checksums=[(7, 100, 0)] * 3)
    changed = sbs.Result(sbs.Workload(1, "encoders"),
                         argos=[fake_run(0.3, 0.3)] * 3, swarmstack=[fake_run(1.0, 0.9)] * 3,
                         in_loop_s=[0.2] * 3, checksums=[(-99, 100, 0), (-98, 100, 0), (-99, 100, 0)])
    summary = sbs.report([steady, changed], Args, (1.0, 1.0, 1.0), (2.0, 2.0, 2.0))
    out = capsys.readouterr().out
    first, second = summary["workloads"]
    assert first["argos_whole_s"]["median"] == 12.0 and first["argos_whole_s"]["max"] == 30.0
    assert first["ratio_argos_over_swarmstack"] == pytest.approx(12.0 / 2.5)
    assert first["cpu_ratio_argos_over_swarmstack"] == pytest.approx(9.0 / 1.5)
    assert first["argos_checksum_identical"] and not second["argos_checksum_identical"]
    assert "DIFFERS" in out and "7 over 100 reads, identical" in out
    assert "per-robot controller" in out and summary["controller"] == "per-robot"
