"""A run folder as an MCAP file of ROS 2 messages (``swarmstack export RUN --mcap OUT.mcap``).

Foxglove and ``ros2 bag`` (its MCAP storage) open the file: every channel is CDR-encoded with
its ROS 2 message definition embedded (``ros2msg`` schemas, as ROS 2 Humble defines them).
Topics, for robot ``R`` of group ``G`` (``/run_K/G_R/…`` when the folder holds several runs):

=================================  =============================  ============================
topic                              type                           from
=================================  =============================  ============================
``/tf``                            tf2_msgs/msg/TFMessage         trajectories: every robot's
                                                                  ``world`` → ``G_R/base_link``
``/G_R/pose``                      geometry_msgs/msg/PoseStamped  trajectories (x, y, z, yaw)
``/G_R/battery``                   sensor_msgs/msg/BatteryState   a ``battery`` reading
                                                                  (``percentage`` = charge 0–1)
``/G_R/sensors/pose``              geometry_msgs/msg/PoseStamped  a ``pose`` reading (x, y, z,
                                                                  roll, pitch, yaw)
``/G_R/sensors/NAME``              std_msgs/msg/Float64 or        any other reading: one value,
                                   std_msgs/msg/Float64MultiArray or its values in file order
                                                                  (one layout dimension per
                                                                  array axis)
``/G_R/velocity``                  geometry_msgs/msg/             trajectories' vx, vy, vz
                                   Vector3Stamped                 (``output.velocities``)
``/G_R/leds/I``                    std_msgs/msg/ColorRGBA         LED ``I``'s colour (0–1) from
                                                                  the recording, when it
                                                                  changes
``/rosout``                        rcl_interfaces/msg/Log         script ``log`` lines (INFO,
                                                                  ``name`` G_R) and robots that
                                                                  failed (ERROR)
=================================  =============================  ============================

Time stamps (message ``log_time`` and header ``stamp``) are the run's start (``started_at``
of ``summary.json``) plus the simulated time; frames are ``world`` (x forward, z up, as in the
simulation). Values are those of the Parquet files (SI units, angles in rad), converted only
to the message's type (e.g. float32 colours). LEDs are in the recording only (``--record``),
which holds run 0.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
from datetime import datetime, timezone
from pathlib import Path

import numpy as np

from swarmstack.bridge.ros_types import quaternion_from_rpy
from swarmstack.experiments.checks import one_line

DISTRO = "ROS2_HUMBLE"
WORLD = "world"
_AXES = re.compile(r"^(.*?)((?:_\d+)+)$")


class ExportError(ValueError):
    """The folder cannot be exported (the message says why, in one line)."""


# ------------------------------------------------------------------------------- reading
def _summary(folder: Path) -> dict:
    if not folder.exists():
        raise ExportError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise ExportError(f"{folder}: not a folder (give the results folder of a run)")
    path = folder / "summary.json"
    if not path.is_file():
        hint = (" — a study folder: export one of its runs, e.g. "
                f"{folder / 'runs' / '<run>'}") if (folder / "runs").is_dir() else ""
        raise ExportError(f"{folder}: not a run folder (no summary.json){hint}")
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ExportError(f"{path}: cannot be read ({exc})".replace("\n", " ")) from None
    if not isinstance(summary, dict):
        raise ExportError(f"{path}: not a run summary (a JSON object)")
    # the keys the export reads, checked here so that a hand-edited file is one clear line
    for key, ok, expected in (
            ("runs", lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1,
             "a whole number of runs, 1 or more"),
            ("dt_s", lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
             and math.isfinite(v) and v >= 0, "the tick length in s, a number"),
            ("robot_failures", lambda v: isinstance(v, list), "a list")):
        value = summary.get(key)
        if value is not None and not ok(value):
            raise ExportError(f"{path}: {key}: expected {expected}, found {value!r}")
    return summary


def _table(folder: Path, what: str) -> dict[str, np.ndarray]:
    import duckdb

    parts = sorted(folder.glob("part-*.parquet"))
    if not parts:
        raise ExportError(f"{folder}: no Parquet parts ({what})")
    con = duckdb.connect()
    try:
        files = "[" + ", ".join("'" + str(p).replace("'", "''") + "'" for p in parts) + "]"
        rel = con.sql(f"SELECT * FROM read_parquet({files}, union_by_name = true) "
                      "ORDER BY run, tick, robot")
        return dict(rel.fetchnumpy())
    except duckdb.Error as exc:
        raise ExportError(f"{folder}: unreadable Parquet ({one_line(exc)})") from None
    finally:
        con.close()


def _start_ns(summary: dict) -> int:
    try:
        t = datetime.fromisoformat(str(summary["started_at"]))
    except (KeyError, ValueError):
        return 0
    if t.tzinfo is None:
        t = t.replace(tzinfo=timezone.utc)
    d = t - datetime(1970, 1, 1, tzinfo=timezone.utc)   # exact: no float seconds
    return (d.days * 86400 + d.seconds) * 1_000_000_000 + d.microseconds * 1000


def _name(text: str) -> str:
    """A ROS name token: letters, digits and underscores, not starting with a digit."""
    s = re.sub(r"[^A-Za-z0-9_]", "_", str(text)) or "_"
    return "g" + s if s[0].isdigit() else s


def reading_columns(columns: list[str]) -> dict[str, list[str]]:
    """Reading name → its columns in file order (``pose_0 … pose_5`` → ``pose``)."""
    out: dict[str, list[str]] = {}
    for c in columns:
        if c in ("run", "robot", "group_name", "group_index", "tick", "time_s"):
            continue
        m = _AXES.match(c)
        out.setdefault(m.group(1) if m else c, []).append(c)
    return out


def _shape(cols: list[str]) -> list[int]:
    """Array shape of a reading from its column suffixes (``x_1_2`` → index (1, 2))."""
    idx = [tuple(int(v) for v in _AXES.match(c).group(2).split("_")[1:]) for c in cols]
    return [max(i[a] for i in idx) + 1 for a in range(len(idx[0]))]


# ------------------------------------------------------------------------------- messages
def _stamp(ns: int) -> dict:
    return {"sec": ns // 1_000_000_000, "nanosec": ns % 1_000_000_000}


def quaternion(roll: float, pitch: float, yaw: float) -> dict:
    return dict(zip("wxyz", quaternion_from_rpy(roll, pitch, yaw)))


def _pose(ns: int, x, y, z, roll, pitch, yaw) -> dict:
    return {"header": {"stamp": _stamp(ns), "frame_id": WORLD},
            "pose": {"position": {"x": float(x), "y": float(y), "z": float(z)},
                     "orientation": quaternion(float(roll), float(pitch), float(yaw))}}


def _battery(ns: int, charge: float) -> dict:
    nan = math.nan
    return {"header": {"stamp": _stamp(ns), "frame_id": ""}, "voltage": nan,
            "temperature": nan, "current": nan, "charge": nan, "capacity": nan,
            "design_capacity": nan, "percentage": float(charge),
            "power_supply_status": 2,          # discharging
            "power_supply_health": 0, "power_supply_technology": 0, "present": True,
            "cell_voltage": [], "cell_temperature": [], "location": "", "serial_number": ""}


def _array(name: str, shape: list[int], values) -> dict:
    dims, stride = [], int(np.prod(shape))
    for axis, size in enumerate(shape):
        dims.append({"label": f"{name}[{axis}]", "size": int(size), "stride": int(stride)})
        stride //= max(size, 1)
    return {"layout": {"dim": dims, "data_offset": 0}, "data": [float(v) for v in values]}


# -------------------------------------------------------------------------------- writing
class _Out:
    """The MCAP writer and its schemas (one per message type, registered when first used)."""

    def __init__(self, fh):
        from mcap_ros2.writer import Writer
        from rosbags.typesys import Stores, get_typestore

        self.writer = Writer(fh)
        self._store = get_typestore(getattr(Stores, DISTRO))
        self._schemas: dict = {}
        self.counts: dict[str, int] = {}

    def write(self, topic: str, msgtype: str, message: dict, ns: int) -> None:
        schema = self._schemas.get(msgtype)
        if schema is None:
            text, _ = self._store.generate_msgdef(msgtype, ros_version=2)
            schema = self._schemas[msgtype] = self.writer.register_msgdef(
                msgtype, text)   # named as rosbag2 names them: pkg/msg/Type
        self.writer.write_message(topic, schema, message, log_time=ns, publish_time=ns,
                                  sequence=self.counts.get(topic, 0))
        self.counts[topic] = self.counts.get(topic, 0) + 1


def export_mcap(results_dir: Path | str, out_path: Path | str) -> dict[str, int]:
    """Write the run in ``results_dir`` to ``out_path`` (see the module); returns the number
    of messages per topic. Raises :class:`ExportError` for a folder that is not a run, or an
    output that cannot be written. The file appears whole or not at all."""
    folder, out_path = Path(results_dir), Path(out_path)
    summary = _summary(folder)
    traj_dir = folder / "trajectories"
    if not traj_dir.is_dir():
        raise ExportError(f"{folder}: no trajectories folder (a run folder written with "
                          "output.trajectories = false has nothing to place robots with)")
    traj = _table(traj_dir, "trajectories")
    missing = [c for c in ("run", "tick", "time_s", "robot", "group_name", "x", "y", "z", "yaw")
               if c not in traj]
    if missing:
        raise ExportError(f"{traj_dir}: not a run's trajectories (no column "
                          f"{', '.join(missing)})")
    sensor_root = folder / "sensors"
    sensors = {sub.name: _table(sub, f"sensors of group {sub.name}")
               for sub in sorted(sensor_root.iterdir() if sensor_root.is_dir() else ())
               if sub.is_dir()}
    recording = None
    if (folder / "recording" / "header.json").is_file():
        from swarmstack.viewer.recording import RecordingError, open_recording

        try:
            recording = open_recording(folder)
        except RecordingError as exc:
            raise ExportError(one_line(exc)) from None

    t0 = _start_ns(summary)
    runs = int(summary.get("runs", 1) or 1)
    multi = runs > 1 or (len(traj["run"]) and int(traj["run"].max()) > 0)

    def ns_of(time_s) -> int:
        return t0 + int(round(float(time_s) * 1e9))

    def space(run, group, robot) -> str:
        base = f"{_name(group)}_{int(robot)}"
        return f"run_{int(run)}/{base}" if multi else base

    tmp = out_path.with_name(f".{out_path.name}.{os.getpid()}.tmp")
    try:
        fh = open(tmp, "wb")
    except OSError as exc:
        raise ExportError(f"{out_path}: cannot be written ({exc.strerror or exc})") from None
    try:
        with fh:
            out = _Out(fh)
            _write_trajectories(out, traj, ns_of, space)
            for group, table in sensors.items():
                _write_sensors(out, table, ns_of, space)
            if recording is not None:
                _write_leds(out, recording, t0, space)
            _write_logs(out, folder, summary, ns_of, space)
            out.writer.add_metadata("swarmstack", {
                k: str(summary.get(k)) for k in ("experiment", "seed", "runs", "ticks_done",
                                                 "dt_s", "status", "started_at",
                                                 "swarmstack_version", "experiment_sha256")})
            out.writer.finish()
        os.replace(tmp, out_path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise ExportError(f"{out_path}: cannot be written ({exc.strerror or exc})") \
                from None
        raise
    return out.counts


def _write_trajectories(out: _Out, t: dict, ns_of, space) -> None:
    n = len(t["tick"])
    start = 0
    while start < n:     # one /tf message per run and tick
        run, tick = t["run"][start], t["tick"][start]
        stop = start
        while stop < n and t["tick"][stop] == tick and t["run"][stop] == run:
            stop += 1
        ns = ns_of(t["time_s"][start])
        transforms = []
        for i in range(start, stop):
            name = space(t["run"][i], t["group_name"][i], t["robot"][i])
            x, y, z, yaw = (float(t[k][i]) for k in ("x", "y", "z", "yaw"))
            transforms.append({"header": {"stamp": _stamp(ns), "frame_id": WORLD},
                               "child_frame_id": f"{name}/base_link",
                               "transform": {"translation": {"x": x, "y": y, "z": z},
                                             "rotation": quaternion(0.0, 0.0, yaw)}})
            out.write(f"/{name}/pose", "geometry_msgs/msg/PoseStamped",
                      _pose(ns, x, y, z, 0.0, 0.0, yaw), ns)
            if "vx" in t:
                out.write(f"/{name}/velocity", "geometry_msgs/msg/Vector3Stamped",
                          {"header": {"stamp": _stamp(ns), "frame_id": WORLD},
                           "vector": {"x": float(t["vx"][i]), "y": float(t["vy"][i]),
                                      "z": float(t["vz"][i])}}, ns)
        out.write("/tf", "tf2_msgs/msg/TFMessage", {"transforms": transforms}, ns)
        start = stop


def _write_sensors(out: _Out, t: dict, ns_of, space) -> None:
    readings = reading_columns(list(t))
    for i in range(len(t["tick"])):
        ns = ns_of(t["time_s"][i])
        base = "/" + space(t["run"][i], t["group_name"][i], t["robot"][i])
        for name, cols in readings.items():
            values = [t[c][i] for c in cols]
            if name == "battery" and len(cols) == 1:
                out.write(f"{base}/battery", "sensor_msgs/msg/BatteryState",
                          _battery(ns, values[0]), ns)
            elif name == "pose" and len(cols) == 6:
                out.write(f"{base}/sensors/pose", "geometry_msgs/msg/PoseStamped",
                          _pose(ns, *values), ns)
            elif len(cols) == 1 and cols[0] == name:
                out.write(f"{base}/sensors/{_name(name)}", "std_msgs/msg/Float64",
                          {"data": float(values[0])}, ns)
            else:
                out.write(f"{base}/sensors/{_name(name)}", "std_msgs/msg/Float64MultiArray",
                          _array(name, _shape(cols), values), ns)


def _write_leds(out: _Out, rec, t0: int, space) -> None:
    header = rec.header
    dt = float(header["dt_s"])
    last: dict = {}
    for k in range(len(rec.chunk_sizes)):
        frames = rec.frames_array(k)
        for f, tick in enumerate(frames["tick"]):
            ns = t0 + int(round(int(tick) * dt * 1e9))
            leds = frames["leds"][f]
            for g in header["groups"]:
                lay = g.get("leds")
                if not lay:
                    continue
                for r, rid in enumerate(g["robot_ids"]):
                    for e in range(int(lay["count"])):
                        row = int(lay["first"]) + r * int(lay["count"]) + e
                        rgb = tuple(int(c) for c in leds[row])
                        key = (g["name"], rid, e)
                        if last.get(key) == rgb:
                            continue
                        last[key] = rgb
                        out.write(f"/{space(0, g['name'], rid)}/leds/{e}",
                                  "std_msgs/msg/ColorRGBA",
                                  {"r": rgb[0] / 255.0, "g": rgb[1] / 255.0,
                                   "b": rgb[2] / 255.0, "a": 1.0}, ns)


_LOG_LINE = re.compile(r"tick (\d+) robot (\d+) \((.*?)\): (.*)$")
INFO, ERROR = 20, 40


def _log(ns: int, level: int, name: str, text: str) -> dict:
    return {"stamp": _stamp(ns), "level": level, "name": name, "msg": text, "file": "",
            "function": "", "line": 0}


def _write_logs(out: _Out, folder: Path, summary: dict, ns_of, space) -> None:
    """Script log lines (``logs/run-K.log``) and the robots that failed, on ``/rosout``."""
    dt = float(summary.get("dt_s") or 0.0)
    entries = []
    logs = folder / "logs"
    for path in sorted(logs.glob("run-*.log")) if logs.is_dir() else ():
        if not path.stem[4:].isdigit():    # not one the run wrote
            continue
        run = int(path.stem[4:])
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            raise ExportError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        for line in lines:
            m = _LOG_LINE.match(line)
            if m:
                tick, robot, group, text = m.groups()
                # a Lua script's logerr() writes "error: …": an error for ROS 2 tools too
                level = ERROR if text.startswith("error: ") else INFO
                entries.append([int(tick), level, space(run, group, robot), text])
            elif entries:    # a line of a text that held line breaks
                entries[-1][3] += "\n" + line
    for f in summary.get("robot_failures") or ():
        try:
            entries.append([int(f["tick"]), ERROR, space(f["run"], f["group"], f["robot"]),
                            str(f.get("report") or f.get("error") or "failed")])
        except (KeyError, TypeError, ValueError):
            continue
    entries.sort(key=lambda e: e[0])
    for tick, level, name, text in entries:
        ns = ns_of(tick * dt)
        out.write("/rosout", "rcl_interfaces/msg/Log", _log(ns, level, name, text), ns)


def read_back(path: Path | str) -> list[tuple[str, str, int, object]]:
    """Every message of an MCAP file as (topic, schema name, log time ns, decoded message),
    in log-time order: what a ROS 2 reader sees."""
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory

    with open(path, "rb") as fh:
        reader = make_reader(fh, decoder_factories=[DecoderFactory()])
        return [(ch.topic, schema.name, msg.log_time, decoded)
                for schema, ch, msg, decoded in reader.iter_decoded_messages(
                    log_time_order=True)]

