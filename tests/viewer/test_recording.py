"""The recording a run writes: what it holds, decimation, partial and killed runs."""

import json
import os
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.experiments.config import parse_experiment
from swarmstack.sim.simulation import Simulation
from swarmstack.viewer.recording import Recorder, RecordingError, open_recording
from swarmstack.viewer.server import Source, serve
from tests.viewer.conftest import COLOURS, HERE, POSES, experiment


def test_recording_holds_poses_leds_and_scene(recorded):
    rec = open_recording(recorded)
    assert rec.stops is None and rec.end["status"] == "completed"
    h = rec.header
    assert h["robots"] == 3 and h["record_every"] == 2 and h["dt_s"] == pytest.approx(0.1)
    assert h["arena"]["bounds"] == [-0.3, -0.3, 0.3, 0.3]
    assert len(h["arena"]["boxes"]) == 4 and len(h["arena"]["cylinders"]) == 1
    g = h["groups"][0]
    assert g["body"] == {"shape": "disc", "half_x": 0.035, "half_y": 0.035, "height_m": 0.045}
    assert g["leds"]["count"] == 10 and len(g["leds"]["owner"]) == 17
    assert [(d["device"], d["count"]) for d in g["rays"]] == [("proximity", 8)]
    assert h["rays"] == 3 * 8
    assert rec.frames == 21  # ticks 0, 2, …, 40
    a = rec.frames_array(0)
    assert a["tick"].tolist() == list(range(0, 41, 2))
    pose = a["pose"][-1]
    np.testing.assert_allclose(pose[:2, [0, 1, 5]], np.array(POSES[:2]), atol=1e-5)
    assert pose[2, 0] < POSES[2][0] - 0.05  # robot 2 drove along −x for 4 s at 5 cm/s
    leds = a["leds"][-1].reshape(3, 10, 3)
    # a red-only ring LED shows red; told green it stays dark; the body LED is green-only
    assert leds[0, 0].tolist() == [255, 0, 0] and leds[0, 9].tolist() == [0, 0, 0]
    assert leds[1, 0].tolist() == [0, 0, 0] and leds[1, 1].tolist() == COLOURS[1]
    assert leds[1, 9].tolist() == [0, 255, 0] and not leds[2].any()


