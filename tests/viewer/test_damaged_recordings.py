"""A damaged recording (a chunk that is a folder or a dangling link, a header or an end file of
the wrong shape, overlays of garbage, chunks whose ticks run backwards …) is one clear line or
a replay of what is good, never a traceback: for `swarmstack view` (its server, as the page
asks it) and for `--screenshot` (its reader path up to the browser, which is replaced here by
the page's requests)."""

import json
import os
import shutil
import tempfile
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import swarmstack.cli.view as view_cli
import swarmstack.viewer.browser as screenshot_module
from swarmstack.cli import app
from swarmstack.experiments.config import parse_experiment
from swarmstack.sim.simulation import Simulation
from swarmstack.viewer.recording import Recorder, open_recording
from swarmstack.viewer.server import serve
from tests.viewer.conftest import HERE, experiment

CHUNK_FRAMES, FRAMES = 4, 10      # chunks of 4, 4 and 2 frames


def _get(port: int, path: str):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def _as_the_page(served) -> int:
    """Ask a server what the page asks, as the page asks it; the frames served."""
    code, body = _get(served.port, "/api/status")
    assert code == 200, body
    status = json.loads(body)
    code, body = _get(served.port, "/api/header")
    assert code == 200 and isinstance(json.loads(body), dict), body[:200]
    fb = json.loads(body)["frame"]["frame_bytes"]
    got = 0
    for k in range(-(-status["frames"] // status["chunk_frames"]) + 1):
        code, body = _get(served.port, f"/api/chunk/{k}")
        assert code in (200, 404) and b"Traceback" not in body, (k, code, body[:200])
        if code == 200:
            assert len(body) % fb == 0
            got += len(body) // fb
        for kind in ("links", "text"):
            code, body = _get(served.port, f"/api/{kind}/{k}")
            assert code in (200, 404) and b"Traceback" not in body, (kind, code, body[:200])
    assert got == status["frames"]
    return got


@pytest.fixture(scope="module")
def pristine():
    with tempfile.TemporaryDirectory() as tmp:
        cfg = parse_experiment(experiment(), "viewer-test")
        sim = Simulation(cfg, base_dir=HERE)
        sim.start()
        rec = Recorder(sim, Path(tmp), every=1, chunk_frames=CHUNK_FRAMES)
        rec.frame()
        for _ in range(FRAMES - 1):
            sim.step()
            rec.frame()
        rec.close("completed")
        yield Path(tmp) / "recording"


@pytest.fixture
def copy_of(pristine, tmp_path):
    def make() -> Path:
        run = Path(tempfile.mkdtemp(dir=tmp_path)) / "run"
        shutil.copytree(pristine, run / "recording", symlinks=True)
        (run.parent / "secret.txt").write_text("root:x:0:0:not for the page\n")
        return run
    return make


@pytest.fixture
def cli_without_a_browser(monkeypatch):
    """`view`'s server held until it has answered the page's requests; `--screenshot`'s
    browser replaced by the page's requests (the tick shown: the last recorded at or before
    the one asked for)."""
    served_frames = []

    def hold(served, what, file=None):
        try:
            served_frames.append(_as_the_page(served))
        finally:
            served.stop()

    def shoot(source, out, tick=0, mode="3d", width=960, height=720):
        served = serve(source, 0)
        try:
            _as_the_page(served)
        finally:
            served.stop()
        rec = source.recording
        ticks = np.concatenate([rec.frames_array(k)["tick"]
                                for k in range(len(rec.chunk_sizes))] or [np.zeros(0, int)])
        if not len(ticks):
            raise screenshot_module.PictureError("the page shows no frame")
        shown = ticks[ticks <= tick]
        return {"tick": int(shown[-1] if len(shown) else ticks[0]),
                "robots": int(rec.header["robots"])}

    monkeypatch.setattr(view_cli, "hold", hold)
    monkeypatch.setattr(screenshot_module, "screenshot", shoot)
    return served_frames


def _view(run: Path, *extra) -> tuple:
    r = CliRunner().invoke(app, ["view", str(run), "--port", "0", *extra])
    assert "Traceback" not in r.output and (r.exception is None or
                                            isinstance(r.exception, SystemExit)), \
        (r.output, r.exception)
    return r.exit_code, r.output.strip().splitlines()


def _one_error_line(lines: list) -> str:
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


def _says_where_the_replay_stops(lines: list, rec) -> None:
    warnings = [ln for ln in lines if ln.startswith("warning: ")]
    if rec.stops is None:
        assert not warnings, lines
        return
    assert len(warnings) == 1, lines
    if rec.frames:
        assert f"replay stops at tick {rec.last_tick()}: " in warnings[0], warnings
    else:
        assert "nothing to replay" in warnings[0], warnings


# ------------------------------------------------------------------------------ examples
@pytest.mark.parametrize("make, says", [
    (lambda p: p.mkdir(), "chunk-000001.bin is a folder, not a file"),
    (lambda p: os.symlink(p.parent / "gone.bin", p), "chunk-000001.bin is a symbolic link to "
                                                     "nothing"),
    (lambda p: os.symlink(p.parent.parent.parent / "secret.txt", p),
     "chunk-000001.bin points outside the recording folder"),
])
def test_a_broken_chunk_after_the_first_replays_the_chunks_before_it(copy_of, make, says,
                                                                      cli_without_a_browser):
    run = copy_of()
    chunk = run / "recording" / "chunk-000001.bin"
    os.remove(chunk)
    make(chunk)
    rec = open_recording(run)
    assert rec.chunk_sizes == [CHUNK_FRAMES]
    assert rec.stops == f"replay stops at tick {CHUNK_FRAMES - 1}: {says}"
    code, lines = _view(run)
    assert code == 0 and cli_without_a_browser == [CHUNK_FRAMES]
    assert lines[0] == f"warning: {run}: {rec.stops}"
    code, lines = _view(run, "--screenshot", str(run / "x.png"))
    assert code == 0 and any(f"x.png: tick {CHUNK_FRAMES - 1} of" in ln for ln in lines), lines


def test_a_chunk_whose_ticks_run_backwards_ends_the_replay_before_it(copy_of):
    run = copy_of()
    chunk = run / "recording" / "chunk-000002.bin"
    data = bytearray(chunk.read_bytes())
    data[0:4] = np.int32(2).tobytes()          # its first frame says tick 2, after tick 7
    chunk.write_bytes(bytes(data))
    rec = open_recording(run)
    assert rec.chunk_sizes == [CHUNK_FRAMES, CHUNK_FRAMES]
    assert rec.stops == "replay stops at tick 7: chunk-000002.bin: frame 0 has tick 2, not " \
                        "after tick 7"


def test_a_frame_whose_tick_runs_backwards_ends_the_replay_at_the_frame_before(copy_of):
    run = copy_of()
    chunk = run / "recording" / "chunk-000001.bin"
    data = bytearray(chunk.read_bytes())
    fb = len(data) // CHUNK_FRAMES
    data[2 * fb:2 * fb + 4] = np.int32(1).tobytes()     # frame 2 of the chunk (tick 6) says 1
    chunk.write_bytes(bytes(data))
    rec = open_recording(run)
    assert rec.chunk_sizes == [CHUNK_FRAMES, 2] and rec.last_tick() == 5
    assert rec.stops == "replay stops at tick 5: chunk-000001.bin: frame 2 has tick 1, not " \
                        "after tick 5"


@pytest.mark.parametrize("robots, groups", [(3, None), (0, [])])
def test_a_recording_without_leds_or_robots_reads_as_arrays(copy_of, robots, groups):
    run = copy_of()
    head = run / "recording" / "header.json"
    h = json.loads(head.read_text())
    fb = h["frame"]["frame_bytes"]
    # the same frames read as rays after the poses (the frame size is the layout's)
    h.update(robots=robots, leds=0, rays=fb - 4 - 24 * robots,
             groups=h["groups"] if groups is None else groups)
    head.write_text(json.dumps(h))
    a = open_recording(run).frames_array(0)
    assert a["pose"].shape == (CHUNK_FRAMES, robots, 6)
    assert a["leds"].shape == (CHUNK_FRAMES, 0, 3)
    assert a["tick"].tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("name, data", [
    ("links-000000.bin", b"\xff\xff\xff\x7f"),                     # F far beyond the file
    ("links-000000.bin", np.array([1, 0, 1, 7, 99], "<u4").tobytes()),   # robot row 99 of 3
    ("text-000000.json", b"[" * 100_000),
    ("text-000000.json", b'[[0, 9, "row 9 of 3"]]'),
    ("text-000000.json", b'{"not": "a list"}'),
])
def test_an_overlay_the_page_cannot_read_is_not_served(copy_of, name, data):
    run = copy_of()
    (run / "recording" / name).write_bytes(data)
    kind = name.split("-")[0]
    served = open_recording(run).overlay(kind, 0)
    assert served == (None if kind == "links" else b"[]")


# ------------------------------------------------------------------------------ fuzz
JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**6)
                    | st.floats(allow_nan=True) | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)
