"""`swarmstack export RUN --mcap OUT`: read back with the mcap reader and its ROS 2 decoder,
values compared with the run's Parquet files and recording."""

from __future__ import annotations

import json
import math
import shutil
import tomllib
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

pytest.importorskip("mcap_ros2")

from swarmstack.cli import app  # noqa: E402
from swarmstack.experiments.config import parse_experiment  # noqa: E402
from swarmstack.experiments.results_writer import read_table  # noqa: E402
from swarmstack.experiments.runner import run_experiment  # noqa: E402
from swarmstack.export.mcap import read_back  # noqa: E402
from swarmstack.viewer.recording import open_recording  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(tmp_path: Path, example: str, ticks: int, runs: int = 1, **output) -> Path:
    data = tomllib.loads((EXAMPLES / example).read_text())
    data.setdefault("output", {}).update(output)
    cfg = parse_experiment(data, example)
    out = tmp_path / example.replace(".toml", "")
    run_experiment(cfg, out, ticks=ticks, runs=runs, base_dir=EXAMPLES, source=example)
    return out


def export(folder: Path, target: Path):
    result = CliRunner().invoke(app, ["export", str(folder), "--mcap", str(target)])
    return result


def yaw_of(q) -> float:
    return math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


def ns(t) -> int:
    return t.sec * 1_000_000_000 + t.nanosec


@pytest.fixture(scope="module")
def drones(tmp_path_factory):
    """The hover example for 12 s: take-off, LED phases; battery and positioning logged."""
    tmp = tmp_path_factory.mktemp("mcap")
    folder = run(tmp, "crazyflie_hover.toml", 120, sensors=["battery", "positioning"],
                 record=True)
    target = tmp / "hover.mcap"
    result = export(folder, target)
    assert result.exit_code == 0, result.output
    return folder, read_back(target)


def test_poses_and_tf_are_the_trajectories(drones):
    folder, messages = drones
    summary = json.loads((folder / "summary.json").read_text())
    t0 = datetime.fromisoformat(summary["started_at"]).astimezone(timezone.utc)
    t0_ns = int(t0.timestamp()) * 1_000_000_000 + t0.microsecond * 1000
    traj = read_table(folder / "trajectories")
    poses = [(t, m) for topic, kind, t, m in messages if topic == "/drones_2/pose"]
    assert {kind for topic, kind, _, _ in messages if topic.endswith("/pose")} == {
        "geometry_msgs/msg/PoseStamped"}
    rows = np.flatnonzero(traj["robot"] == 2)
    assert len(poses) == len(rows) == 121
    for (t, m), i in zip(poses, rows):
        assert t == ns(m.header.stamp) == t0_ns + round(traj["time_s"][i] * 1e9)
        p = m.pose.position
        assert (p.x, p.y, p.z) == (traj["x"][i], traj["y"][i], traj["z"][i])
        assert yaw_of(m.pose.orientation) == pytest.approx(traj["yaw"][i], abs=1e-12)
    assert max(m.pose.position.z for _, m in poses) > 0.9     # it took off: real motion
    tf = [m for topic, kind, _, m in messages if topic == "/tf"]
    assert len(tf) == 121 and all(len(m.transforms) == 4 for m in tf)
    last = {tr.child_frame_id: tr for tr in tf[-1].transforms}
    k = len(traj["x"]) - 4 + 2
    assert last["drones_2/base_link"].transform.translation.z == traj["z"][k]
    assert last["drones_2/base_link"].header.frame_id == "world"


def test_sensor_readings_have_ros_types_and_the_logged_values(drones):
    folder, messages = drones
    sensors = read_table(folder / "sensors" / "drones")
    rows = np.flatnonzero(sensors["robot"] == 1)
    battery = [m for topic, kind, _, m in messages if topic == "/drones_1/battery"
               and kind == "sensor_msgs/msg/BatteryState"]
    assert [m.percentage for m in battery] == [np.float32(v) for v in sensors["battery"][rows]]
    assert battery[-1].percentage < 1.0 and battery[-1].present
    pose = [m for topic, kind, _, m in messages if topic == "/drones_1/sensors/pose"]
    assert [m.pose.position.z for m in pose] == list(sensors["pose_2"][rows])


