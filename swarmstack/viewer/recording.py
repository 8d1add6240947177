"""A run's recording for the viewer: a JSON header and fixed-size binary chunks of frames.

``DIR/recording/`` holds

- ``header.json`` — written once when the run starts: the arena (bounds, boxes, cylinders,
  lights, floor colour or ``floor.png``), every group's body shape and LED layout, the frame
  layout, ``dt_s``, ``record_every`` and ``chunk_frames``;
- ``chunk-000000.bin``, ``chunk-000001.bin`` … — ``chunk_frames`` frames each (the last one
  may hold fewer), every chunk written under a temporary name and renamed once complete, so a
  killed run leaves only whole chunks;
- ``links-000000.bin`` … beside each chunk when the run has a radio: who heard whom in each
  frame (``uint32`` frame count F, ``uint32[F + 1]`` offsets into the pairs, then ``uint32[M, 2]``
  (sender, receiver) robot rows), written before its chunk;
- ``text-000000.json`` … beside each chunk when scripts logged lines: ``[[frame in chunk, robot
  row, text], …]`` (at most :data:`MAX_TEXT` characters a line, the last line per robot and
  frame), written before its chunk;
- ``end.json`` — written when the run ends (``frames``, ``last_tick``, ``status``). Without it
  the run was killed, or is still going.

A frame is ``frame_bytes`` little-endian bytes: ``int32`` tick, ``float32[N, 6]`` poses
(x, y, z, roll, pitch, yaw of run 0's robots in group order), ``uint8[K, 3]`` colours of
every logical LED of those robots (group by group, robot by robot), then ``uint8[R]`` sensor
rays — the hit distance of every ray of every ray-casting device (proximity, time of flight),
as a fraction of its range times 254, 255 when nothing is in range — zero-padded to a multiple
of 4 bytes. Fixed-size frames make a chunk's frame count its size divided by ``frame_bytes``,
and let a page view each frame's arrays without copying.

Only run 0 of a batch is recorded: the viewer shows one run.

The reader (:func:`open_recording`) trusts none of it: a header or end file of the wrong shape,
or a first chunk that is no file of the recording, is one line naming the file and the key; a
later chunk that is unusable, truncated or whose ticks do not run forward ends the replay
there, said in one line with the last good tick.
"""

from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from swarmstack.experiments.results_writer import ResultsWriteError, write_file_atomic
from swarmstack.media.rab import SummedInbox

FORMAT = "swarmstack-recording"
VERSION = 1
POSE_FIELDS = ("x", "y", "z", "roll", "pitch", "yaw")
DEFAULT_CHUNK_BYTES = 4 << 20      # a chunk of about 4 MiB: a few per second of a big run
MAX_CHUNK_FRAMES = 1000            # … and at most this many frames (a page fetches whole chunks)
MAX_FLOOR_PX = 2048                # a floor image larger than this is scaled down for the page
MAX_TEXT = 200                     # characters of a robot's debug text kept per line
_CHUNK = re.compile(r"chunk-(\d{6,})\.bin")


def recording_dir(out_dir: Path) -> Path:
    return Path(out_dir) / "recording"


# ------------------------------------------------------------------------------------ layout
@dataclass(frozen=True)
class FrameLayout:
    """Where each array lives in a frame (byte offsets)."""

    robots: int
    leds: int
    rays: int = 0

    @property
    def pose_offset(self) -> int:
        return 4

    @property
    def leds_offset(self) -> int:
        return 4 + 24 * self.robots

    @property
    def rays_offset(self) -> int:
        return self.leds_offset + 3 * self.leds

    @property
    def frame_bytes(self) -> int:
        raw = self.rays_offset + self.rays
        return (raw + 3) // 4 * 4

    def describe(self) -> dict:
        return {"frame_bytes": self.frame_bytes,
                "fields": [{"name": "tick", "dtype": "int32", "offset": 0, "shape": [1]},
                           {"name": "pose", "dtype": "float32", "offset": self.pose_offset,
                            "shape": [self.robots, 6], "columns": list(POSE_FIELDS)},
                           {"name": "leds", "dtype": "uint8", "offset": self.leds_offset,
                            "shape": [self.leds, 3]},
                           {"name": "rays", "dtype": "uint8", "offset": self.rays_offset,
                            "shape": [self.rays]}]}


