"""E-Puck2 sensor cost, after the E-Puck2 paper's §4.3 and our ARGoS anchors.

N robots placed uniformly (uniform heading) in a square arena closed by four walls — 2 × 2 m for
50 robots, scaled to keep 50 robots per 4 m² — each rotating on the spot (+5/−5 cm/s) and
reading one enabled sensor every tick, at 10 ticks/s. Light uses 6 lights, camera 8, ground a
grey floor. Prints one JSON object (``--json``) or a table.

    python benchmarks/epuck2_sensors.py --robots 50 --sensors proximity --sim-seconds 7200 --json
    python benchmarks/epuck2_sensors.py --robots 10000 --sim-seconds 60 --threads 1 --json

The figures are in-loop (``sim.run`` only: ``wall_time_s``, ``robot_ticks_per_s``). With
``--whole-process`` each measurement runs in a fresh Python process, timed from its start to
its end as a user feels it (``whole_process_s``: interpreter, imports, kernel cache, set-up,
the run, exit) and to its first tick (``first_tick_s``), each also in CPU time (user + system,
``whole_process_cpu_s``, ``first_tick_cpu_s``: steadier than wall time on a shared machine);
``--repeat K`` takes the median of K processes.

With ``--command`` (and ``--whole-process``) each process is instead the ``swarmstack run``
command on the same experiment written as a TOML file (nothing logged), timed from its start to
its exit (``command_s``, ``command_cpu_s``): with ``--sim-seconds 0.1`` (one tick) that is the
time from the command to its first tick, plus writing ``summary.json`` and exiting.

``--threads N`` runs the kernels on N threads (0, the default: every usable core); the JSON
reports the count used. ``--motion wander`` replaces the spin by random wheel speeds, so that
the robots collide (the contact pass's worst case; not the paper's workload).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swarmstack.sim import threads  # noqa: E402
from swarmstack.sim.simulation import Simulation  # noqa: E402

SENSORS = ("none", "proximity", "light", "ground", "tof", "encoders", "camera", "battery")
READING = {"tof": "tof_mm"}


PAPER_SPEEDS_M_S = [k * 0.015 for k in range(11)]  # 0, 1.5, …, 15 cm/s (§4.3)


def experiment(robots: int, sensor: str, controller: str, speed_m_s: float = 0.05,
               battery_model: str = "cubic", runs_per_speed: int = 0,
               motion: str = "spin") -> dict:
    side = 2.0 * math.sqrt(max(robots, 50) / 50.0)
    h = side / 2
    lights = []
    if sensor == "light":
        lights = [{"position": [x * h / 2, y * h / 2, 0.1]} for x in (-1, 0, 1) for y in (-1, 1)]
    elif sensor == "camera":
        lights = [{"position": [h * 0.8 * math.cos(a), h * 0.8 * math.sin(a), 0.1],
                   "color": c}
                  for a, c in zip([k * math.pi / 4 for k in range(8)],
                                  ["red", "green", "blue", "yellow", "cyan", "magenta",
                                   "white", "orange"])]
    sensors = {}
    if sensor == "battery":
        sensors["battery"] = {"model": battery_model}
    elif sensor != "none":
        sensors[sensor] = True
    ctrl = "SpinBatched" if controller == "batched" else "Spin"
    if motion == "wander":  # batched only: robots collide (not the paper's workload)
        ctrl = "WanderBatched"
    params = {"speed": speed_m_s,
              "sensor": READING.get(sensor, sensor) if sensor != "none" else None}
    if runs_per_speed:
        ctrl = "SpinStudy"
        params.update(speeds=PAPER_SPEEDS_M_S, runs_per_speed=runs_per_speed)
    return {
        "simulation": {"ticks_per_second": 10},
        "arena": {"size": [side, side], "walls": {"thickness": 0.02, "height": 0.1}},
        "lights": lights,
        "floor": {"grey": 0.5} if sensor == "ground" else {},
        "robots": [{
            "name": "epuck2", "type": "epuck2", "count": robots,
            "sensors": sensors,
            "controller": {"python": f"benchmarks.controllers:{ctrl}", "params": params},
        }],
    }


def measure(robots: int, sensor: str, sim_seconds: float, runs: int, controller: str,
            seed: int = 1, speed_m_s: float = 0.05, runs_per_speed: int = 0,
            motion: str = "spin") -> dict:
    cfg = experiment(robots, sensor, controller, speed_m_s, runs_per_speed=runs_per_speed,
                     motion=motion)
    t_setup = time.perf_counter()
    sim = Simulation.from_dict(cfg, seed=seed, runs=runs)
    sim.start()
    sim.step()  # compile/load every kernel outside the timed part
    first_tick = time.monotonic()  # the system-wide clock: a parent process can compare
    first_tick_cpu = time.process_time()  # this process's CPU time since it started
    setup = time.perf_counter() - t_setup
    ticks = int(round(sim_seconds * 10))
    t0 = time.perf_counter()
    sim.run(ticks)
    wall = time.perf_counter() - t0
    return {
        "robots": robots, "runs": runs, "sensors": sensor, "controller": controller,
        "motion": motion,
        "ticks": ticks, "sim_seconds": sim_seconds, "wall_time_s": wall, "setup_time_s": setup,
        "robot_ticks_per_s": robots * runs * ticks / wall,
        "real_time_factor": runs * sim_seconds / wall,
        "first_tick_monotonic": first_tick, "first_tick_cpu_s": first_tick_cpu,
    }


def measure_process(robots: int, sensor: str, sim_seconds: float, runs: int, controller: str,
                    seed: int = 1, speed_m_s: float = 0.05, repeat: int = 1,
                    extra: tuple = ()) -> dict:
    """:func:`measure` in ``repeat`` fresh processes (medians): the in-loop figures plus
    ``whole_process_s`` (start to exit) and ``first_tick_s`` (start to the first tick), in
    wall and in CPU time (``*_cpu_s``)."""
    import statistics  # here, not at the top: a measured process's start does not pay for them
    import subprocess

    cmd = [sys.executable, str(Path(__file__).resolve()), "--robots", str(robots),
           "--sensors", sensor, "--sim-seconds", repr(sim_seconds), "--runs", str(runs),
           "--controller", controller, "--seed", str(seed), "--speed-m-s", repr(speed_m_s),
           "--json", *extra]
    samples = []
    for _ in range(max(1, repeat)):
        c0 = os.times()
        t0 = time.monotonic()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        t1 = time.monotonic()
        c1 = os.times()
        if proc.returncode != 0:
            raise RuntimeError(f"benchmark process failed ({proc.returncode}): {proc.stderr}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        r["whole_process_s"] = t1 - t0
        r["whole_process_cpu_s"] = (c1.children_user - c0.children_user
                                    + c1.children_system - c0.children_system)
        r["first_tick_s"] = r.pop("first_tick_monotonic") - t0
        samples.append(r)
    out = dict(samples[0])
    for k in ("wall_time_s", "setup_time_s", "whole_process_s", "first_tick_s",
              "whole_process_cpu_s", "first_tick_cpu_s"):
        out[k] = statistics.median(r[k] for r in samples)
    out["whole_process_samples_s"] = [r["whole_process_s"] for r in samples]
    ticks = out["ticks"]
    out["robot_ticks_per_s"] = robots * runs * ticks / out["wall_time_s"]
    out["real_time_factor"] = runs * sim_seconds / out["wall_time_s"]
    out["whole_process_robot_ticks_per_s"] = robots * runs * ticks / out["whole_process_s"]
    out["processes"] = len(samples)
    return out


def experiment_toml(cfg: dict) -> str:
    """:func:`experiment` as an experiment file, logging nothing."""
    from swarmstack.argos import toml_text

    def plain(d):   # TOML has no null: an unset parameter is left out
        return {k: plain(v) if isinstance(v, dict) else v for k, v in d.items()
                if v is not None}

    parts = [toml_text.table("[simulation]", cfg["simulation"]),
             toml_text.table("[arena]", cfg["arena"])]
    parts += [toml_text.table("[[lights]]", light) for light in cfg["lights"]]
    if cfg["floor"]:
        parts.append(toml_text.table("[floor]", cfg["floor"]))
    parts += [toml_text.table("[[robots]]", plain(group)) for group in cfg["robots"]]
    parts.append(toml_text.table("[output]", {"trajectories": False}))
    return "\n\n".join(parts) + "\n"


def measure_command(robots: int, sensor: str, sim_seconds: float, runs: int, controller: str,
                    seed: int = 1, speed_m_s: float = 0.05, repeat: int = 1,
                    n_threads: int = 0) -> dict:
    """``swarmstack run`` of the same experiment in ``repeat`` fresh processes (medians): wall
    and CPU time from the command's start to its exit."""
    import statistics
    import subprocess
    import tempfile

    ticks = max(1, int(round(sim_seconds * 10)))
    cfg = experiment(robots, sensor, controller, speed_m_s)
    cfg["robots"][0]["controller"]["params"]["speed"] = speed_m_s
    samples, cpu = [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "experiment.toml")
        path.write_text(experiment_toml(cfg))
        for k in range(max(1, repeat)):
            cmd = [sys.executable, "-c", "from swarmstack.cli import main; main()", "run",
                   str(path), "--out", str(Path(tmp, f"out-{k}")), "--quiet", "--seed", str(seed),
                   "--runs", str(runs), "--ticks", str(ticks), "--threads", str(n_threads)]
            c0 = os.times()
            t0 = time.monotonic()
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            t1 = time.monotonic()
            c1 = os.times()
            if proc.returncode != 0:
                raise RuntimeError(f"command failed ({proc.returncode}): {proc.stderr}")
            samples.append(t1 - t0)
            cpu.append(c1.children_user - c0.children_user
                       + c1.children_system - c0.children_system)
    return {"robots": robots, "runs": runs, "sensors": sensor, "controller": controller,
            "ticks": ticks, "sim_seconds": ticks / 10, "command_s": statistics.median(samples),
            "command_cpu_s": statistics.median(cpu), "command_samples_s": samples,
            "processes": len(samples)}


