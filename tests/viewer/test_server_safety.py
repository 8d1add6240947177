"""The viewer's server lets in only what belongs to the run, only from this machine, and keeps
answering: files that resolve outside the recording are not served, foreign Host headers are
refused, connections are bounded and stalled ones dropped, and a malformed recording is one
clear line, never a traceback."""

import copy
import json
import os
import shutil
import socket
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.experiments.config import parse_experiment
from swarmstack.sim.simulation import Simulation
from swarmstack.viewer.recording import Recorder, RecordingError, open_recording
from swarmstack.viewer.server import MAX_CONNECTIONS, Source, serve
from tests.viewer.conftest import HERE, experiment

SECRET = b"root:x:0:0:not for the page\n"


def _request(port: int, path: str, host="127.0.0.1", timeout_s: float = 10.0):
    """(status, body) of a GET of ``path`` with the Host header ``host`` (None: no Host)."""
    head = f"GET {path} HTTP/1.1\r\n" + (f"Host: {host}\r\n" if host is not None else "")
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as conn:
        conn.sendall((head + "Connection: close\r\n\r\n").encode("latin-1"))
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    status, _, rest = data.partition(b"\r\n")
    return int(status.split()[1]), rest.partition(b"\r\n\r\n")[2]


@pytest.fixture
def run(recorded, tmp_path) -> Path:
    """A copy of the recorded run, and a file outside it that must never be served."""
    shutil.copytree(recorded, tmp_path / "run")
    (tmp_path / "secret.txt").write_bytes(SECRET)
    return tmp_path / "run"


# ----------------------------------------------------------------------------- files
def test_links_out_of_the_recording_are_not_served(run):
    folder = run / "recording"
    secret = run.parent / "secret.txt"
    source = Source(recording=open_recording(run))
    for name in ("floor.png", "text-000000.json", "links-000000.bin", "chunk-000000.bin"):
        if (folder / name).exists():
            os.remove(folder / name)
        os.symlink(secret, folder / name)
    served = serve(source, 0)
    try:
        for path in ("/api/floor.png", "/api/links/0", "/api/chunk/0"):
            code, body = _request(served.port, path)
            assert code == 404 and SECRET not in body, path
        assert _request(served.port, "/api/text/0") == (200, b"[]")   # as if none was logged
    finally:
        served.stop()
    # opened afresh, the recording names the chunk that leads out of it
    with pytest.raises(RecordingError, match=r"chunk-000000\.bin points outside the recording"):
        open_recording(run)


def test_a_link_to_a_file_of_the_recording_is_served_a_device_is_not(run):
    folder = run / "recording"
    (folder / "art").mkdir()
    (folder / "art" / "floor-copy.png").write_bytes(b"\x89PNG picture")
    os.symlink("art/floor-copy.png", folder / "floor.png")
    served = serve(Source(recording=open_recording(run)), 0)
    try:
        assert _request(served.port, "/api/floor.png") == (200, b"\x89PNG picture")
        os.remove(folder / "floor.png")
        os.mkfifo(folder / "floor.png")      # reading it would wait for a writer forever
        assert _request(served.port, "/api/floor.png")[0] == 404
    finally:
        served.stop()


def test_a_live_run_serves_no_link_out_of_its_folder(tmp_path):
    cfg = parse_experiment(experiment(), "viewer-test")
    sim = Simulation(cfg, base_dir=HERE)
    sim.start()
    rec = Recorder(sim, tmp_path / "run", every=1, chunk_frames=2)
    for _ in range(5):
        rec.frame()
        sim.step()
    (tmp_path / "secret.txt").write_bytes(SECRET)
    for name in ("floor.png", "chunk-000000.bin", "links-000001.bin"):
        if (rec.folder / name).exists():
            os.remove(rec.folder / name)
        os.symlink(tmp_path / "secret.txt", rec.folder / name)
    served = serve(Source(recorder=rec), 0)
    try:
        for path in ("/api/floor.png", "/api/chunk/0", "/api/links/1"):
            code, body = _request(served.port, path)
            assert code == 404 and SECRET not in body, path
        assert _request(served.port, "/api/chunk/1")[0] == 200
    finally:
        served.stop()