def test_leds_are_the_recorded_colours(drones):
    folder, messages = drones
    rec = open_recording(folder)
    frames = rec.frames_array(0)
    led = [(t, m) for topic, kind, t, m in messages if topic == "/drones_0/leds/0"
           and kind == "std_msgs/msg/ColorRGBA"]
    colours = {(round(m.r * 255), round(m.g * 255), round(m.b * 255)) for _, m in led}
    assert len(colours) >= 2          # the example changes colour with its phase
    t_first = led[0][0]
    start = t_first - round(int(frames["tick"][0]) * 0.1 * 1e9)
    for t, m in led:                  # every change is the recorded colour at that tick
        f = int(np.flatnonzero(frames["tick"] == round((t - start) / 1e8))[0])
        g = rec.header["groups"][0]
        row = g["leds"]["first"] + 0 * g["leds"]["count"]
        assert (round(m.r * 255), round(m.g * 255), round(m.b * 255)) == tuple(
            int(c) for c in frames["leds"][f][row])


def test_a_rosbag2_reader_opens_the_file(drones, tmp_path):
    """rosbags (its own CDR decoder and rosbag2's MCAP conventions) reads what we wrote."""
    from rosbags.highlevel import AnyReader

    folder, messages = drones
    target = tmp_path / "again.mcap"
    assert export(folder, target).exit_code == 0
    with AnyReader([target]) as reader:
        types = {c.topic: c.msgtype for c in reader.connections}
        counts: dict = {}
        for conn, t, raw in reader.messages():
            counts[conn.topic] = counts.get(conn.topic, 0) + 1
            if conn.topic == "/drones_3/pose" and counts[conn.topic] == 121:
                last = reader.deserialize(raw, conn.msgtype)
    assert types == {topic: kind for topic, kind, _, _ in messages}
    assert counts == {topic: sum(1 for m in messages if m[0] == topic) for topic in types}
    mine = [m for topic, _, _, m in messages if topic == "/drones_3/pose"][-1]
    assert last.pose.position.x == mine.pose.position.x
    assert last.pose.orientation.w == mine.pose.orientation.w


def test_the_file_carries_what_ros2_bag_info_reads(drones, tmp_path):
    """rosbag2's MCAP storage plugin (rosbag2_storage_mcap, get_metadata) fills `ros2 bag
    info` from the summary: the Statistics record (message count, first and last time, a
    count per channel), each channel's message encoding (the serialisation format) and its
    schema's name (the topic type); the MCAP ros2 profile asks for profile "ros2", schema
    encoding "ros2msg" and message encoding "cdr"."""
    import re

    from mcap.reader import make_reader

    folder, messages = drones
    target = tmp_path / "info.mcap"
    assert export(folder, target).exit_code == 0
    with open(target, "rb") as fh:
        reader = make_reader(fh)
        assert reader.get_header().profile == "ros2"
        summary = reader.get_summary()
    stats = summary.statistics
    assert stats is not None and stats.message_count == len(messages)
    assert stats.message_start_time == min(m[2] for m in messages)
    assert stats.message_end_time == max(m[2] for m in messages)
    by_topic = {c.topic: (cid, c) for cid, c in summary.channels.items()}
    assert set(by_topic) == {m[0] for m in messages}
    for topic, (cid, channel) in by_topic.items():
        schema = summary.schemas[channel.schema_id]
        assert channel.message_encoding == "cdr"
        assert schema.encoding == "ros2msg"
        assert re.fullmatch(r"[a-z0-9_]+/msg/[A-Za-z0-9]+", schema.name)
        assert schema.name == next(kind for t, kind, _, _ in messages if t == topic)
        assert stats.channel_message_counts[cid] == sum(1 for m in messages if m[0] == topic)