# ------------------------------------------------------------------------------------ header
def _floor(arena, folder: Path) -> dict:
    tex = arena.floor.texture
    if tex.shape[0] == 1 and tex.shape[1] == 1:
        return {"rgb": [int(c) for c in tex[0, 0]]}
    from PIL import Image

    img = Image.fromarray(tex, "RGB")
    scale = MAX_FLOOR_PX / max(img.size)
    if scale < 1:
        img = img.resize((max(1, round(img.size[0] * scale)), max(1, round(img.size[1] * scale))),
                         Image.Resampling.BOX)
    import io

    buf = io.BytesIO()
    img.save(buf, "PNG")
    write_file_atomic(folder / "floor.png", buf.getvalue())
    return {"image": "floor.png", "size_px": list(img.size)}


def ray_devices(g) -> list:
    """(device name, RayLayout) of group ``g``'s ray-casting devices, whose state holds each
    ray's hit distance (m) after sensing (``sensors.ranging.cast``)."""
    from swarmstack.sensors.ranging import RayLayout

    out = []
    for name, dev in g.devices.items():
        layout = getattr(dev, "layout", None)
        state = g.states.get(name)
        if isinstance(layout, RayLayout) and isinstance(state, np.ndarray) and \
                state.shape == (g.slice.n, layout.count) and state.dtype.kind == "f":
            out.append((name, layout))
    return out


def scene_header(sim, record_every: int, chunk_frames: int, folder: Path) -> dict:
    """The header of ``sim``'s recording (writes ``floor.png`` into ``folder`` when the floor is
    not uniform)."""
    arena = sim.world.scene.arena
    groups, rows, led_count, ray_count = [], [], 0, 0
    for g in sim.groups:
        sl, rt = g.slice, g.robot_type
        ids = sim.world.bodies.robot_id[sl.start:sl.start + sl.per_run]
        body = rt.body
        entry = {"name": sl.name, "type": rt.name, "count": int(sl.per_run),
                 "first_row": len(rows),
                 "robot_ids": [int(i) for i in ids],
                 "body": {"shape": body.shape, "half_x": body.half_x, "half_y": body.half_y,
                          "height_m": body.height_m},
                 "leds": None}
        em = rt.emitters
        if em is not None and "leds" in g.commands:
            entry["leds"] = {"count": em.n_leds, "first": led_count,
                             "emitters_m": np.asarray(em.positions_m).round(6).tolist(),
                             "owner": [int(o) for o in em.owner]}
            led_count += em.n_leds * int(sl.per_run)
        entry["rays"] = []
        for name, layout in ray_devices(g):
            entry["rays"].append({"device": name, "first": ray_count, "count": layout.count,
                                  "angle_rad": layout.angle_rad.round(6).tolist(),
                                  "ring_m": layout.ring_m.round(6).tolist(),
                                  "elevation_m": layout.elevation_m.round(6).tolist(),
                                  "range_m": float(layout.range_m)})
            ray_count += layout.count * int(sl.per_run)
        groups.append(entry)
        rows.extend(range(sl.start, sl.start + sl.per_run))
    layout = FrameLayout(len(rows), led_count, ray_count)
    lights = [{"x": float(x), "y": float(y), "z": float(z), "intensity": float(i),
               "rgb": [int(c) for c in rgb]}
              for (x, y, z, i), rgb in zip(arena.lights, arena.light_rgb)]
    return {
        "format": FORMAT, "version": VERSION, "source": sim.source, "seed": int(sim.seed),
        "dt_s": float(sim.world.scene.dt), "record_every": int(record_every),
        "chunk_frames": int(chunk_frames), "robots": layout.robots, "leds": layout.leds,
        "rays": layout.rays,
        "frame": layout.describe(),
        "arena": {"bounds": [float(v) for v in arena.bounds],
                  "boxes": [dict(zip(("cx", "cy", "half_x", "half_y", "yaw", "height"),
                                     (float(v) for v in row[:6]))) for row in arena.boxes],
                  "cylinders": [dict(zip(("cx", "cy", "radius", "height"),
                                         (float(v) for v in row))) for row in arena.cylinders],
                  "lights": lights, "floor": _floor(arena, folder)},
        "groups": groups,
    }


