"""The viewer's local HTTP server (standard library only): the page, and a recording's header,
status and chunks under ``api/``, for a finished run on disk or a run in progress.

The page polls ``api/status`` (twice a second, only while a run is live) and fetches chunks
(``api/chunk/K``; of the chunk being filled, only the frames it lacks): a live run's server
thread does no work between the page's requests, which keeps what a live view costs the
simulation small.

Routes: ``/`` the page · ``/dist/viewer.js`` its bundle · ``api/header`` (JSON; 404 with
``{"error"}`` when there is no run) · ``api/status`` (frames, chunk_frames, live, complete,
stops) · ``api/chunk/K[?from=I]`` (the chunk's whole frames from frame I, binary) ·
``api/links/K`` and ``api/text/K`` (the chunk's radio links and debug text) ·
``api/floor.png``.
"""

from __future__ import annotations

import errno
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Optional
from urllib.parse import parse_qs

from swarmstack.viewer.recording import Recorder, Recording, open_recording

WEB = Path(__file__).parent / "web"
BUNDLE = WEB / "dist" / "viewer.js"
NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>swarmstack viewer</title>
<p id="message">The viewer page is not built yet: run <code>make demo</code> (or
<code>cd swarmstack/viewer/web &amp;&amp; npm ci &amp;&amp; npm run build</code>) once.</p>"""


class Source:
    """What the server shows: nothing (``header`` None and ``why``), a recording on disk, or a
    recorder of a running simulation."""

    def __init__(self, recording: Optional[Recording] = None, recorder: Optional[Recorder] = None,
                 why: str = "no run was given"):
        self.recording = recording
        self.recorder = recorder
        self.why = why

    @property
    def header(self) -> Optional[dict]:
        if self.recorder is not None:
            return self.recorder.header
        return self.recording.header if self.recording is not None else None

    @property
    def folder(self) -> Optional[Path]:
        if self.recorder is not None:
            return self.recorder.folder
        return self.recording.folder if self.recording is not None else None

    def status(self) -> dict:
        if self.recorder is not None:
            r = self.recorder
            return {"frames": r.frames, "chunk_frames": r.chunk_frames, "live": not r.closed,
                    "complete": r.closed, "stops": None,
                    "status": "running" if not r.closed else "ended"}
        if self.recording is None:
            return {"frames": 0, "chunk_frames": 1, "live": False, "complete": False,
                    "stops": self.why, "status": None}
        return self.recording.status()

    def chunk(self, k: int) -> Optional[bytes]:
        if self.recorder is not None:
            r = self.recorder
            if k < r.chunks:
                return (r.folder / f"chunk-{k:06d}.bin").read_bytes()
            if k == r.chunks:
                data = r.pending()
                if not data and k < r.chunks:  # it was written out meanwhile
                    return (r.folder / f"chunk-{k:06d}.bin").read_bytes()
                return data
            return None
        if self.recording is None or not 0 <= k < len(self.recording.chunk_sizes):
            return None
        return self.recording.chunk(k)


    def overlay(self, kind: str, k: int) -> Optional[bytes]:
        """Chunk ``k``'s ``links`` (binary) or ``text`` (JSON) overlay, or None."""
        if self.recorder is not None:
            r = self.recorder
            if k == r.chunks and not r.closed:
                return r.links_bytes() if kind == "links" else json.dumps(r.texts()).encode()
            name = f"links-{k:06d}.bin" if kind == "links" else f"text-{k:06d}.json"
            try:
                return (r.folder / name).read_bytes()
            except OSError:
                return b"[]" if kind == "text" and 0 <= k <= r.chunks else None
        if self.recording is None:
            return None
        return self.recording.overlay(kind, k)


