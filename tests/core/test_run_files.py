"""What `swarmstack run` leaves on disk: one run per folder, the files it lists, parts bounded
in size, write errors reported cleanly, the same file mode for every file."""

import errno
import json
import os
import stat
import time
from pathlib import Path

import duckdb
import numpy as np
import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.experiments import results_writer as results
from swarmstack.experiments.config import parse_experiment
from swarmstack.experiments.results_writer import (OutputFolderError, ResultsWriteError, prepare_output,
                                            read_table, write_part)
from swarmstack.experiments.runner import run_experiment

runner = CliRunner()

EXP = """
[simulation]
ticks = {ticks}
seed = 5

[arena]
size = [1.0, 1.0]
walls = true

[[robots]]
name = "{group}"
count = 4
controller = {{ python = "tests.core.controllers:Spin" }}
sensors = {{ proximity = true, encoders = true }}

[output]
sensors = ["encoders"]
chunk_ticks = 10
"""


def _exp(tmp_path, ticks=30, group="e", name="exp.toml"):
    path = tmp_path / name
    path.write_text(EXP.format(ticks=ticks, group=group))
    return path


def _run(*args):
    return runner.invoke(app, ["run", *map(str, args), "--quiet"])


def _summary(out):
    return json.loads((Path(out) / "summary.json").read_text())


def _on_disk(out):
    out = Path(out)
    return sorted(str(p.relative_to(out)) for p in out.rglob("*")
                  if p.is_file() and p.name != "summary.json")


# ------------------------------------------------------------------ one run per folder
def test_a_folder_holding_a_run_is_refused(tmp_path):
    path, out = _exp(tmp_path), tmp_path / "out"
    assert _run(path, "--out", out).exit_code == 0
    before = {p: p.stat().st_mtime_ns for p in out.rglob("*")}
    result = _run(path, "--out", out)
    assert result.exit_code == 1
    assert "already holds a run" in result.output and "--overwrite" in result.output
    assert "Traceback" not in result.output
    assert {p: p.stat().st_mtime_ns for p in out.rglob("*")} == before  # untouched


def test_overwrite_replaces_the_old_run_entirely(tmp_path):
    out = tmp_path / "out"
    assert _run(_exp(tmp_path, ticks=45, group="old"), "--out", out).exit_code == 0
    assert len(list((out / "trajectories").glob("*.parquet"))) == 5
    # another experiment, shorter, other group: nothing of the first one may survive
    result = _run(_exp(tmp_path, ticks=12, group="new", name="b.toml"), "--out", out,
                  "--overwrite")
    assert result.exit_code == 0, result.output
    summary = _summary(out)
    assert not (out / "sensors" / "old").exists()
    assert summary["files"] == _on_disk(out) == [
        "sensors/new/part-00000.parquet", "sensors/new/part-00001.parquet",
        "trajectories/part-00000.parquet", "trajectories/part-00001.parquet"]
    t = read_table(out / "trajectories")
    assert t["tick"].max() == 12 and len(t["tick"]) == 13 * 4


def test_foreign_files_are_never_removed(tmp_path):
    path, out = _exp(tmp_path), tmp_path / "out"
    assert _run(path, "--out", out).exit_code == 0
    (out / "notes.txt").write_text("mine")
    (out / "trajectories" / "analysis.csv").write_text("mine too")
    for extra in ([], ["--overwrite"]):
        result = _run(path, "--out", out, *extra)
        assert result.exit_code == 1
        assert "notes.txt" in result.output and "trajectories/analysis.csv" in result.output
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "trajectories" / "analysis.csv").exists()
    assert (out / "summary.json").exists()


def test_a_non_empty_folder_without_a_run_is_refused(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "data.bin").write_bytes(b"x")
    with pytest.raises(OutputFolderError, match="not empty"):
        prepare_output(out, overwrite=True)
    prepare_output(tmp_path / "new" / "deeper")  # a missing folder is made
    assert (tmp_path / "new" / "deeper").is_dir()


def test_summary_lists_exactly_the_files_written(tmp_path):
    out = tmp_path / "out"
    cfg = parse_experiment({
        "simulation": {"ticks": 25}, "arena": {"size": [1.0, 1.0]},
        "robots": [{"name": "a", "count": 3, "sensors": {"encoders": True},
                    "controller": {"python": "tests.core.controllers:Spin"}}],
        "output": {"sensors": ["encoders"], "chunk_ticks": 10}})
    summary = run_experiment(cfg, out)
    assert summary["files"] == _on_disk(out)
    assert summary["files"] == ["sensors/a/part-00000.parquet", "sensors/a/part-00001.parquet",
                                "sensors/a/part-00002.parquet",
                                "trajectories/part-00000.parquet",
                                "trajectories/part-00001.parquet",
                                "trajectories/part-00002.parquet"]


@pytest.mark.parametrize("crash_tick", [None, 7])
def test_a_run_that_logs_nothing_writes_no_part_and_a_true_summary(tmp_path, crash_tick):
    out = tmp_path / "out"
    ctrl = ({"python": "tests.core.controllers:Spin"} if crash_tick is None else
            {"python": "tests.core.controllers:CrashAt",
             "params": {"tick": crash_tick, "robot_id": 1}})
    cfg = parse_experiment({
        "simulation": {"ticks": 25}, "arena": {"size": [1.0, 1.0]},
        "robots": [{"name": "a", "count": 3, "sensors": {"encoders": True},
                    "controller": ctrl}],
        "output": {"trajectories": False}})
    summary = run_experiment(cfg, out)
    assert summary["files"] == _on_disk(out) == []
    if crash_tick is None:
        assert summary["status"] == "completed" and summary["ticks_done"] == 25
    else:
        assert summary["status"] == "failed" and summary["ticks_done"] == crash_tick
        assert summary["runs_status"][0]["ticks_done"] == crash_tick
    assert _summary(out) == json.loads(json.dumps(summary))