# ------------------------------------------------------------------------------------ writer
class Recorder:
    """Writes ``sim``'s recording into ``out_dir/recording``; the runner calls :meth:`frame`
    after every ``every``-th tick and :meth:`close` at the end.

    Frames go into a preallocated chunk buffer; a full chunk is written (atomically) and a new
    one started. A live view reads complete chunks from disk and the frames of the chunk being
    filled from :meth:`pending` (under the GIL a frame is whole before ``filled`` counts it).
    """

    def __init__(self, sim, out_dir: Path, every: int = 1, chunk_frames: Optional[int] = None):
        self.sim = sim
        self.every = int(every)
        self.folder = recording_dir(out_dir)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ResultsWriteError(self.folder, exc.strerror or str(exc)) from None
        rows, leds = [], []
        for g in sim.groups:
            sl = g.slice
            rows.append(np.arange(sl.start, sl.start + sl.per_run))
            em = g.robot_type.emitters
            if em is not None and "leds" in g.commands:
                # what the LEDs show: the commanded colour less the channels an LED lacks
                mask = np.asarray(em.channels, dtype=np.uint8)[None]
                leds.append((g.commands["leds"], sl.per_run, mask))
        self._rows = np.concatenate(rows) if rows else np.zeros(0, np.int64)
        self._leds = leds
        # overlays: radio receptions and script log lines of run 0, by recorded row
        self._row_of = np.full(sim.world.bodies.n, -1, dtype=np.int64)
        self._row_of[self._rows] = np.arange(len(self._rows))
        self.has_links = sim.medium is not None
        if self.has_links:
            sim.medium.keep_inbox = True   # the links are drawn from every reception
        self._links: list[np.ndarray] = []     # pairs of each frame of the current chunk
        self._texts: list[list] = []           # [frame in chunk, row, text]
        ids = sim.world.bodies.robot_id[self._rows]
        names = [g.slice.name for g in sim.groups for _ in range(g.slice.per_run)]
        self._said = {(name, int(rid)): row      # (group, robot id) -> row
                      for row, (name, rid) in enumerate(zip(names, ids))}
        # sensor rays: (states, name, per_run, range) of each ray-casting device
        self._rays = [(g.states, name, g.slice.per_run, layout.range_m)
                      for g in sim.groups for name, layout in ray_devices(g)]
        self.header = h = scene_header(sim, self.every, 0, self.folder)
        self.layout = FrameLayout(h["robots"], h["leds"], h["rays"])
        fb = self.layout.frame_bytes
        self.chunk_frames = h["chunk_frames"] = int(chunk_frames) if chunk_frames else \
            max(1, min(MAX_CHUNK_FRAMES, DEFAULT_CHUNK_BYTES // fb))
        h["overlays"] = {"links": self.has_links, "text": True}
        write_file_atomic(self.folder / "header.json",
                      (json.dumps(self.header, indent=1) + "\n").encode())
        self._buf = np.zeros((self.chunk_frames, fb), dtype=np.uint8)
        self._tick = self._buf[:, 0:4].view("<i4")[:, 0]
        lo = self.layout
        self._pose = self._buf[:, lo.pose_offset:lo.leds_offset].view("<f4").reshape(
            self.chunk_frames, lo.robots, 6)
        self._ledbuf = self._buf[:, lo.leds_offset:lo.leds_offset + 3 * lo.leds].reshape(
            self.chunk_frames, lo.leds, 3)
        self._raybuf = self._buf[:, lo.rays_offset:lo.rays_offset + lo.rays]
        self.chunks = 0        # complete chunks on disk
        self.filled = 0        # frames of the current chunk
        self.last_tick = -1
        self.closed = False

    @property
    def frames(self) -> int:
        return self.chunks * self.chunk_frames + self.filled

    def frame(self) -> None:
        """Record the world as it is now (one frame)."""
        sim = self.sim
        k = self.filled
        tick = int(sim.world.tick)
        self._tick[k] = tick
        self._pose[k] = sim.world.bodies.pose[:, self._rows].T
        at = 0
        for cmd, per_run, mask in self._leds:
            n = per_run * mask.shape[1]
            self._ledbuf[k, at:at + n] = (cmd[:per_run] * mask).reshape(n, 3)
            at += n
        at = 0
        for states, name, per_run, range_m in self._rays:
            d = states[name][:per_run]
            n = d.size
            frac = np.minimum(d, range_m) * (254.0 / range_m)
            self._raybuf[k, at:at + n] = np.where(d < range_m, frac, 255.0).ravel()
            at += n
        if self.has_links:
            self._links.append(self._receptions())
        self.last_tick = tick
        self.filled = k + 1
        if self.filled == self.chunk_frames:
            self._flush()

    def _receptions(self) -> np.ndarray:
        """uint32[M, 2] (sender, receiver) rows of what run 0's robots heard this tick."""
        inbox = self.sim.medium.inbox
        if isinstance(inbox, SummedInbox):   # delivered before the recording began
            return np.zeros((0, 2), dtype=np.uint32)
        counts = np.diff(inbox.start)
        receiver = np.repeat(np.arange(counts.shape[0]), counts)
        s, r = self._row_of[inbox.sender], self._row_of[receiver]
        keep = (s >= 0) & (r >= 0)
        return np.stack([s[keep], r[keep]], axis=1).astype(np.uint32)

    def log(self, group: str, run: int, robot_id: int, tick: int, text: str) -> None:
        """A script's log line: the robot's debug text, shown from the next recorded frame."""
        row = self._said.get((group, int(robot_id))) if run == 0 else None
        if row is not None:
            self._texts.append([self.filled, row, str(text)[:MAX_TEXT]])

    def links_bytes(self, frames: Optional[int] = None) -> bytes:
        """The links file of the current chunk's first ``frames`` frames."""
        parts = self._links[:self.filled if frames is None else frames]
        offsets = np.zeros(len(parts) + 1, dtype=np.uint32)
        offsets[1:] = np.cumsum([len(p) for p in parts])
        pairs = np.concatenate(parts) if parts else np.zeros((0, 2), np.uint32)
        return (np.uint32(len(parts)).tobytes() + offsets.tobytes()
                + np.ascontiguousarray(pairs, dtype="<u4").tobytes())

    def texts(self, frames: Optional[int] = None) -> list:
        """Debug texts of the current chunk's first ``frames`` frames (a line logged during a
        tick belongs to the frame recorded after it)."""
        n = self.filled if frames is None else frames
        return [t for t in self._texts if t[0] < n]

    def _flush(self) -> None:
        if self.filled == 0:
            return
        k = self.chunks
        # overlays first: a chunk on disk always has its overlays beside it
        if self.has_links:
            write_file_atomic(self.folder / f"links-{k:06d}.bin", self.links_bytes())
        texts = self.texts()
        if texts:
            write_file_atomic(self.folder / f"text-{k:06d}.json", json.dumps(texts).encode())
        # the buffer itself (contiguous rows): no copy of a chunk of several MiB
        write_file_atomic(self.folder / f"chunk-{k:06d}.bin", memoryview(self._buf[:self.filled]))
        if self.filled == self.chunk_frames:
            self.chunks += 1
            self.filled = 0
            self._links = []
            # lines logged after the last frame of the chunk go to the next one
            self._texts = [[0, r, t] for f, r, t in self._texts if f >= self.chunk_frames]

    def pending(self) -> bytes:
        """The frames of the chunk being filled (not yet on disk), as chunk bytes."""
        return self._buf[:self.filled].tobytes()

    def close(self, status: str) -> None:
        """Write the last (short) chunk and ``end.json``."""
        if self.closed:
            return
        self.closed = True
        partial = self.filled
        self._flush()
        end = {"status": status, "frames": self.frames, "last_tick": self.last_tick,
               "chunks": self.chunks + (1 if partial else 0)}
        write_file_atomic(self.folder / "end.json", (json.dumps(end) + "\n").encode())


def recorder_for(cfg, sim, out_dir: Path, record: Optional[bool] = None,
                 every: Optional[int] = None) -> Optional[Recorder]:
    """The run's recorder, or None when recording is off (``record`` overrides the file's
    ``output.record``; ``every`` its ``output.record_every``)."""
    out = cfg.output
    on = out.record if record is None else record
    every = out.record_every if every is None else every
    return Recorder(sim, out_dir, every) if on else None


# ------------------------------------------------------------------------------------ reader
class RecordingError(ValueError):
    """No usable recording (the message says what is missing)."""


def _inside(folder: Path, name: str) -> tuple[Optional[str], str]:
    """(real path, "") of ``folder/name`` when it is a regular file that resolves inside
    ``folder`` (a symbolic link is followed only to a file in ``folder``); else (None, what it
    is instead)."""
    root = os.path.realpath(folder)
    path = os.path.join(root, name)
    real = os.path.realpath(path)
    if real == root or os.path.commonpath([root, real]) != root:
        return None, "points outside the recording folder"
    try:
        mode = os.stat(real).st_mode
    except FileNotFoundError:
        return None, "is a symbolic link to nothing" if os.path.islink(path) else "is missing"
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return None, "is a folder, not a file"
    return (real, "") if stat.S_ISREG(mode) else (None, "is not a regular file")


def read_inside(folder: Path, name: str, size: Optional[int] = None,
                offset: int = 0) -> Optional[bytes]:
    """``size`` bytes (all when None) from ``offset`` of ``folder/name`` when it is a regular
    file that resolves inside ``folder``; None otherwise (missing, a folder, a device, or a
    link out of ``folder``)."""
    real, _ = _inside(folder, name)
    if real is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(real, flags)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as fh:
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):   # replaced since it was looked at
                return None
            fh.seek(offset)
            return fh.read() if size is None else fh.read(size)
        except OSError:
            return None


def _shown(value) -> str:
    """What a JSON value is, for a message (a number or a constant: itself)."""
    return {dict: "an object", list: "a list", str: "a string"}.get(type(value)) \
        or json.dumps(value)


def _check_header(h, head: Path) -> None:
    """RecordingError naming the first key of header ``h`` (read from ``head``) that a reader or
    the page cannot use."""
    def wrong(path: str, value, expected: str):
        return RecordingError(f"{head}: {path} is {_shown(value)}, expected {expected}")

    def get(obj: dict, path: str, key: str, kind: type, expected: str, optional=False):
        if key not in obj:
            if optional:
                return None
            raise RecordingError(f"{head}: {path}{key} is missing")
        value = obj[key]
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)) or \
                kind is float and (isinstance(value, bool) or not isinstance(value, (int, float))
                                   or value != value or value in (float("inf"), float("-inf"))) \
                or kind not in (int, float) and not isinstance(value, kind):
            raise wrong(path + key, value, expected)
        return value

    def whole(obj: dict, path: str, key: str, least: int, optional=False) -> int:
        value = get(obj, path, key, int, f"a whole number ≥ {least}", optional)
        if value is not None and value < least:
            raise wrong(path + key, value, f"a whole number ≥ {least}")
        return value or 0

    if not isinstance(h, dict):
        raise wrong("the header", h, "an object")
    if h.get("format") != FORMAT or h.get("version") != VERSION:
        raise RecordingError(f"{head} is not a {FORMAT} version {VERSION} header")
    frame = get(h, "", "frame", dict, "an object")
    fb = whole(frame, "frame.", "frame_bytes", 1)
    fields = get(frame, "frame.", "fields", list, "a list")
    named = {f["name"]: f for f in fields
             if isinstance(f, dict) and isinstance(f.get("name"), str)}
    for name in ("pose", "leds"):
        if name not in named:
            raise RecordingError(f"{head}: frame.fields has no {name!r} field")
        whole(named[name], f"frame.fields[{name}].", "offset", 0)
    whole(h, "", "chunk_frames", 1)
    whole(h, "", "record_every", 1)
    dt = get(h, "", "dt_s", float, "a number > 0")
    if dt <= 0:
        raise wrong("dt_s", dt, "a number > 0")
    robots, leds = whole(h, "", "robots", 0), whole(h, "", "leds", 0)
    rays = whole(h, "", "rays", 0, optional=True)
    need = FrameLayout(robots, leds, rays).rays_offset + rays
    if fb < need:
        raise RecordingError(f"{head}: frame.frame_bytes is {fb}, less than the {need} bytes "
                             f"of {robots} robots, {leds} LEDs and {rays} rays")
    if fb != FrameLayout(robots, leds, rays).frame_bytes:
        raise RecordingError(f"{head}: frame.frame_bytes is {fb}, not the "
                             f"{FrameLayout(robots, leds, rays).frame_bytes} bytes of {robots} "
                             f"robots, {leds} LEDs and {rays} rays (padded to a multiple of 4)")
    arena = get(h, "", "arena", dict, "an object")
    bounds = get(arena, "arena.", "bounds", list, "[x0, y0, x1, y1]")
    if len(bounds) != 4 or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                   and abs(v) < float("inf") for v in bounds):
        raise wrong("arena.bounds", bounds, "[x0, y0, x1, y1] (4 numbers)")
    for key in ("boxes", "cylinders", "lights"):
        get(arena, "arena.", key, list, "a list")
    get(arena, "arena.", "floor", dict, "an object")
    groups = get(h, "", "groups", list, "a list")
    for i, g in enumerate(groups):
        if not isinstance(g, dict):
            raise wrong(f"groups[{i}]", g, "an object")
        first, count = whole(g, f"groups[{i}].", "first_row", 0), whole(g, f"groups[{i}].",
                                                                         "count", 0)
        if first + count > robots:
            raise RecordingError(f"{head}: groups[{i}] has rows {first} … {first + count - 1}, "
                                 f"beyond the {robots} robots of a frame")
        get(g, f"groups[{i}].", "body", dict, "an object")


