"""Viewer costs: replay frame rate of a large swarm in headless Chromium, and what recording
and a live view cost the simulation.

Workload: N E-Puck2s (default 1 000) with proximity sensors in a walled arena scaled to 50
robots per 4 m², driving a batched random walk, 10 ticks/s, every tick recorded (the worst
case: ``record_every = 1``); results written without trajectories, so the recording's cost is
not hidden behind the Parquet writer's.

- ``record_overhead``: time in ``Recorder.frame`` over time in ``Simulation.step``, both
  timed tick by tick in one loop (robust to a loaded machine); ``record_overhead_e2e``: wall
  time of ``run_experiment`` with the recording on over the same run with it off, minus 1
  (best of ``--repeats`` each, alternated; noisy on a shared 2-core machine).
- ``live_overhead``: CPU time the live server's threads spent answering a headless Chromium
  page that follows the run, over the run's wall time; ``live_overhead_e2e``: wall time with
  the page open over the recording alone, minus 1 (the page's own rendering competes for the
  same 2 cores here; on a desktop it runs on other cores and the GPU).
- ``replay_fps``: frames the page draws per second while playing the recording back (each a
  new recording frame: every robot's pose and LEDs updated), in Chromium with software WebGL
  (SwiftShader), at 800 × 600.

    python benchmarks/viewer.py --robots 1000 --ticks 600 --json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from swarmstack import BatchedController  # noqa: E402
from swarmstack.experiments.config import parse_experiment  # noqa: E402
from swarmstack.experiments.runner import run_experiment  # noqa: E402


class WalkBatched(BatchedController):
    """Forward at 5–15 cm/s with a random turn, redrawn every tick from each robot's stream."""

    def step(self, group):
        u = group.uniform(2)
        group.wheels[:, 0] = 0.05 + 0.1 * u[:, 0]
        group.wheels[:, 1] = 0.05 + 0.1 * u[:, 1]


def experiment(robots: int, ticks: int) -> dict:
    side = 2.0 * math.sqrt(max(robots, 50) / 50.0)
    return {
        "simulation": {"ticks_per_second": 10, "ticks": ticks, "seed": 1},
        "arena": {"size": [side, side], "walls": {"thickness": 0.02, "height": 0.1}},
        "robots": [{"name": "e", "type": "epuck2", "count": robots,
                    "sensors": {"proximity": True},
                    "controller": {"python": "benchmarks.viewer:WalkBatched"}}],
        "output": {"trajectories": False, "record_every": 1},
    }


def timed_run(cfg, record: bool, on_recorder=None) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        s = run_experiment(cfg, Path(tmp) / "run", record=record, on_recorder=on_recorder,
                           source="benchmark")
        return float(s["wall_time_s"])


def record_cost(cfg, ticks: int) -> float:
    """Σ Recorder.frame / Σ Simulation.step over ``ticks`` ticks, timed in one loop."""
    from swarmstack.sim.simulation import Simulation
    from swarmstack.viewer.recording import Recorder

    sim = Simulation(cfg, base_dir=ROOT, source="benchmark")
    sim.start()
    with tempfile.TemporaryDirectory() as tmp:
        rec = Recorder(sim, Path(tmp), every=1)
        rec.frame()
        step = frame = 0.0
        for _ in range(ticks):
            t0 = time.perf_counter()
            sim.step()
            t1 = time.perf_counter()
            rec.frame()
            t2 = time.perf_counter()
            step += t1 - t0
            frame += t2 - t1
        rec.close("completed")
    return frame / step