FILES = [f"{kind}-{k:06d}.{ext}" for k in range(3) for kind, ext in
         (("chunk", "bin"), ("links", "bin"))] + ["text-000000.json", "header.json", "end.json"]


def _paths(value, at=()):
    yield at
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            yield from _paths(v, at + (i,))


def _set(doc, at, value, delete=False):
    if not at:
        return {} if delete else value
    parent = doc
    try:
        for key in at[:-1]:
            parent = parent[key]
        if delete:
            del parent[at[-1]]
        else:
            parent[at[-1]] = value
    except (KeyError, IndexError, TypeError):   # an earlier change altered the shape
        pass
    return doc


def _damage(data, folder: Path) -> str:
    """One change to the recording in ``folder``, drawn from ``data``; what it was."""
    how = data.draw(st.sampled_from(["json", "folder", "dangling", "outside", "remove",
                                     "truncate", "bytes", "flip", "extra", "ticks"]), "how")
    name = data.draw(st.sampled_from(FILES), "file")
    path = folder / name
    if how == "json" and name.endswith(".json"):
        try:
            doc = json.loads(path.read_text()) if path.is_file() and not path.is_symlink() \
                else {}
        except ValueError:
            doc = {}
        if path.is_symlink():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        at = data.draw(st.sampled_from(list(_paths(doc))), "key path")
        delete = data.draw(st.booleans(), "delete")
        doc = _set(doc, at, data.draw(JSON, "value"), delete)
        path.write_text(json.dumps(doc))
    elif how in ("folder", "dangling", "outside", "remove"):
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
        if how == "folder":
            path.mkdir()
        elif how == "dangling":
            os.symlink(folder / "gone", path)
        elif how == "outside":
            os.symlink(folder.parent.parent / "secret.txt", path)
    elif how in ("truncate", "flip") and path.is_file() and not path.is_symlink():
        data_ = bytearray(path.read_bytes())
        if how == "truncate":
            del data_[data.draw(st.integers(0, len(data_)), "keep"):]
        elif data_:
            at = data.draw(st.integers(0, len(data_) - 1), "at")
            data_[at] ^= data.draw(st.integers(1, 255), "xor")
        path.write_bytes(bytes(data_))
    elif how == "bytes":
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_symlink():
            path.unlink()
        path.write_bytes(data.draw(st.binary(max_size=400), "bytes"))
    elif how == "extra":
        k = data.draw(st.sampled_from([3, 5]), "extra chunk")
        src = folder / "chunk-000000.bin"
        if src.is_file():
            shutil.copy(src, folder / f"chunk-{k:06d}.bin")
    elif how == "ticks" and name.startswith("chunk") and path.is_file():
        data_ = bytearray(path.read_bytes())
        if len(data_) >= 4:
            data_[0:4] = np.int32(data.draw(st.integers(-2**31, 2**31 - 1), "tick")).tobytes()
            path.write_bytes(bytes(data_))
    return f"{how} {name}"


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_damaged_recording_is_one_line_or_a_replay_of_what_is_good(copy_of, data,
                                                                     cli_without_a_browser):
    run = copy_of()
    for _ in range(data.draw(st.integers(1, 3), "changes")):
        _damage(data, run / "recording")
    cli_without_a_browser.clear()
    code, lines = _view(run)
    shot_code, shot_lines = _view(run, "--screenshot", str(run / "x.png"), "--tick", "5")
    if code == 1:       # nothing to show: one line, for both
        _one_error_line(lines)
        assert shot_code == 1 and _one_error_line(shot_lines) == lines[0]
        return
    assert code == 0, lines
    rec = open_recording(run)
    # the server answered the page with every frame that can be replayed, and said where the
    # replay stops
    assert cli_without_a_browser == [rec.frames]
    _says_where_the_replay_stops(lines, rec)
    if rec.frames:
        ticks = np.concatenate([rec.frames_array(k)["tick"] for k in range(len(rec.chunk_sizes))])
        assert (np.diff(ticks) > 0).all() and ticks[0] >= 0
        assert rec.last_tick() == ticks[-1]
        assert shot_code == 0 and any("x.png: tick" in ln for ln in shot_lines), shot_lines
    else:   # the warning, and why there is no picture
        assert shot_code == 1, shot_lines
        _one_error_line([ln for ln in shot_lines if not ln.startswith("warning: ")])


@pytest.mark.parametrize("frame_bytes", [10**30, 196, 2**31])
def test_a_frame_size_other_than_the_layouts_is_one_line(copy_of, frame_bytes,
                                                          cli_without_a_browser):
    run = copy_of()
    head = run / "recording" / "header.json"
    h = json.loads(head.read_text())
    h["frame"]["frame_bytes"] = frame_bytes
    head.write_text(json.dumps(h))
    code, lines = _view(run)
    assert code == 1 and f"frame.frame_bytes is {frame_bytes}, not the " in \
        _one_error_line(lines)