def _read_json(folder: Path, name: str):
    """The JSON in ``folder/name`` (RecordingError naming the file when it cannot be had)."""
    path = Path(folder) / name
    real, why = _inside(folder, name)
    data = read_inside(folder, name) if real is not None else None
    if data is None:
        raise RecordingError(f"{path} {why or 'cannot be read'}")
    try:
        return json.loads(data.decode("utf-8"))
    except RecursionError:
        raise RecordingError(f"{path} is not usable JSON: nested too deeply") from None
    except ValueError as exc:
        raise RecordingError(f"{path} is not valid JSON: {exc}") from None


def _check_end(end, path: Path) -> None:
    if not isinstance(end, dict):
        raise RecordingError(f"{path} is {_shown(end)}, expected an object")
    for key in ("chunks", "frames"):
        v = end.get(key, 0)
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise RecordingError(f"{path}: {key} is {_shown(v)}, expected a whole number ≥ 0")
    if not isinstance(end.get("status", ""), (str, type(None))):
        raise RecordingError(f"{path}: status is {_shown(end['status'])}, expected a string")


def _ticks(folder: Path, name: str, frames: int, fb: int) -> Optional[np.ndarray]:
    """The ticks (int64) of the first ``frames`` frames of chunk ``name``; None when the file
    cannot be read."""
    data = read_inside(folder, name, frames * fb)
    if data is None or len(data) < frames * fb:
        return None
    return np.frombuffer(data, np.uint8).reshape(frames, fb)[:, :4].copy().view("<i4")[:, 0] \
        .astype(np.int64)