# ARGoS + E-Puck2 plug-in on a machine like ours (docs: shared performance anchors):
# wall seconds for 72 000 ticks, by (robots, sensor)
ARGOS_S_72000 = {(50, "encoders"): 17.19, (50, "proximity"): 30.28, (50, "tof"): 20.32,
                 (50, "light"): 36.97, (1, "encoders"): 0.56, (5, "encoders"): 1.37,
                 (10, "encoders"): 3.12, (20, "encoders"): 5.78}
ARGOS_ROBOT_TICKS_S = {(1000, "proximity"): 72_000, (10000, "proximity"): 42_000}


def argos_rate(robots: int, sensor: str):
    """ARGoS robot-ticks per second for the same workload, where measured."""
    if (robots, sensor) in ARGOS_S_72000:
        return robots * 72_000 / ARGOS_S_72000[(robots, sensor)]
    return ARGOS_ROBOT_TICKS_S.get((robots, sensor))


def table(sim_seconds: float, controller: str, whole: bool = False, repeat: int = 1,
          extra: tuple = ()) -> list[dict]:
    """The §4.3 grid (1–50 robots × each sensor alone) plus 1 000 and 10 000 robots; with
    ``whole``, every cell in fresh processes (:func:`measure_process`)."""
    def one(robots, sensor, secs):
        if whole:
            return measure_process(robots, sensor, secs, 1, controller, repeat=repeat,
                                   extra=extra)
        return measure(robots, sensor, secs, 1, controller)

    rows = []
    for robots in (1, 5, 10, 20, 50):
        base = None
        for sensor in SENSORS:
            r = one(robots, sensor, sim_seconds)
            if sensor == "none":
                base = r["wall_time_s"]
            r["overhead_vs_none"] = r["wall_time_s"] / base - 1.0
            rows.append(r)
    rows.append(one(1000, "proximity", min(sim_seconds, 600.0)))
    rows.append(one(10000, "proximity", min(sim_seconds, 60.0)))
    for r in rows:
        compare_with_argos(r)
    return rows