def test_record_off_by_default_and_on_from_the_command_line(tmp_path):
    (tmp_path / "exp.toml").write_text(
        "[simulation]\nticks = 6\n[arena]\nsize = [0.6, 0.6]\n"
        "[[robots]]\nname = \"e\"\ncount = 2\n")
    r = CliRunner().invoke(app, ["run", str(tmp_path / "exp.toml"), "--out",
                                 str(tmp_path / "a"), "--quiet"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "a" / "recording").exists()
    r = CliRunner().invoke(app, ["run", str(tmp_path / "exp.toml"), "--out",
                                 str(tmp_path / "b"), "--quiet", "--record",
                                 "--record-every", "3"])
    assert r.exit_code == 0, r.output
    rec = open_recording(tmp_path / "b")
    assert rec.frames == 3 and rec.frames_array(0)["tick"].tolist() == [0, 3, 6]
    # --overwrite replaces a recorded run (its recording is one of the run's own files)
    r = CliRunner().invoke(app, ["run", str(tmp_path / "exp.toml"), "--out",
                                 str(tmp_path / "b"), "--quiet", "--overwrite"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "b" / "recording").exists()


def _chunked(tmp_path, chunk_frames=4, frames=10) -> Path:
    cfg = parse_experiment(experiment(), "viewer-test")
    sim = Simulation(cfg, base_dir=HERE)
    sim.start()
    rec = Recorder(sim, tmp_path, every=1, chunk_frames=chunk_frames)
    rec.frame()
    for _ in range(frames - 1):
        sim.step()
        rec.frame()
    return rec


def test_killed_run_replays_its_whole_chunks(tmp_path):
    rec = _chunked(tmp_path)          # never closed: no end.json, the last 2 frames in memory
    r = open_recording(tmp_path)
    assert r.chunk_sizes == [4, 4] and r.frames == 8
    assert r.stops.startswith("replay stops at tick 7") and "did not finish" in r.stops
    rec.close("completed")
    r = open_recording(tmp_path)
    assert r.chunk_sizes == [4, 4, 2] and r.stops is None and r.last_tick() == 9


def test_truncated_or_missing_chunk_stops_the_replay_there(tmp_path):
    rec = _chunked(tmp_path)
    rec.close("completed")
    folder = tmp_path / "recording"
    fb = rec.layout.frame_bytes
    with open(folder / "chunk-000001.bin", "r+b") as fh:
        fh.truncate(fb * 2 + fb // 2)   # two frames and half of a third
    r = open_recording(tmp_path)
    assert r.chunk_sizes == [4, 2]
    assert r.stops == "replay stops at tick 5: chunk 1 is truncated"
    os.remove(folder / "chunk-000001.bin")
    r = open_recording(tmp_path)
    assert r.chunk_sizes == [4] and r.stops == "replay stops at tick 3: chunk 1 is missing"


def test_no_recording_is_named(tmp_path):
    with pytest.raises(RecordingError, match="has no recording"):
        open_recording(tmp_path)
    r = CliRunner().invoke(app, ["view", str(tmp_path)])
    assert r.exit_code == 1 and "has no recording" in r.output


def _get(url):
    with urllib.request.urlopen(url, timeout=5) as resp:
        return resp.status, resp.read()


def test_live_server_serves_the_frames_being_recorded(tmp_path):
    rec = _chunked(tmp_path, chunk_frames=4, frames=6)
    served = serve(Source(recorder=rec), 0)
    try:
        st = json.loads(_get(served.url + "api/status")[1])
        assert st["live"] and st["frames"] == 6 and st["chunk_frames"] == 4
        code, body = _get(served.url + "api/chunk/1")     # the chunk being filled
        assert code == 200 and len(body) == 2 * rec.layout.frame_bytes
        rec.sim.step()
        rec.frame()
        assert len(_get(served.url + "api/chunk/1")[1]) == 3 * rec.layout.frame_bytes
        # a page that holds 2 frames of it asks for the rest only
        assert _get(served.url + "api/chunk/1?from=2")[1] == \
            _get(served.url + "api/chunk/1")[1][2 * rec.layout.frame_bytes:]
        assert json.loads(_get(served.url + "api/header")[1]) == rec.header
    finally:
        served.stop()


def test_a_port_in_use_is_replaced_and_said(recorded):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        served = serve(Source(recording=open_recording(recorded)), port)
        try:
            assert served.port != port
            assert served.note == f"port {port} is in use; serving on port {served.port} instead"
            assert json.loads(_get(served.url + "api/status")[1])["frames"] == 21
        finally:
            served.stop()


def test_radio_links_and_debug_text_are_recorded_per_chunk(tmp_path):
    rec = _chunked(tmp_path, chunk_frames=4, frames=6)
    # a range-and-bearing board always broadcasts (an empty frame when nothing was sent):
    # everyone in range hears everyone else, 3 × 2 receptions per frame
    heard = rec.sim.medium.inbox
    assert len(heard) == 6
    rec.log("e", 0, 1, 6, "hops = 2")
    rec.log("e", 1, 1, 6, "another run: not recorded")
    rec.sim.step()
    rec.frame()
    rec.close("completed")
    r = open_recording(tmp_path)
    assert r.header["overlays"] == {"links": True, "text": True}
    raw = r.overlay("links", 0)
    f = int(np.frombuffer(raw[:4], "<u4")[0])
    offsets = np.frombuffer(raw[4:8 + 4 * f], "<u4")
    pairs = np.frombuffer(raw[8 + 4 * f:], "<u4").reshape(-1, 2)
    assert f == 4 and offsets.tolist() == [0, 6, 12, 18, 24]
    assert sorted(map(tuple, pairs[6:12].tolist())) == [(0, 1), (0, 2), (1, 0), (1, 2),
                                                        (2, 0), (2, 1)]
    # a line logged during a step shows from the frame recorded after it (frame 6)
    assert json.loads(r.overlay("text", 1)) == [[2, 1, "hops = 2"]]
    assert json.loads(r.overlay("text", 0)) == []


def test_sensor_rays_are_recorded_as_fractions_of_their_range(tmp_path):
    rec = _chunked(tmp_path, chunk_frames=4, frames=3)
    dist = rec.sim.group("e").states["proximity"][:3]   # hit distances (m) of tick 2
    reach = rec.sim.group("e").devices["proximity"].layout.range_m
    rec.close("completed")
    rays = open_recording(tmp_path).frames_array(0)["rays"][-1].reshape(3, 8)
    expect = np.where(dist < reach, np.round(np.minimum(dist, reach) / reach * 254), 255)
    np.testing.assert_allclose(rays, expect, atol=1)
    assert (rays == 255).any()


def test_run_view_serves_the_run_until_interrupted(tmp_path):
    import re
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "exp.toml").write_text(
        "[simulation]\nticks = 30\n[arena]\nsize = [0.6, 0.6]\n"
        "[[robots]]\nname = \"e\"\ncount = 2\n")
    root = Path(__file__).resolve().parents[2]
    # a user's terminal: Ctrl-C delivered by default, whatever this test process inherited
    # or changed (a process that ignores or blocks SIGINT passes that on to its children)
    inherited = (signal.getsignal(signal.SIGINT), signal.pthread_sigmask(signal.SIG_BLOCK, []))

    def as_from_a_terminal():
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})

    proc = subprocess.Popen(
        [sys.executable, "-c", "from swarmstack.cli import main; main()", "run",
         str(tmp_path / "exp.toml"), "--out", str(tmp_path / "run"), "--view", "--view-port",
         "0", "--quiet"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        preexec_fn=as_from_a_terminal)
    try:
        url = None
        deadline = time.monotonic() + 60
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            m = re.search(r"live view: open (http://\S+)", line)
            url = m.group(1) if m else None
        assert url, "no address printed"
        while json.loads(_get(url + "api/status")[1])["live"]:
            time.sleep(0.1)
        st = json.loads(_get(url + "api/status")[1])
        assert st["frames"] == 31 and st["complete"]
        assert (tmp_path / "run" / "recording" / "end.json").is_file()
        # Ctrl-C once the command says it serves on: until then it is still writing (and
        # signals are held while it finishes the run)
        seen = ""
        while "Ctrl-C to stop" not in seen and time.monotonic() < deadline:
            seen += proc.stdout.readline()
        assert "the run is over" in seen
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            raise AssertionError(f"still serving 30 s after Ctrl-C (this process's SIGINT "
                                 f"handler and mask: {inherited}); it printed:\n{out}")
    assert proc.returncode == 0, out