# ------------------------------------------------------------------------------ hosts
@pytest.fixture(scope="module")
def server(recorded):
    served = serve(Source(recording=open_recording(recorded)), 0)
    yield served
    served.stop()


def test_only_loopback_hosts_are_answered(server):
    port = server.port
    for host in ("localhost", f"localhost:{port}", "127.0.0.1", f"127.0.0.1:{port}", "[::1]",
                 f"[::1]:{port}", f"LocalHost:{port}"):
        assert _request(port, "/api/status", host)[0] == 200, host
    for host in (f"evil.example:{port}", "evil.example", f"localhost.evil.example:{port}",
                 f"127.0.0.1:{port + 1 if port < 65535 else 1}", "0.0.0.0", "", None):
        code, body = _request(port, "/api/header", host)
        assert code == 403 and b"localhost" in body and len(body) < 200, host
        assert b"swarmstack-recording" not in body


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(host=st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7e), max_size=30))
def test_any_other_host_is_refused(server, host):
    allowed = {n + t for n in ("localhost", "127.0.0.1", "[::1]") for t in ("", f":{server.port}")}
    code, _ = _request(server.port, "/api/status", host)
    assert code == (200 if host.lower() in allowed else 403)


def test_it_binds_to_loopback_only(server, recorded):
    assert server.server.server_address[0] == "127.0.0.1"
    with pytest.raises(ValueError, match="127.0.0.1 or ::1 only"):
        serve(Source(recording=open_recording(recorded)), 0, host="0.0.0.0")


# ------------------------------------------------------------------------ connections
def test_stalled_connections_are_bounded_and_a_page_still_gets_answers(recorded):
    served = serve(Source(recording=open_recording(recorded)), 0)
    before = threading.active_count()
    stalled = []
    try:
        for _ in range(300):           # each sends half a request and then nothing
            conn = socket.create_connection(("127.0.0.1", served.port), timeout=10)
            conn.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: ")
            stalled.append(conn)
            assert threading.active_count() <= before + MAX_CONNECTIONS + 1
        code, body = _request(served.port, "/api/status")
        assert code == 200 and json.loads(body)["frames"] == 21
        assert threading.active_count() <= before + MAX_CONNECTIONS + 1
    finally:
        for conn in stalled:
            conn.close()
        served.stop()


