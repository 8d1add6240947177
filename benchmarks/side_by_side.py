"""ARGoS 3 + E-Puck2 and swarmstack timed side by side, whole processes, interleaved.

For each workload (N robots, one sensor) this writes an .argos file equivalent to
``benchmarks/epuck2_sensors.experiment(N, sensor, "batched", speed)`` — same arena, walls, robot
count, placement area, lights and their colours, floor, spin speed and tick rate — builds the ARGoS
controller in ``benchmarks/argos/`` if needed, then runs ARGoS and swarmstack one after the other,
``--reps`` times, timing each whole process. Needs ARGoS 3 with the E-Puck2 plug-in installed
(``argos3`` on PATH) and CMake with a C++17 compiler.

    python benchmarks/side_by_side.py --reps 3
    python benchmarks/side_by_side.py --workloads 50:proximity,1:encoders --ticks 6000 --reps 2

Prints a table and, as the last line, JSON with every timing.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONTROLLER_SRC = ROOT / "benchmarks" / "argos"
DEFAULT_BUILD = CONTROLLER_SRC / "build"
LIBRARY = "libsensor_bench.so"
TICKS_PER_SECOND = 10            # epuck2_sensors.experiment() runs at 10 ticks/s
EPUCK2_RADIUS_M = 0.035          # both simulators' E-Puck2 body radius
WARMUP_TICKS = 10
DEFAULT_WORKLOADS = "1:encoders,50:proximity,50:light,50:tof,50:camera,50:ground,50:encoders"

# swarmstack sensor name → the E-Puck2 plug-in's sensor element (tag, attributes)
ARGOS_SENSORS = {
    "proximity": ("epuck2_proximity", {"implementation": "default", "show_rays": "false"}),
    "light": ("epuck2_light", {"implementation": "default", "show_rays": "false"}),
    "tof": ("epuck2_tof", {"implementation": "default", "show_rays": "false"}),
    "ground": ("epuck2_ground", {"implementation": "rot_z_only"}),
    "encoders": ("epuck2_encoder", {"implementation": "default"}),
    "camera": ("epuck2_colored_blob_perspective_camera",
               {"implementation": "default", "medium": "leds", "show_rays": "false"}),
}
LED_MEDIUM = "leds"
CHECKSUM = re.compile(r"SENSOR_BENCH checksum=(-?\d+) reads=(\d+) blobs=(\d+)")


class BenchError(Exception):
    """A problem reported to the user as one line, without a traceback."""


@dataclass(frozen=True)
class Workload:
    robots: int
    sensor: str

    @property
    def label(self) -> str:
        return f"{self.robots} {self.sensor}"


def parse_workloads(text: str) -> list[Workload]:
    """``"50:proximity,1:encoders"`` → workloads; each sensor one the ARGoS side can read."""
    out = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        robots, _, sensor = item.partition(":")
        if not robots.isdigit() or int(robots) < 1 or sensor not in ARGOS_SENSORS:
            raise BenchError(f"--workloads: {item!r}: expected ROBOTS:SENSOR with ROBOTS ≥ 1 and "
                             f"SENSOR one of {', '.join(ARGOS_SENSORS)}")
        out.append(Workload(int(robots), sensor))
    if not out:
        raise BenchError("--workloads: expected at least one ROBOTS:SENSOR")
    return out


# ------------------------------------------------------------------------------------- .argos
def _vec(*values: float) -> str:
    # rounded so that cos(pi/2) prints as 0, not 6e-17
    return ",".join(f"{round(v, 9) + 0.0:.9g}" for v in values)


def _argos_color(value) -> str:
    # ARGoS parses "r,g,b,a"; swarmstack's palette resolves the same names to the same bytes
    from swarmstack.world.colors import to_rgb
    return _vec(*to_rgb(value), 255)


def argos_config(workload: Workload, speed_m_s: float, ticks: int, library: str,
                 seed: int = 1) -> str:
    """The .argos XML of ``epuck2_sensors.experiment(N, sensor, "batched", speed)``."""
    from benchmarks.epuck2_sensors import experiment
    cfg = experiment(workload.robots, workload.sensor, "batched", speed_m_s)
    (sx, sy), walls = cfg["arena"]["size"], cfg["arena"]["walls"]
    t, wall_h = walls["thickness"], walls["height"]
    hx, hy = sx / 2, sy / 2
    tps = cfg["simulation"]["ticks_per_second"]
    if tps != TICKS_PER_SECOND:
        raise BenchError(f"epuck2_sensors.experiment() runs at {tps} ticks/s; "
                         f"this generator assumes {TICKS_PER_SECOND}")

    root = ET.Element("argos-configuration")
    fw = ET.SubElement(root, "framework")
    ET.SubElement(fw, "system", threads="0")   # swarmstack's side is timed single-threaded too
    ET.SubElement(fw, "experiment", length=f"{ticks / tps:.10g}", ticks_per_second=str(tps),
                  random_seed=str(seed))

    controllers = ET.SubElement(root, "controllers")
    ctrl = ET.SubElement(controllers, "sensor_bench", id="bench", library=library)
    actuators = ET.SubElement(ctrl, "actuators")
    ET.SubElement(actuators, "differential_steering", implementation="default")
    sensors = ET.SubElement(ctrl, "sensors")
    tag, attrs = ARGOS_SENSORS[workload.sensor]
    ET.SubElement(sensors, tag, **attrs)
    # ARGoS wheel speeds are in cm/s
    ET.SubElement(ctrl, "params", velocity=f"{speed_m_s * 100:.10g}")

    floor = cfg.get("floor") or {}
    if floor:
        from swarmstack.world.colors import to_rgb
        lf = ET.SubElement(root, "loop_functions", library=library, label="uniform_floor")
        ET.SubElement(lf, "floor", grey=str(to_rgb(floor["grey"])[0]))

    margin = 0.1
    arena = ET.SubElement(root, "arena", size=_vec(sx + margin, sy + margin, 1.0),
                          center=_vec(0, 0, 0.5))
    if floor:
        ET.SubElement(arena, "floor", id="floor", source="loop_functions", pixels_per_meter="50")
    # four walls lining the inside of the arena, as swarmstack's arena.wall_boxes(); the east and
    # west walls stop at the north and south ones so no two boxes overlap
    for name, pos, size in (("north", (0, hy - t / 2), (sx, t)), ("south", (0, -hy + t / 2), (sx, t)),
                            ("east", (hx - t / 2, 0), (t, sy - 2 * t)),
                            ("west", (-hx + t / 2, 0), (t, sy - 2 * t))):
        box = ET.SubElement(arena, "box", id=f"wall_{name}", size=_vec(*size, wall_h),
                            movable="false")
        ET.SubElement(box, "body", position=_vec(*pos, 0), orientation="0,0,0")
    for k, light in enumerate(cfg["lights"]):
        ET.SubElement(arena, "light", id=f"light_{k}", position=_vec(*light["position"]),
                      orientation="0,0,0", color=_argos_color(light.get("color", "yellow")),
                      intensity=f"{light.get('intensity', 1.0):.6g}", medium=LED_MEDIUM)
    # swarmstack places robots uniformly where a whole body fits inside the walls, yaw uniform
    free_x, free_y = hx - t - EPUCK2_RADIUS_M, hy - t - EPUCK2_RADIUS_M
    dist = ET.SubElement(arena, "distribute")
    ET.SubElement(dist, "position", method="uniform", min=_vec(-free_x, -free_y, 0),
                  max=_vec(free_x, free_y, 0))
    ET.SubElement(dist, "orientation", method="uniform", min="0,0,0", max="360,0,0")
    entity = ET.SubElement(dist, "entity", quantity=str(workload.robots), max_trials="1000")
    robot = ET.SubElement(entity, "e-puck2", id="ep")
    ET.SubElement(robot, "controller", config="bench")

    engines = ET.SubElement(root, "physics_engines")
    ET.SubElement(engines, "dynamics2d", id="dyn2d")
    media = ET.SubElement(root, "media")
    if cfg["lights"]:
        ET.SubElement(media, "led", id=LED_MEDIUM)
    ET.indent(root)
    return '<?xml version="1.0" ?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# ------------------------------------------------------------------------------------- build
def argos_prefix(argos3: str) -> Path:
    """The install prefix of an ``argos3`` executable (PREFIX/bin/argos3)."""
    return Path(argos3).resolve().parent.parent


def build_controller(build_dir: Path, prefix: Path) -> Path:
    """Configure and build the controller; CMake rebuilds only what changed. Configuring every
    time follows an ``argos3`` that moved to another prefix since the last build."""
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BenchError("cmake is not on PATH; it is needed to build benchmarks/argos/")
    steps = [[cmake, "-S", str(CONTROLLER_SRC), "-B", str(build_dir),
              f"-DARGOS_PREFIX={prefix}", "-DCMAKE_BUILD_TYPE=Release"],
             [cmake, "--build", str(build_dir)]]
    for cmd in steps:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise BenchError(f"building the ARGoS controller failed ({' '.join(cmd)}):\n"
                             f"{(r.stdout + r.stderr)[-3000:]}")
    library = build_dir / LIBRARY
    if not library.exists():
        raise BenchError(f"the build did not produce {library}")
    return library


# ------------------------------------------------------------------------------------- timing
@dataclass
class Run:
    whole_s: float
    user_s: float
    sys_s: float
    stdout: str
    stderr: str


def timed(cmd: list[str], cwd: Path, env=None) -> Run:
    """Run ``cmd`` to completion; wall time of the whole process and its rusage."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if proc.returncode != 0:
        raise BenchError(f"{' '.join(cmd)} exited with {proc.returncode}:\n{stderr[-3000:]}")
    # (no peak memory: a forked child's ru_maxrss counts the Python parent it was forked from)
    return Run(wall, usage.ru_utime, usage.ru_stime, stdout, stderr)