def _links_ok(data: bytes, robots: int) -> bool:
    """Whether ``data`` is a links file the page can read: ``uint32`` F, ``uint32[F + 1]``
    non-decreasing offsets from 0, then as many (sender, receiver) rows, all of them robot rows
    of a frame."""
    if len(data) < 8 or len(data) % 4:
        return False
    words = np.frombuffer(data, "<u4")
    f = int(words[0])
    if len(words) < f + 2:
        return False
    offsets = words[1:f + 2].astype(np.int64)
    pairs = words[f + 2:]
    return (offsets[0] == 0 and bool(np.all(np.diff(offsets) >= 0))
            and len(pairs) == 2 * offsets[-1] and bool(np.all(pairs < robots)))


def _text_ok(data: bytes, frames: int, robots: int) -> bool:
    """Whether ``data`` is a text file the page can read: a JSON list of ``[frame in chunk,
    robot row, text]`` within the chunk's frames and a frame's robots."""
    try:
        lines = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return False
    return isinstance(lines, list) and all(
        isinstance(t, list) and len(t) == 3 and isinstance(t[2], str)
        and all(isinstance(v, int) and not isinstance(v, bool) for v in t[:2])
        and 0 <= t[0] <= frames and 0 <= t[1] < robots for t in lines)


@dataclass
class Recording:
    """A recording on disk as far as it can be replayed: its header, its complete frames
    (``frames``) and, when it stops short, why (``stops``: None for a run that ended)."""

    folder: Path
    header: dict
    chunk_sizes: list[int]
    end: Optional[dict]
    stops: Optional[str]

    @property
    def frames(self) -> int:
        return sum(self.chunk_sizes)

    @property
    def frame_bytes(self) -> int:
        return int(self.header["frame"]["frame_bytes"])

    def last_tick(self) -> int:
        """The tick of the last frame that can be replayed."""
        k = len(self.chunk_sizes) - 1
        name = f"chunk-{k:06d}.bin"
        data = read_inside(self.folder, name, 4, (self.chunk_sizes[k] - 1) * self.frame_bytes)
        if data is None or len(data) < 4:
            raise RecordingError(f"{self.folder / name} cannot be read any more")
        return int(np.frombuffer(data, "<i4")[0])

    def overlay(self, kind: str, k: int) -> Optional[bytes]:
        """Chunk ``k``'s ``links`` (binary) or ``text`` (JSON) file; None when absent or not of
        the form the page reads (no text: ``[]``)."""
        if not 0 <= k < len(self.chunk_sizes):
            return None
        name = f"links-{k:06d}.bin" if kind == "links" else f"text-{k:06d}.json"
        data = read_inside(self.folder, name)
        robots = int(self.header["robots"])
        if kind == "links":
            return data if data is not None and _links_ok(data, robots) else None
        return data if data is not None and _text_ok(data, self.chunk_sizes[k], robots) \
            else b"[]"

    def chunk(self, k: int) -> bytes:
        """Chunk ``k``'s whole frames (a truncated file: the whole frames it holds);
        RecordingError when it can no longer be read as a file of the recording."""
        name = f"chunk-{k:06d}.bin"
        data = read_inside(self.folder, name, self.chunk_sizes[k] * self.frame_bytes)
        if data is None:
            raise RecordingError(f"{self.folder / name} cannot be read any more")
        return data

    def frames_array(self, k: int) -> dict:
        """Chunk ``k`` as arrays: ``tick`` int32[F], ``pose`` float32[F, N, 6], ``leds``
        uint8[F, K, 3], ``rays`` uint8[F, R]."""
        fb = self.frame_bytes
        raw = np.frombuffer(self.chunk(k), dtype=np.uint8).reshape(-1, fb)
        h = self.header
        lo = FrameLayout(int(h["robots"]), int(h["leds"]), int(h.get("rays", 0)))
        f = raw.shape[0]
        return {"tick": raw[:, :4].copy().view("<i4")[:, 0],
                "pose": raw[:, lo.pose_offset:lo.leds_offset].copy().view("<f4")
                .reshape(f, lo.robots, 6),
                "leds": raw[:, lo.leds_offset:lo.rays_offset].reshape(f, lo.leds, 3),
                "rays": raw[:, lo.rays_offset:lo.rays_offset + lo.rays]}

    def status(self) -> dict:
        """What a page needs to know to fetch frames (see ``viewer.server``)."""
        return {"frames": self.frames, "chunk_frames": int(self.header["chunk_frames"]),
                "complete": self.end is not None and self.stops is None, "live": False,
                "stops": self.stops, "status": (self.end or {}).get("status")}