def test_arrays_and_several_runs(tmp_path):
    folder = run(tmp_path, "epuck2_diffusion.toml", 3, runs=2, sensors=["proximity"])
    target = tmp_path / "d.mcap"
    assert export(folder, target).exit_code == 0
    messages = read_back(target)
    sensors = read_table(folder / "sensors" / "epucks")
    prox = [m for topic, kind, _, m in messages if topic == "/run_1/epucks_7/sensors/proximity"
            and kind == "std_msgs/msg/Float64MultiArray"]
    rows = np.flatnonzero((sensors["robot"] == 7) & (sensors["run"] == 1))
    cols = [c for c in sensors if c.startswith("proximity_")]
    assert len(prox) == len(rows) == 4
    assert prox[0].layout.dim[0].size == len(cols) == 8
    for m, i in zip(prox, rows):
        assert list(m.data) == [sensors[c][i] for c in cols]
    assert any(t.startswith("/run_0/epucks_0/") for t, _, _, _ in messages)


@pytest.mark.parametrize("make, says", [
    (lambda d: d / "missing", "no such folder"),
    (lambda d: (d / "f.txt").write_text("x") and d / "f.txt", "not a folder"),
    (lambda d: (d / "empty").mkdir() or d / "empty", "not a run folder (no summary.json)"),
    (lambda d: ((d / "study" / "runs").mkdir(parents=True), d / "study")[1], "a study folder"),
    (lambda d: ((d / "bad").mkdir(), (d / "bad" / "summary.json").write_text("{"),
                d / "bad")[2], "summary.json: cannot be read"),
    (lambda d: ((d / "nt").mkdir(), (d / "nt" / "summary.json").write_text("{}"),
                d / "nt")[2], "no trajectories folder"),
    (lambda d: ((d / "ls").mkdir(), (d / "ls" / "summary.json").write_text("[1]"),
                d / "ls")[2], "not a run summary"),
    (lambda d: ((d / "cp" / "trajectories").mkdir(parents=True),
                (d / "cp" / "summary.json").write_text("{}"),
                (d / "cp" / "trajectories" / "part-00000.parquet").write_bytes(b"PAR1 no"),
                d / "cp")[3], "unreadable Parquet"),
])
def test_a_bad_folder_is_one_clear_line(tmp_path, make, says):
    folder = make(tmp_path)
    result = export(folder, tmp_path / "x.mcap")
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and says in lines[0]
    assert not (tmp_path / "x.mcap").exists()


def test_an_output_that_cannot_be_written_is_one_line(drones, tmp_path):
    folder, _ = drones
    result = export(folder, tmp_path / "no" / "such" / "dir" / "x.mcap")
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0 and "cannot be written" in result.output



def test_an_existing_file_is_replaced_only_with_force(drones, tmp_path):
    # a slip such as --mcap RUN/summary.json must not destroy what it names
    folder, _ = drones
    target = folder / "summary.json"
    before = target.read_bytes()
    result = export(folder, target)
    assert result.exit_code == 1 and "exists (--force replaces it)" in result.output
    assert target.read_bytes() == before
    other = tmp_path / "x.mcap"
    other.write_bytes(b"old")
    result = CliRunner().invoke(app, ["export", str(folder), "--mcap", str(other), "--force"])
    assert result.exit_code == 0, result.output
    assert other.read_bytes().startswith(b"\x89MCAP")