def _handler(source: Source):
    class Handler(BaseHTTPRequestHandler):
        server_version = "swarmstack-viewer"

        def log_message(self, fmt, *args):  # quiet: the console is the run's
            pass

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            try:
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def _json(self, code: int, data: dict) -> None:
            self._send(code, json.dumps(data).encode(), "application/json")

        def do_GET(self):  # noqa: N802 (the standard library's name)
            t0 = time.thread_time()
            try:
                self._get()
            finally:  # CPU time this server took from the process (a live run's cost)
                self.server.busy_s += time.thread_time() - t0

        def _get(self):
            path, _, qs = self.path.partition("?")
            query = parse_qs(qs)
            if path in ("/", "/index.html"):
                if not BUNDLE.is_file():
                    return self._send(200, NOT_BUILT.encode(), "text/html; charset=utf-8")
                return self._send(200, (WEB / "index.html").read_bytes(),
                                  "text/html; charset=utf-8")
            if path == "/dist/viewer.js" and BUNDLE.is_file():
                return self._send(200, BUNDLE.read_bytes(), "text/javascript; charset=utf-8")
            if path == "/api/header":
                h = source.header
                if h is None:
                    return self._json(404, {"error": source.why})
                return self._json(200, h)
            if path == "/api/status":
                return self._json(200, source.status())
            if path.startswith("/api/chunk/"):
                try:
                    k = int(path.rsplit("/", 1)[1])
                    first = int(query.get("from", ["0"])[0])
                except ValueError:
                    k = first = -1
                data = source.chunk(k) if k >= 0 and first >= 0 else None
                if data is None:
                    return self._json(404, {"error": f"no chunk {path.rsplit('/', 1)[1]}"})
                # ?from=I: only frames I… (a live page fetches what it does not hold yet)
                fb = int(source.header["frame"]["frame_bytes"])
                return self._send(200, data[first * fb:], "application/octet-stream")
            for kind in ("links", "text"):
                if path.startswith(f"/api/{kind}/"):
                    try:
                        data = source.overlay(kind, int(path.rsplit("/", 1)[1]))
                    except ValueError:
                        data = None
                    if data is None:
                        return self._json(404, {"error": f"no {kind} for {path}"})
                    return self._send(200, data, "application/octet-stream" if kind == "links"
                                      else "application/json")
            if path == "/api/floor.png" and source.folder is not None:
                f = source.folder / "floor.png"
                if f.is_file():
                    return self._send(200, f.read_bytes(), "image/png")
            if path == "/favicon.ico":
                return self._send(204, b"", "image/x-icon")
            return self._json(404, {"error": f"not found: {path}"})

    return Handler


@dataclass
class Served:
    """A server running in a background thread: its ``url``; ``note`` says when it had to
    take another port than the one asked for."""

    server: ThreadingHTTPServer
    thread: threading.Thread
    url: str
    port: int
    note: Optional[str] = None

    @property
    def busy_s(self) -> float:
        """CPU seconds spent answering requests so far."""
        return self.server.busy_s

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


def serve(source: Source, port: int = 8765, host: str = "127.0.0.1") -> Served:
    """Start serving ``source`` on ``host:port`` (0: any free port); a port in use → a free one,
    said in ``note``."""
    note = None
    try:
        server = ThreadingHTTPServer((host, port), _handler(source))
    except OSError as exc:
        if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
            raise
        server = ThreadingHTTPServer((host, 0), _handler(source))
        note = f"port {port} is in use; serving on port {server.server_address[1]} instead"
    server.daemon_threads = True
    server.block_on_close = False   # closing never waits for an answer still being written
    server.busy_s = 0.0
    thread = threading.Thread(target=server.serve_forever, name="viewer-server",
                              kwargs={"poll_interval": 0.25}, daemon=True)
    thread.start()
    real = server.server_address[1]
    return Served(server, thread, f"http://{host}:{real}/", real, note)


def replay_source(out_dir: Path) -> Source:
    """A recording on disk (raises RecordingError when there is none)."""
    return Source(recording=open_recording(out_dir))
