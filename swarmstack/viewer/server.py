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

For this machine only: it binds to a loopback address, answers only requests whose ``Host`` is
``localhost``, ``127.0.0.1`` or ``[::1]`` (with or without its port; others get 403, which
stops a web page that reaches it through DNS rebinding), serves only regular files that resolve
inside the recording folder, answers at most :data:`MAX_CONNECTIONS` connections at once and
closes one that stalls for :data:`IDLE_S`. A request it fails on gets a one-line error.
"""

from __future__ import annotations

import contextlib
import errno
import json
import socket
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Optional
from urllib.parse import parse_qs

from swarmstack.viewer.recording import (Recorder, Recording, RecordingError, open_recording,
                                         read_inside)

WEB = Path(__file__).parent / "web"
BUNDLE = WEB / "dist" / "viewer.js"
NOT_BUILT = b"""<!doctype html><meta charset="utf-8"><title>swarmstack viewer</title>
<p id="message">The viewer page is not built yet: run <code>make demo</code> (or
<code>cd swarmstack/viewer/web &amp;&amp; npm ci &amp;&amp; npm run build</code>) once.</p>"""
LOOPBACK = {"127.0.0.1": socket.AF_INET, "::1": socket.AF_INET6}   # addresses it binds to
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")   # Host headers it answers (± its port)
FOREIGN_HOST = "forbidden: this viewer answers only to localhost, 127.0.0.1 or [::1]"
MAX_CONNECTIONS = 32   # connections answered at once
IDLE_S = 10.0          # a connection whose request or answer stalls this long is closed


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
        shown = self.recorder or self.recording
        return shown.header if shown is not None else None

    @property
    def folder(self) -> Optional[Path]:
        shown = self.recorder or self.recording
        return shown.folder if shown is not None else None

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
                return read_inside(r.folder, f"chunk-{k:06d}.bin")
            if k == r.chunks:
                data = r.pending()
                if not data and k < r.chunks:  # it was written out meanwhile
                    return read_inside(r.folder, f"chunk-{k:06d}.bin")
                return data
            return None
        if self.recording is None or not 0 <= k < len(self.recording.chunk_sizes):
            return None
        try:
            return self.recording.chunk(k)
        except RecordingError:
            return None

    def overlay(self, kind: str, k: int) -> Optional[bytes]:
        """Chunk ``k``'s ``links`` (binary) or ``text`` (JSON) overlay, or None."""
        if self.recorder is not None:
            r = self.recorder
            if k == r.chunks and not r.closed:
                return r.links_bytes() if kind == "links" else json.dumps(r.texts()).encode()
            name = f"links-{k:06d}.bin" if kind == "links" else f"text-{k:06d}.json"
            data = read_inside(r.folder, name)
            if data is None:
                return b"[]" if kind == "text" and 0 <= k <= r.chunks else None
            return data
        return None if self.recording is None else self.recording.overlay(kind, k)


def _handler(source: Source, idle_s: float):
    class Handler(BaseHTTPRequestHandler):
        server_version = "swarmstack-viewer"
        timeout = idle_s     # the socket's: a request (or an answer) stalled this long is dropped

        def log_message(self, fmt, *args):  # quiet: the console is the run's
            pass

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.end_headers()
                self.wfile.write(body)
            except OSError:     # the client went away, or stopped reading
                self.close_connection = True

        def _json(self, code: int, data: dict) -> None:
            self._send(code, json.dumps(data).encode(), "application/json")

        def do_GET(self):  # noqa: N802 (the standard library's name)
            self.server.answering(self.connection)
            t0 = time.thread_time()
            try:
                host = (self.headers.get("Host") or "").strip().lower()
                if host not in self.server.hosts:   # e.g. a page reaching here by DNS rebinding
                    return self._send(403, f"{FOREIGN_HOST}\n".encode(),
                                      "text/plain; charset=utf-8")
                self._get()
            except Exception as exc:  # noqa: BLE001 - one line to the page, never a traceback
                why = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
                self._json(500, {"error": f"the server failed: {why}"})
            finally:  # CPU time this server took from the process (a live run's cost)
                self.server.busy_s += time.thread_time() - t0

        def _get(self):
            path, _, qs = self.path.partition("?")
            query = parse_qs(qs)
            if path in ("/", "/index.html"):
                page = (WEB / "index.html").read_bytes() if BUNDLE.is_file() else NOT_BUILT
                return self._send(200, page, "text/html; charset=utf-8")
            if path == "/dist/viewer.js" and BUNDLE.is_file():
                return self._send(200, BUNDLE.read_bytes(), "text/javascript; charset=utf-8")
            if path == "/api/header":
                h = source.header
                return self._json(404, {"error": source.why}) if h is None else self._json(200, h)
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
                data = read_inside(source.folder, "floor.png")
                if data is not None:
                    return self._send(200, data, "image/png")
            if path == "/favicon.ico":
                return self._send(204, b"", "image/x-icon")
            return self._json(404, {"error": f"not found: {path}"})

    return Handler