@dataclass
class Result:
    workload: Workload
    argos: list[Run] = field(default_factory=list)
    swarmstack: list[Run] = field(default_factory=list)
    in_loop_s: list[float] = field(default_factory=list)
    checksums: list[tuple[int, int, int]] = field(default_factory=list)

    @property
    def checksum_identical(self) -> bool:
        return len(set(self.checksums)) <= 1


def _spread(values: list[float]) -> dict:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "all": values}


def _fmt(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def swarmstack_command(workload: Workload, ticks: int, speed_m_s: float, threads,
                       controller: str = "batched") -> list[str]:
    cmd = [sys.executable, str(ROOT / "benchmarks" / "epuck2_sensors.py"),
           "--robots", str(workload.robots), "--sensors", workload.sensor,
           "--sim-seconds", f"{ticks / TICKS_PER_SECOND:.10g}",
           "--speed-m-s", f"{speed_m_s:.10g}", "--controller", controller, "--json"]
    if threads is not None:
        cmd += ["--threads", str(threads)]
    return cmd


def run_all(args, argos3: str, library: Path, workdir: Path) -> list[Result]:
    results = [Result(w) for w in args.workloads]
    files = {}
    for res in results:
        w = res.workload
        path = workdir / f"epuck2_{w.robots}_{w.sensor}_spin.argos"
        path.write_text(argos_config(w, args.speed_m_s, args.ticks, str(library), args.seed))
        files[w] = path
    # one short untimed run of each first, so that no timed run pays for filling Numba's cache
    # or reading ARGoS's libraries from disk
    for w in files:
        warm = workdir / f"warmup_{w.robots}_{w.sensor}.argos"
        warm.write_text(argos_config(w, args.speed_m_s, WARMUP_TICKS, str(library), args.seed))
        timed([argos3, "-n", "-z", "-c", str(warm)], cwd=workdir)
        timed(swarmstack_command(w, WARMUP_TICKS, args.speed_m_s, args.threads, args.controller), cwd=ROOT)
    for rep in range(1, args.reps + 1):
        for res in results:
            w = res.workload
            a = timed([argos3, "-n", "-z", "-c", str(files[w])], cwd=workdir)
            m = CHECKSUM.search(a.stderr)
            if m is None:
                raise BenchError(f"ARGoS printed no checksum for {w.label}:\n{a.stderr[-2000:]}")
            res.argos.append(a)
            res.checksums.append(tuple(int(g) for g in m.groups()))
            s = timed(swarmstack_command(w, args.ticks, args.speed_m_s, args.threads, args.controller), cwd=ROOT)
            try:
                res.in_loop_s.append(json.loads(s.stdout.strip().splitlines()[-1])["wall_time_s"])
            except (IndexError, ValueError, KeyError):
                raise BenchError(f"epuck2_sensors.py printed no JSON for {w.label}:\n"
                                 f"{s.stdout[-2000:]}") from None
            res.swarmstack.append(s)
            print(f"rep {rep}/{args.reps} {w.label:>14}: ARGoS {a.whole_s:7.2f} s, "
                  f"swarmstack {s.whole_s:6.2f} s (in loop {res.in_loop_s[-1]:.2f} s)",
                  file=sys.stderr, flush=True)
    return results


def report(results: list[Result], args, load_before, load_after) -> dict:
    print(f"\n{args.ticks} ticks, {args.reps} interleaved repetitions, spin ±{args.speed_m_s:g} m/s, "
          f"swarmstack's {args.controller} controller; whole-process wall s: median (min–max)")
    head = (f"{'workload':>14} | {'ARGoS whole s':>20} | {'swarmstack whole s':>20} | "
            f"{'swarmstack in-loop s':>20} | {'ARGoS/swarmstack':>16}")
    print(head)
    print("-" * len(head))
    rows = []
    for res in results:
        a = [r.whole_s for r in res.argos]
        s = [r.whole_s for r in res.swarmstack]
        ratio = statistics.median(a) / statistics.median(s)
        print(f"{res.workload.label:>14} | {_fmt(a):>20} | {_fmt(s):>20} | "
              f"{_fmt(res.in_loop_s):>20} | {ratio:>16.2f}")
        checksum, reads, blobs = res.checksums[0]
        a_cpu = [r.user_s + r.sys_s for r in res.argos]
        s_cpu = [r.user_s + r.sys_s for r in res.swarmstack]
        rows.append({
            "robots": res.workload.robots, "sensor": res.workload.sensor,
            "argos_whole_s": _spread(a), "swarmstack_whole_s": _spread(s),
            "swarmstack_in_loop_s": _spread(res.in_loop_s),
            "ratio_argos_over_swarmstack": ratio,
            "argos_cpu_s": _spread(a_cpu), "swarmstack_cpu_s": _spread(s_cpu),
            "cpu_ratio_argos_over_swarmstack": statistics.median(a_cpu) / statistics.median(s_cpu),
            "argos_user_s": [r.user_s for r in res.argos],
            "argos_sys_s": [r.sys_s for r in res.argos],
            "swarmstack_user_s": [r.user_s for r in res.swarmstack],
            "swarmstack_sys_s": [r.sys_s for r in res.swarmstack],
            "argos_checksum": checksum, "argos_reads": reads, "argos_camera_blobs": blobs,
            "argos_checksums": [c[0] for c in res.checksums],
            "argos_checksum_identical": res.checksum_identical,
        })
    # on a shared machine wall time also counts the time other programs held the CPU;
    # CPU time (user + sys) of each process does not
    print("\nCPU s (user + sys) of the same processes: median (min–max)")
    print(f"{'workload':>14} | {'ARGoS cpu s':>20} | {'swarmstack cpu s':>20} | {'ARGoS/swarmstack':>16}")
    for res, row in zip(results, rows):
        a_cpu, s_cpu = row["argos_cpu_s"]["all"], row["swarmstack_cpu_s"]["all"]
        print(f"{res.workload.label:>14} | {_fmt(a_cpu):>20} | {_fmt(s_cpu):>20} | "
              f"{row['cpu_ratio_argos_over_swarmstack']:>16.2f}")
    print("\nARGoS checksums (sum of every reading):")
    for res, row in zip(results, rows):
        same = "identical in every run" if row["argos_checksum_identical"] else \
            f"DIFFERS between runs: {row['argos_checksums']}"
        extra = f", {row['argos_camera_blobs']} blobs" if res.workload.sensor == "camera" else ""
        print(f"{res.workload.label:>14}: {row['argos_checksum']} over {row['argos_reads']} reads"
              f"{extra}, {same}")
    print(f"load average (1, 5, 15 min): before {_vec(*load_before)}, after {_vec(*load_after)}")
    return {"ticks": args.ticks, "reps": args.reps, "speed_m_s": args.speed_m_s, "seed": args.seed,
            "threads": args.threads, "controller": args.controller, "load_average_before": list(load_before),
            "load_average_after": list(load_after), "workloads": rows}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog="Needs ARGoS 3 with the E-Puck2 plug-in installed "
                                       "(argos3 on PATH) and CMake.")
    p.add_argument("--workloads", default=DEFAULT_WORKLOADS, metavar="N:SENSOR,…",
                   help=f"robots:sensor pairs, comma-separated (default {DEFAULT_WORKLOADS})")
    p.add_argument("--ticks", type=int, default=72_000,
                   help="ticks per run at 10 ticks/s (default 72 000 = 2 simulated hours)")
    p.add_argument("--reps", type=int, default=3,
                   help="interleaved repetitions of every workload (default 3)")
    p.add_argument("--speed-m-s", type=float, default=0.075,
                   help="wheel speed of the spin in both simulators, m/s (default 0.075)")
    p.add_argument("--seed", type=int, default=1, help="ARGoS random_seed (default 1)")
    p.add_argument("--threads", type=int, default=None,
                   help="passed to epuck2_sensors.py --threads (omitted unless given)")
    p.add_argument("--controller", choices=("batched", "per-robot"), default="batched",
                   help="swarmstack's controller form (default batched: one call a tick for "
                        "the group); per-robot is one call per robot, as ARGoS's controller")
    p.add_argument("--build-dir", type=Path, default=DEFAULT_BUILD,
                   help="where the ARGoS controller is built (default benchmarks/argos/build)")
    p.add_argument("--keep", type=Path, default=None, metavar="DIR",
                   help="write the .argos files to DIR and keep them (default: a temporary folder)")
    a = p.parse_args(argv)
    try:
        a.workloads = parse_workloads(a.workloads)
        if a.ticks < 1 or a.reps < 1:
            raise BenchError("--ticks and --reps must be at least 1")
        if not a.speed_m_s >= 0 or not math.isfinite(a.speed_m_s):
            raise BenchError("--speed-m-s must be a finite speed ≥ 0")
        argos3 = shutil.which("argos3")
        if argos3 is None:
            raise BenchError("argos3 is not on PATH: this benchmark needs ARGoS 3 with the "
                             "E-Puck2 plug-in installed")
        library = build_controller(a.build_dir.resolve(), argos_prefix(argos3))
        load_before = os.getloadavg()
        if a.keep is not None:
            a.keep.mkdir(parents=True, exist_ok=True)
            results = run_all(a, argos3, library, a.keep.resolve())
        else:
            with tempfile.TemporaryDirectory(prefix="side_by_side_") as tmp:
                results = run_all(a, argos3, library, Path(tmp))
        load_after = os.getloadavg()
    except BenchError as exc:
        print(f"side_by_side: {exc}", file=sys.stderr)
        return 2
    summary = report(results, a, load_before, load_after)
    print(json.dumps(summary))
    return 0 if all(r["argos_checksum_identical"] for r in summary["workloads"]) else 1


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