def live_run(cfg) -> tuple[float, float]:
    """A run with its live view open in headless Chromium (the page follows the run)."""
    from playwright.sync_api import sync_playwright

    from swarmstack.viewer.browser import CHROMIUM_ARGS, chromium_path
    from swarmstack.viewer.server import Source, serve

    served = []
    opened = threading.Event()
    ready = threading.Event()

    def browse():
        # the page runs in its own process; this thread only waits for the server
        opened.wait()
        with sync_playwright() as pw:
            b = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            page = b.new_page(viewport={"width": 800, "height": 600})
            page.goto(served[0].url)
            ready.set()
            while not done.is_set():
                time.sleep(0.1)
            b.close()

    done = threading.Event()

    def on_recorder(rec):
        served.append(serve(Source(recorder=rec), 0))
        opened.set()
        ready.wait(timeout=60)  # the page is open before the first tick

    t = threading.Thread(target=browse, daemon=True)
    t.start()
    try:
        wall = timed_run(cfg, True, on_recorder)
        return wall, served[0].busy_s / wall
    finally:
        done.set()
        t.join(timeout=30)
        if served:
            served[0].stop()


def replay_fps(robots: int, seconds: float = 5.0) -> dict:
    from swarmstack.viewer.browser import page_at, state
    from swarmstack.viewer.server import replay_source, serve

    cfg = parse_experiment(experiment(robots, 300), "benchmark")
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run"
        run_experiment(cfg, out, record=True, source="benchmark")
        src = replay_source(out)
        served = serve(src, 0)
        try:
            with page_at(served.url + "?trails=0", 800, 600) as page:
                frames = state(page)["frames"]
                cf = src.header["chunk_frames"]
                for f in range(0, frames, cf):  # every chunk fetched before timing
                    page.evaluate("f => window.viewer.seek(f)", f)
                page.evaluate("() => { window.viewer.seek(0); window.viewer.setSpeed(6); "
                              "window.viewer.play(); }")
                time.sleep(1.0)
                a = state(page)
                time.sleep(seconds)
                b = state(page)
                page.evaluate("() => window.viewer.pause()")
        finally:
            served.stop()
    drawn = b["rendered"] - a["rendered"]
    return {"replay_fps": drawn / seconds, "frames_advanced": b["frame"] - a["frame"],
            "replay_robots": robots, "recording_frames": frames}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--robots", type=int, default=1000)
    p.add_argument("--ticks", type=int, default=600)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-browser", action="store_true", help="recording overhead only")
    p.add_argument("--json", action="store_true", help="print only the JSON line")
    args = p.parse_args(argv)

    cfg = parse_experiment(experiment(args.robots, args.ticks), "benchmark")
    timed_run(cfg, False)  # compile/load the kernels before anything is timed
    off, on, live = [], [], []
    for _ in range(args.repeats):
        off.append(timed_run(cfg, False))
        on.append(timed_run(cfg, True))
        if not args.no_browser:
            live.append(live_run(cfg))
    result = {"robots": args.robots, "ticks": args.ticks, "record_every": 1,
              "record_overhead": record_cost(cfg, args.ticks),
              "wall_s_plain": min(off), "wall_s_recorded": min(on),
              "record_overhead_e2e": min(on) / min(off) - 1.0,
              "robot_ticks_per_s_plain": args.robots * args.ticks / min(off)}
    if not args.no_browser:
        walls = [w for w, _ in live]
        result.update({"wall_s_live": min(walls),
                       "live_overhead": max(share for _, share in live),
                       "live_overhead_e2e": min(walls) / min(on) - 1.0})
        result.update(replay_fps(args.robots))
    if not args.json:
        print(f"{args.robots} robots × {args.ticks} ticks, recording every tick")
        print(f"  simulation alone     {result['wall_s_plain']:8.3f} s  "
              f"({result['robot_ticks_per_s_plain']:,.0f} robot-ticks/s)")
        print(f"  + recording          {result['wall_s_recorded']:8.3f} s  "
              f"({result['record_overhead_e2e']:+.1%} end to end; "
              f"{result['record_overhead']:+.1%} frame() over step())")
        if "live_overhead" in result:
            print(f"  + live view (page)   {result['wall_s_live']:8.3f} s  "
                  f"({result['live_overhead_e2e']:+.1%} end to end over recording; server "
                  f"threads {result['live_overhead']:.1%} of the run's time)")
            print(f"  replay in Chromium   {result['replay_fps']:8.1f} frames/s "
                  f"({result['replay_robots']} robots, software WebGL, 800 × 600)")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