def compare_with_argos(r: dict) -> None:
    """Add the ARGoS anchor's rate and the ratios (in-loop; whole process for 72 000 ticks,
    where the anchor is a whole-process time)."""
    ref = argos_rate(r["robots"], r["sensors"])
    r["argos_robot_ticks_per_s"] = ref
    r["speedup_vs_argos"] = r["robot_ticks_per_s"] / ref if ref else None
    key = (r["robots"], r["sensors"])
    if "whole_process_s" in r and key in ARGOS_S_72000 and r["ticks"] == 72_000:
        r["argos_whole_process_s"] = ARGOS_S_72000[key]
        r["whole_process_speedup_vs_argos"] = ARGOS_S_72000[key] / r["whole_process_s"]


def print_table(rows: list[dict]) -> None:
    whole = any("whole_process_s" in r for r in rows)
    head = (f"{'robots':>6} {'sensor':>10} {'robot-ticks/s':>14} {'overhead':>9} "
            f"{'ARGoS':>9} {'xARGoS':>7}")
    if whole:
        head += (f" {'process s':>10} {'1st tick s':>10} {'xARGoS':>7} {'CPU s':>6} "
                 f"{'1st tick CPU s':>14}")
    print(head)
    for r in rows:
        ov = r.get("overhead_vs_none")
        ref = r.get("argos_robot_ticks_per_s")
        overhead = "" if ov is None else f"{ov:+.0%}"
        argos = "" if not ref else f"{ref:,.0f}"
        ratio = "" if not ref else f"{r['speedup_vs_argos']:.1f}"
        line = (f"{r['robots']:>6} {r['sensors']:>10} {r['robot_ticks_per_s']:>14,.0f} "
                f"{overhead:>9} {argos:>9} {ratio:>7}")
        if whole:
            w = r.get("whole_process_speedup_vs_argos")
            line += (f" {r['whole_process_s']:>10.2f} {r['first_tick_s']:>10.3f} "
                     f"{'' if w is None else f'{w:.1f}':>7} {r['whole_process_cpu_s']:>6.2f} "
                     f"{r['first_tick_cpu_s']:>14.3f}")
        print(line)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", type=int, default=50)
    p.add_argument("--sensors", choices=SENSORS, default="proximity")
    p.add_argument("--sim-seconds", type=float, default=600.0)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--controller", choices=("batched", "per-robot"), default="batched")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--speed-m-s", type=float, default=0.05,
                   help="wheel speed of the spin, m/s (left +v, right −v; default 0.05)")
    p.add_argument("--motion", choices=("spin", "wander"), default="spin",
                   help="spin on the spot (the paper's workload) or wander at random wheel "
                        "speeds, colliding (batched controller only)")
    p.add_argument("--study", type=int, default=0, metavar="SEEDS",
                   help="the §4.3 study in one batch: 11 speeds × SEEDS runs (overrides --runs)")
    p.add_argument("--table", action="store_true",
                   help="the whole §4.3 grid (1–50 robots × each sensor) + 1 000 / 10 000 robots")
    p.add_argument("--whole-process", action="store_true",
                   help="measure in fresh processes: also the whole process's time and the time "
                        "to its first tick")
    p.add_argument("--command", action="store_true",
                   help="with --whole-process: time the swarmstack run command on the same "
                        "experiment instead (start to exit; one tick: --sim-seconds 0.1)")
    p.add_argument("--repeat", type=int, default=1, metavar="K",
                   help="with --whole-process: the median of K processes (default 1)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--threads", type=int, default=None, metavar="N",
                   help="kernel threads (0: every usable core; default: SWARMSTACK_THREADS, "
                        "else 0)")
    a = p.parse_args(argv)
    try:
        n_threads = threads.set_threads(a.threads)
    except ValueError as exc:
        p.error(str(exc))
    if a.command and (not a.whole_process or a.table or a.study or a.motion != "spin"):
        p.error("--command goes with --whole-process, for the spin of one experiment")
    if a.motion == "wander" and a.controller != "batched":
        p.error("--motion wander needs --controller batched")
    # fresh processes (--whole-process) run on the same threads (the table: the paper's spin)
    extra = ("--threads", str(n_threads))
    if a.table:
        rows = table(a.sim_seconds, a.controller, a.whole_process, a.repeat, extra)
        for r in rows:
            r["threads"] = n_threads
        if a.json:
            print(json.dumps(rows))
        else:
            print_table(rows)
        return 0
    if a.study:
        result = measure(a.robots, a.sensors, a.sim_seconds, 11 * a.study, "batched", a.seed,
                         runs_per_speed=a.study)
        # the paper's study runs 2 simulated hours per run; ARGoS anchor: 30.28 s per run
        result["study_runs"] = 11 * a.study
        result["projected_wall_s_for_2h"] = result["wall_time_s"] * 7200.0 / a.sim_seconds
        result["argos_wall_s"] = 30.28 * 11 * a.study
        result["speedup_vs_argos"] = result["argos_wall_s"] / result["projected_wall_s_for_2h"]
    elif a.whole_process and a.command:
        result = measure_command(a.robots, a.sensors, a.sim_seconds, a.runs, a.controller,
                                 a.seed, a.speed_m_s, a.repeat, n_threads)
    elif a.whole_process:
        result = measure_process(a.robots, a.sensors, a.sim_seconds, a.runs, a.controller,
                                 a.seed, a.speed_m_s, a.repeat,
                                 extra + ("--motion", a.motion))
        compare_with_argos(result)
    else:
        result = measure(a.robots, a.sensors, a.sim_seconds, a.runs, a.controller, a.seed,
                         speed_m_s=a.speed_m_s, motion=a.motion)
    result["threads"] = n_threads
    if a.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:>18}  {v:.4g}" if isinstance(v, float) else f"{k:>18}  {v}")
    return 0


if __name__ == "__main__":
    from swarmstack.cli.process import exit_now

    exit_now(main())  # like the swarmstack command: no interpreter tear-down