def test_a_connection_that_stalls_is_closed(recorded):
    served = serve(Source(recording=open_recording(recorded)), 0, idle_s=0.5)
    try:
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as conn:
            conn.sendall(b"GET /api/status HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            assert conn.recv(1) == b""       # closed by the server, with no answer
        assert _request(served.port, "/api/status")[0] == 200
    finally:
        served.stop()


# ------------------------------------------------------------------ malformed recordings
def _one_clear_line(run: Path, names: str):
    """``swarmstack view`` exits 1 with one line naming the file ``names``."""
    # --screenshot: a recording that opens after all ends the command too (no server held)
    r = CliRunner().invoke(app, ["view", str(run), "--screenshot", str(run / "x.png")])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and names in lines[0], r.output
    assert "Traceback" not in r.output
    return lines[0]


def _header(run: Path) -> dict:
    return json.loads((run / "recording" / "header.json").read_text())


@pytest.mark.parametrize("text, says", [
    ("[]", "the header is a list, expected an object"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
    ("", "is not valid JSON"),
    ("{\"format\": ", "is not valid JSON"),
])
def test_an_unreadable_header_is_one_line(run, text, says):
    (run / "recording" / "header.json").write_text(text)
    assert says in _one_clear_line(run, "header.json")


@pytest.mark.parametrize("change, says", [
    (lambda h: h.pop("frame"), "frame is missing"),
    (lambda h: h["frame"].update(frame_bytes=0), "frame.frame_bytes is 0, expected a whole"),
    (lambda h: h["frame"].update(frame_bytes=-8), "frame.frame_bytes is -8"),
    (lambda h: h["frame"].update(frame_bytes="84"), "frame.frame_bytes is a string"),
    (lambda h: h["frame"].update(frame_bytes=4), "less than the"),
    (lambda h: h.update(chunk_frames=0), "chunk_frames is 0"),
    (lambda h: h.update(chunk_frames=[]), "chunk_frames is a list"),
    (lambda h: h.update(chunks=[], robots=None), "robots is null"),
    (lambda h: h.update(dt_s=-0.1), "dt_s is -0.1"),
    (lambda h: h["arena"].update(bounds=[0, 1]), "arena.bounds is a list"),
    (lambda h: h.update(groups={}), "groups is an object"),
    (lambda h: h["groups"][0].update(count=99), "groups[0] has rows"),
])
def test_a_header_with_wrong_keys_is_one_line(run, change, says):
    h = _header(run)
    change(h)
    (run / "recording" / "header.json").write_text(json.dumps(h))
    assert says in _one_clear_line(run, "header.json")


def test_an_end_file_of_the_wrong_shape_is_one_line(run):
    (run / "recording" / "end.json").write_text(json.dumps({"status": "completed",
                                                            "chunks": []}))
    assert "chunks is a list" in _one_clear_line(run, "end.json")


@pytest.mark.parametrize("make, says", [
    (lambda p: p.mkdir(), "is a folder, not a file"),
    (lambda p: os.symlink(p.parent / "gone.bin", p), "is a symbolic link to nothing"),
    (lambda p: os.symlink(p.parent.parent.parent / "secret.txt", p), "points outside"),
])
def test_a_chunk_that_is_no_file_of_the_recording_is_one_line(run, make, says):
    chunk = run / "recording" / "chunk-000000.bin"
    os.remove(chunk)
    make(chunk)
    assert says in _one_clear_line(run, "chunk-000000.bin")


def test_a_header_that_leads_out_of_the_recording_is_one_line(run):
    head = run / "recording" / "header.json"
    shutil.copy(head, run.parent / "elsewhere.json")
    os.remove(head)
    os.symlink(run.parent / "elsewhere.json", head)
    assert "points outside the recording folder" in _one_clear_line(run, "header.json")


def _paths(value, at=()):
    """Every key path of a JSON value."""
    yield at
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, at + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            yield from _paths(v, at + (i,))


JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**6)
                    | st.floats(allow_nan=True) | st.text(max_size=4),
                    lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=3), inner, max_size=3), max_leaves=6)
DELETE = object()


@pytest.fixture(scope="module")
def fuzzed(recorded):
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copytree(recorded, Path(tmp) / "run")
        yield Path(tmp) / "run", _header(Path(tmp) / "run")


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_a_mutated_header_opens_or_is_one_clear_line(fuzzed, data):
    run, valid = fuzzed
    paths = list(_paths(valid))
    header = copy.deepcopy(valid)
    for _ in range(data.draw(st.integers(1, 3), "mutations")):
        at = data.draw(st.sampled_from(paths), "path")
        new = data.draw(st.one_of(st.just(DELETE), JSON), "value")
        if not at:
            header = {} if new is DELETE else new
            continue
        parent = header
        try:
            for key in at[:-1]:
                parent = parent[key]
            if new is DELETE:
                del parent[at[-1]]
            else:
                parent[at[-1]] = new
        except (KeyError, IndexError, TypeError):   # an earlier mutation changed the shape
            pass
    (run / "recording" / "header.json").write_text(json.dumps(header))
    try:
        rec = open_recording(run)
    except RecordingError as exc:
        line = str(exc)
        assert "\n" not in line and "header.json" in line
        _one_clear_line(run, "header.json")
        return
    # it opens: what a page or a picture asks of it is answered, never with a traceback
    for k in range(len(rec.chunk_sizes)):
        assert rec.frames_array(k)["tick"].shape == (rec.chunk_sizes[k],)
    assert isinstance(rec.last_tick(), int) if rec.frames else rec.stops
    served = serve(Source(recording=rec), 0)
    try:
        for path in ("/api/header", "/api/status", "/api/chunk/0", "/api/chunk/0?from=3",
                     "/api/links/0", "/api/text/0", "/api/floor.png", "/api/chunk/1"):
            code, body = _request(served.port, path)
            assert code in (200, 404) and b"Traceback" not in body, (path, code, body[:200])
    finally:
        served.stop()
