"""`swarmstack run`: summary, Parquet trajectories, batches, controller crashes keep the data."""

import json
from pathlib import Path

import duckdb
from typer.testing import CliRunner

from swarmstack.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]

EXP = """
[simulation]
ticks = 60
seed = 5

[arena]
size = [1.0, 1.0]
walls = true

[[robots]]
name = "e"
count = 4
controller = {{ python = "{ctrl}", params = {params} }}
sensors = {{ proximity = true, encoders = true }}

[output]
sensors = ["encoders"]
chunk_ticks = 10
"""


def _write(tmp_path, ctrl, params="{}"):
    path = tmp_path / "exp.toml"
    path.write_text(EXP.format(ctrl=ctrl, params=params))
    return path


def test_run_writes_summary_and_trajectories(tmp_path):
    path = _write(tmp_path, "tests.core.controllers:Spin")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--runs", "2", "--quiet"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    for key in ("seed", "runs", "ticks", "robots", "wall_time_s", "robot_ticks_per_s"):
        assert key in summary
    assert summary["runs"] == 2 and summary["robots"] == 4 and summary["ticks"] == 60
    assert summary["status"] == "completed"
    # CPU time of the ticks as well as wall time (other jobs on the machine skew the latter)
    assert 0 < summary["cpu_time_s"] and summary["robot_ticks_per_cpu_s"] == \
        2 * 4 * 60 / summary["cpu_time_s"]
    rows = duckdb.sql(f"SELECT count(*), count(DISTINCT run), max(tick) FROM "
                      f"read_parquet('{out}/trajectories/*.parquet')").fetchall()[0]
    assert rows == (2 * 4 * 61, 2, 60)
    cols = duckdb.sql(f"SELECT * FROM read_parquet('{out}/sensors/e/*.parquet') LIMIT 1").columns
    assert {"run", "tick", "robot", "encoders_0", "encoders_1"} <= set(cols)


def test_ticks_and_seed_override(tmp_path):
    path = _write(tmp_path, "tests.core.controllers:Spin")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--ticks", "7",
                                 "--seed", "99", "--quiet"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["ticks"] == 7 and summary["seed"] == 99


def test_controller_crash_names_robot_and_keeps_data(tmp_path):
    path = _write(tmp_path, "tests.core.controllers:CrashAt", "{ tick = 35, robot_id = 2 }")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 1
    assert "robot 2 of group 'e'" in result.output
    assert "ZeroDivisionError" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["error"]["robot"] == 2
    ticks = duckdb.sql(f"SELECT max(tick) FROM read_parquet('{out}/trajectories/*.parquet')"
                       ).fetchall()[0][0]
    assert ticks == 35  # everything up to the failing tick is on disk


def test_controller_crash_in_init_is_reported(tmp_path):
    path = _write(tmp_path, "tests.core.controllers:CrashInInit")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(path), "--out", str(out), "--quiet"])
    assert result.exit_code == 1
    assert "robot 1 of group 'e'" in result.output and "bad parameter in init" in result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "failed" and summary["ticks_done"] == 0


def test_results_carry_time_group_names_version_and_experiment_hash(tmp_path):
    from swarmstack import __version__

    path = _write(tmp_path, "tests.core.controllers:Spin")
    r1 = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "a"), "--quiet"])
    assert r1.exit_code == 0, r1.output
    s1 = json.loads((tmp_path / "a" / "summary.json").read_text())
    assert s1["swarmstack_version"] == __version__
    assert len(s1["experiment_sha256"]) == 64
    # the same experiment written differently hashes alike; a changed value does not
    path.write_text("# a comment\n"
                    + path.read_text().replace("size = [1.0, 1.0]", "size = ['100 cm', 1]"))
    runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "b"), "--quiet"])
    s2 = json.loads((tmp_path / "b" / "summary.json").read_text())
    assert s2["experiment_sha256"] == s1["experiment_sha256"]
    path.write_text(path.read_text().replace("count = 4", "count = 5"))
    runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "c"), "--quiet"])
    s3 = json.loads((tmp_path / "c" / "summary.json").read_text())
    assert s3["experiment_sha256"] != s1["experiment_sha256"]
    # plain SQL: no column is a keyword that needs quoting
    rows = duckdb.sql(f"SELECT group_name, group_index, min(time_s), max(time_s), max(tick) "
                      f"FROM '{tmp_path / 'a'}/trajectories/*.parquet' "
                      "GROUP BY group_name, group_index").fetchall()
    assert rows == [("e", 0, 0.0, 6.0, 60)]
    sensors = duckdb.sql(f"SELECT DISTINCT group_name, max(time_s) OVER () FROM "
                         f"'{tmp_path / 'a'}/sensors/e/*.parquet'").fetchall()
    assert sensors == [("e", 6.0)]