def open_recording(out_dir: Path) -> Recording:
    """The recording under ``out_dir`` (or ``out_dir`` itself if it is a recording folder).

    Replays what can be replayed: chunks in order up to the first one missing or unusable (a
    folder, a link to nothing or out of the folder: the first chunk so is an error); a
    truncated chunk counts for its whole frames and ends the replay there, and so does a frame
    whose tick is not after the one before it. ``stops`` says up to which tick the replay is
    good and why it stops when the run did not end normally (killed, interrupted, failed,
    truncated, damaged). Overlays the page could not read are left out (:meth:`overlay`)."""
    out_dir = Path(out_dir)
    folder = out_dir if (out_dir / "header.json").is_file() else recording_dir(out_dir)
    head = folder / "header.json"
    if not head.exists() and not head.is_symlink():
        raise RecordingError(f"{out_dir} has no recording ({head} is missing): run the "
                             "experiment with --record, or [output] record = true")
    header = _read_json(folder, "header.json")
    _check_header(header, head)
    fb = header["frame"]["frame_bytes"]
    cf = header["chunk_frames"]
    end = None
    if _inside(folder, "end.json")[1] != "is missing":
        end = _read_json(folder, "end.json")
        _check_end(end, folder / "end.json")
    try:
        names = os.listdir(folder)
    except OSError as exc:
        raise RecordingError(f"{folder} cannot be listed: {exc.strerror or exc}") from None
    present = sorted(int(m.group(1)) for m in map(_CHUNK.fullmatch, names) if m)
    sizes: list[int] = []
    stops = None
    expected = end.get("chunks") if end else None
    last = -1          # the tick of the last frame found good
    for k in range(len(present)):
        if k not in present:
            break
        name = f"chunk-{k:06d}.bin"
        real, why = _inside(folder, name)
        try:
            size = os.stat(real).st_size if real is not None else 0
        except OSError as exc:
            real, why = None, f"cannot be read: {exc.strerror or exc}"
        if real is None:
            if k == 0:   # nothing before it to replay
                raise RecordingError(f"{folder / name} {why}")
            stops = f"{name} {why}"
            break
        whole = min(cf, size // fb)
        ticks = _ticks(folder, name, whole, fb)
        if ticks is None:
            stops = f"{name} cannot be read"
            break
        # a replay runs forward: each frame's tick after the one before it
        bad = np.flatnonzero(np.diff(ticks, prepend=last) <= 0)
        if len(bad):
            i = int(bad[0])
            sizes.append(i)
            stops = (f"{name}: frame {i} has tick {int(ticks[i])}, " +
                     (f"not after tick {int(ticks[i - 1]) if i else last}" if i or last >= 0
                      else "a tick before the run's first"))
            break
        sizes.append(whole)
        if whole:
            last = int(ticks[-1])
        if size != whole * fb or (whole < cf and (expected is None or k != expected - 1)):
            stops = f"chunk {k} is truncated"
            break
    if stops is None and expected is not None and len(sizes) < expected:
        stops = f"chunk {len(sizes)} is missing"
    if stops is None and end is not None and end.get("status") not in (None, "completed"):
        stops = f"the run was {end['status']}"
    if stops is None and end is None:
        stops = "the run did not finish (no end.json: killed, or still running)"
    while sizes and sizes[-1] == 0:
        sizes.pop()
    rec = Recording(folder, header, sizes, end, None)
    if stops is not None:
        last = rec.last_tick() if sizes else None
        where = f"replay stops at tick {last}" if last is not None else "nothing to replay"
        rec.stops = f"{where}: {stops}"
    return rec