class _Server(ThreadingHTTPServer):
    """A thread per connection, at most ``max_connections`` at once. When all are taken, a new
    connection closes the one that has waited longest for its request to arrive (a page's
    request arrives as it connects, so only stalled ones go); with none waiting, it waits for
    one to end, up to ``idle_s``, and is closed if none did."""

    daemon_threads = True
    block_on_close = False   # closing never waits for an answer still being written
    request_queue_size = 128

    def __init__(self, address, handler, family: int, max_connections: int, idle_s: float):
        self.address_family = family
        self.idle_s = idle_s
        self.busy_s = 0.0
        self._slots = threading.BoundedSemaphore(max_connections)
        self._reading: dict = {}        # connection -> when accepted, until its request is in
        self._lock = threading.Lock()
        super().__init__(address, handler)
        port = self.server_address[1]
        self.hosts = {name + tail for name in LOOPBACK_NAMES for tail in ("", f":{port}")}

    def process_request(self, request, client_address):
        if not self._slots.acquire(blocking=False):
            self._drop_oldest_waiting()
            if not self._slots.acquire(timeout=self.idle_s):
                self.shutdown_request(request)
                return
        with self._lock:
            self._reading[request] = time.monotonic()
        try:
            super().process_request(request, client_address)
        except BaseException:           # no thread started: it will not free the slot
            self._done(request)
            self.shutdown_request(request)
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._done(request)

    def _done(self, request) -> None:
        with self._lock:
            self._reading.pop(request, None)
        self._slots.release()

    def answering(self, request) -> None:
        """``request``'s connection has sent its request: it is no longer waited for."""
        with self._lock:
            self._reading.pop(request, None)

    def _drop_oldest_waiting(self) -> None:
        with self._lock:
            if not self._reading:
                return
            oldest = min(self._reading, key=self._reading.__getitem__)
            del self._reading[oldest]
        with contextlib.suppress(OSError):   # its thread's read returns at once, and ends
            oldest.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request, client_address):
        pass   # a connection reset or timed out ends quietly; the server goes on


@dataclass
class Served:
    """A server running in a background thread: its ``url``; ``note`` says when it had to
    take another port than the one asked for."""

    server: _Server
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


def serve(source: Source, port: int = 8765, host: str = "127.0.0.1", *,
          max_connections: int = MAX_CONNECTIONS, idle_s: float = IDLE_S) -> Served:
    """Start serving ``source`` on ``host:port`` (0: any free port); a port in use → a free one,
    said in ``note``. ``host`` is a loopback address (127.0.0.1 or ::1): the viewer is for
    this machine only."""
    if host not in LOOPBACK:
        raise ValueError(f"the viewer serves on 127.0.0.1 or ::1 only, not {host!r}")
    handler = _handler(source, idle_s)
    note = None
    try:
        server = _Server((host, port), handler, LOOPBACK[host], max_connections, idle_s)
    except OSError as exc:
        if exc.errno not in (errno.EADDRINUSE, errno.EACCES):
            raise
        server = _Server((host, 0), handler, LOOPBACK[host], max_connections, idle_s)
        note = f"port {port} is in use; serving on port {server.server_address[1]} instead"
    thread = threading.Thread(target=server.serve_forever, name="viewer-server",
                              kwargs={"poll_interval": 0.25}, daemon=True)
    thread.start()
    real = server.server_address[1]
    name = f"[{host}]" if ":" in host else host
    return Served(server, thread, f"http://{name}:{real}/", real, note)


def replay_source(out_dir: Path) -> Source:
    """A recording on disk (raises RecordingError when there is none)."""
    return Source(recording=open_recording(out_dir))