def test_script_logs_go_to_rosout_and_velocities_have_a_topic(tmp_path):
    folder = run(tmp_path, "epuck2_buzz_gradient.toml", 6, velocities=True)
    target = tmp_path / "g.mcap"
    assert export(folder, target).exit_code == 0
    messages = read_back(target)
    lines = (folder / "logs" / "run-00000.log").read_text().splitlines()
    rosout = [m for topic, kind, _, m in messages if topic == "/rosout"
              and kind == "rcl_interfaces/msg/Log"]
    assert len(rosout) == len(lines) > 0
    for m, line in zip(rosout, lines):
        tick, robot = int(line.split()[1]), int(line.split()[3])
        assert line.endswith(f": {m.msg}") and m.name == f"gradient_{robot}" and m.level == 20
        assert ns(m.stamp) - ns(rosout[0].stamp) == round((tick - int(lines[0].split()[1]))
                                                          * 0.1 * 1e9)
    traj = read_table(folder / "trajectories")
    vel = [m for topic, _, _, m in messages if topic == "/gradient_4/velocity"]
    rows = np.flatnonzero(traj["robot"] == 4)
    assert [m.vector.x for m in vel] == list(traj["vx"][rows])

    # a robot whose VM failed (as summary.json reports it) is an ERROR line at its tick
    summary = json.loads((folder / "summary.json").read_text())
    summary["robot_failures"] = [{"group": "gradient", "run": 0, "robot": 7, "tick": 3,
                                  "report": "gradient.bzz:26:7: unknown symbol"}]
    (folder / "summary.json").write_text(json.dumps(summary))
    target.unlink()
    assert export(folder, target).exit_code == 0
    errors = [m for topic, _, _, m in read_back(target) if topic == "/rosout" and m.level == 40]
    assert [(m.name, m.msg) for m in errors] == [("gradient_7",
                                                  "gradient.bzz:26:7: unknown symbol")]



JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["tick", "run", "group", "robot", "report"]), inner, max_size=4),
    max_leaves=6)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["runs", "dt_s", "robot_failures", "started_at"]),
                       JSON, max_size=4))
def test_a_hand_edited_summary_exports_or_is_one_clear_line(drones, tmp_path, edits):
    folder, _ = drones
    copy = tmp_path / "run"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(folder, copy)
    summary = json.loads((copy / "summary.json").read_text())
    (copy / "summary.json").write_text(json.dumps({**summary, **edits}))
    result = CliRunner().invoke(app, ["export", str(copy), "--mcap", str(tmp_path / "x.mcap"),
                                      "--force"])
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    if result.exit_code == 1:
        assert result.output.startswith("error: ") and result.output.count("\n") == 1


def test_foreign_files_in_a_run_folder_are_one_line_or_ignored(drones, tmp_path):
    import duckdb

    folder, _ = drones
    copy = tmp_path / "run"
    shutil.copytree(folder, copy)
    (copy / "logs").mkdir(exist_ok=True)
    (copy / "logs" / "run-notes.log").write_text("tick 1 robot 0 (cf): not the run's\n")
    result = export(copy, tmp_path / "a.mcap")
    assert result.exit_code == 0, result.output
    assert not [m for t, _, _, m in read_back(tmp_path / "a.mcap")
                if t == "/rosout" and "not the run's" in m.msg]
    for part in (copy / "trajectories").glob("*.parquet"):
        duckdb.sql(f"COPY (SELECT run, tick, robot FROM '{part}') TO '{part}.x' (FORMAT parquet)")
        part.with_name(part.name + ".x").replace(part)
    result = export(copy, tmp_path / "b.mcap")
    assert result.exit_code == 1
    assert result.output.startswith("error: ") and "no column time_s" in result.output


def test_a_lua_logerr_line_is_an_error_on_rosout(tmp_path):
    (tmp_path / "c.lua").write_text('function step() log("fine") logerr("bad ", 7) end\n')
    (tmp_path / "e.toml").write_text('[arena]\nsize = [1.0, 1.0]\n[[robots]]\nname = "g"\n'
                                     'count = 1\ncontroller = { lua = "c.lua" }\n')
    result = CliRunner().invoke(app, ["run", str(tmp_path / "e.toml"), "--out",
                                      str(tmp_path / "out"), "--ticks", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert export(tmp_path / "out", tmp_path / "l.mcap").exit_code == 0
    logs = [(m.level, m.msg) for t, _, _, m in read_back(tmp_path / "l.mcap") if t == "/rosout"]
    assert sorted(logs) == [(20, "fine"), (40, "error: bad 7")]