# ------------------------------------------------------------------ bounded parts
def test_parts_are_bounded_by_rows_not_only_by_ticks(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "PART_ROWS", 40)  # 4 robots: 10 ticks per part at most
    path, out = _exp(tmp_path, ticks=59), tmp_path / "out"
    path.write_text(path.read_text().replace("chunk_ticks = 10", "chunk_ticks = 1000"))
    assert _run(path, "--out", out).exit_code == 0
    con = duckdb.connect()
    for folder in ("trajectories", "sensors/e"):
        parts = sorted((out / folder).glob("*.parquet"))
        rows = [con.sql(f"SELECT count(*) FROM read_parquet('{p}')").fetchall()[0][0]
                for p in parts]
        assert rows == [40] * 6
    assert results.PART_ROWS <= 1_000_000 and results.PART_BYTES <= 64 << 20


def test_parts_are_bounded_by_bytes(tmp_path, monkeypatch):
    monkeypatch.setattr(results, "PART_BYTES", 4 * 1024)
    path, out = _exp(tmp_path, ticks=59), tmp_path / "out"
    path.write_text(path.read_text().replace("chunk_ticks = 10", "chunk_ticks = 1000"))
    assert _run(path, "--out", out).exit_code == 0
    parts = sorted((out / "trajectories").glob("*.parquet"))
    assert len(parts) > 3
    t = read_table(out / "trajectories")
    assert len(t["tick"]) == 60 * 4 and t["tick"].max() == 59


def test_wall_time_includes_the_last_write(tmp_path, monkeypatch):
    real = results.write_part

    def slow(path, columns):
        time.sleep(0.3)
        return real(path, columns)

    monkeypatch.setattr(results, "write_part", slow)
    path, out = _exp(tmp_path, ticks=5), tmp_path / "out"  # one part per table, at the end
    assert _run(path, "--out", out).exit_code == 0
    assert _summary(out)["wall_time_s"] >= 0.6


# ------------------------------------------------------------------ write errors
def test_disk_full_is_a_clean_failure_keeping_earlier_parts(tmp_path, monkeypatch):
    real = results.write_part
    calls = []

    def filling_up(path, columns):
        calls.append(path)
        if len(calls) == 4:  # the sensors part of the second round
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, columns)

    monkeypatch.setattr(results, "write_part", filling_up)
    path, out = _exp(tmp_path, ticks=50), tmp_path / "out"
    result = _run(path, "--out", out)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    line = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert line == [f"error: cannot write {out}/sensors/e/part-00001.parquet: "
                    "No space left on device"]
    summary = _summary(out)
    assert summary["status"] == "failed"
    assert summary["error"]["cause"] == "No space left on device"
    assert summary["error"]["path"].endswith("sensors/e/part-00001.parquet")
    # the round that failed is removed from every table: both end at the same tick
    assert summary["ticks_done"] == 9
    assert summary["files"] == _on_disk(out) == ["sensors/e/part-00000.parquet",
                                                 "trajectories/part-00000.parquet"]
    for folder in ("trajectories", "sensors/e"):
        t = read_table(out / folder)
        assert t["tick"].max() == summary["ticks_done"] and len(t["tick"]) == 10 * 4
    assert [r["status"] for r in summary["runs_status"]] == ["failed"]


def test_a_name_too_long_is_a_clean_error(tmp_path):
    out = tmp_path / ("x" * 300) / "out"
    result = _run(_exp(tmp_path), "--out", out)
    assert result.exit_code == 1
    assert "File name too long" in result.output and "Traceback" not in result.output


def test_duckdb_errors_name_the_file_and_the_cause(tmp_path):
    target = tmp_path / "part-00000.parquet"
    (tmp_path / f".part-00000.parquet.{os.getpid()}.tmp").mkdir()  # DuckDB cannot open it
    with pytest.raises(ResultsWriteError) as exc:
        write_part(target, {"a": np.arange(3)})
    assert str(exc.value).startswith(f"cannot write {target}: ")
    assert "IO Error" not in str(exc.value) and "\n" not in str(exc.value)
    assert not target.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_a_clean_error(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    out.chmod(0o500)
    try:
        result = _run(_exp(tmp_path), "--out", out)
    finally:
        out.chmod(0o700)
    assert result.exit_code == 1
    assert "Permission denied" in result.output and "Traceback" not in result.output


# ------------------------------------------------------------------ file mode
def test_summary_has_the_mode_of_the_other_files(tmp_path):
    old = os.umask(0o027)
    try:
        assert _run(_exp(tmp_path), "--out", tmp_path / "out").exit_code == 0
    finally:
        os.umask(old)
    out = tmp_path / "out"
    mode = stat.S_IMODE((out / "summary.json").stat().st_mode)
    assert mode == 0o640
    assert stat.S_IMODE((out / "trajectories" / "part-00000.parquet").stat().st_mode) == mode


# ------------------------------------------------------------------ arguments
def test_negative_seed_is_a_usage_error(tmp_path):
    result = _run(_exp(tmp_path), "--out", tmp_path / "out", "--seed", "-1")
    assert result.exit_code == 2
    assert "--seed" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "out").exists()
