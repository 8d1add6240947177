"""The command line as a new user meets it: -h, --version, flags shown as flags, argument
names without braces, reproduce --all, --json on run/validate/reproduce, progress when standard
error is a file, one line per message whatever the terminal width."""

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from swarmstack import __version__
from swarmstack.cli import app

runner = CliRunner()
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "epuck2_diffusion.toml"


def cli(*args, env=None, cwd=None):
    """The real command in a child process, standard error piped (not a terminal)."""
    return subprocess.run([sys.executable, "-c", "from swarmstack.cli import main; main()",
                           *map(str, args)], capture_output=True, text=True, cwd=cwd or ROOT,
                          env={**os.environ, "COLUMNS": "60", **(env or {})}, timeout=300)


def test_short_help_and_version():
    for args in (["-h"], ["run", "-h"], ["buzz", "run", "-h"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, result.output
        assert "Usage:" in result.output
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.output.strip() == f"swarmstack {__version__}"


def test_flags_are_shown_as_flags_and_arguments_without_braces():
    out = runner.invoke(app, ["run", "-h"], env={"COLUMNS": "120"}).output
    assert "<bool>" not in out, out
    assert "{" not in out.split("\n\n")[0] + out.splitlines()[1], out
    assert "run [OPTIONS] EXPERIMENT" in out
    quiet = next(l for l in out.splitlines() if "--quiet" in l)
    assert "bool" not in quiet
    assert "<int range>" in next(l for l in out.splitlines() if "--runs" in l)
    # a flag takes no value: `--quiet` alone works
    assert "<bool>" not in runner.invoke(app, ["buzz", "run", "-h"], env={"COLUMNS": "120"}).output


def test_reproduce_all_and_json(tmp_path):
    result = runner.invoke(app, ["reproduce", "epuck2-tof", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert doc["name"] == "epuck2-tof" and doc["ok"] is True and doc["rows"]
    assert all({"quantity", "paper", "ours", "ok"} <= set(r) for r in doc["rows"])
    assert all(Path(f).exists() for f in doc["files"])
    listed = json.loads(runner.invoke(app, ["reproduce", "--list", "--json"]).stdout)
    assert "epuck2-tof" in listed and "crazyflie-position" in listed
    both = runner.invoke(app, ["reproduce", "epuck2-tof", "--all"])
    assert both.exit_code == 2 and "not both" in both.output


def test_reproduce_all_runs_every_validation(tmp_path, monkeypatch):
    # every registered validation is run once, in name order, and the exit status is that of
    # the worst (validations replaced by cheap ones: the real ones are tested one by one)
    from swarmstack import validations

    ran = []

    def fake(name, out_dir):
        ran.append(name)
        ok = name != "epuck2-light"
        return validations.Reproduction(name, "t", [validations.Row("q", "1", "1", ok)])

    monkeypatch.setattr(validations, "run", fake)
    result = runner.invoke(app, ["reproduce", "--all", "--out", str(tmp_path)])
    assert ran == validations.names()
    assert result.exit_code == 1
    assert "OUT epuck2-light" in result.output and "ok  epuck2-tof" in result.output
    assert f"{len(ran) - 1} of {len(ran)} validations inside tolerance" in result.output


def test_run_json_prints_the_summary_it_wrote(tmp_path):
    out = tmp_path / "a"
    result = cli("run", EXAMPLE, "--out", out, "--ticks", "20", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc == json.loads((out / "summary.json").read_text())
    assert doc["status"] == "completed" and doc["ticks_done"] == 20


def test_progress_lines_when_stderr_is_not_a_terminal(tmp_path):
    out = tmp_path / ("a-rather-long-folder-name-" * 4)
    result = cli("run", EXAMPLE, "--out", out, "--ticks", "50")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0] == "epuck2_diffusion.toml: set up, running 50 ticks"
    assert lines[-1].startswith("epuck2_diffusion.toml: tick 50/50 (100 %), ")
    assert "robot-ticks/s" in lines[-1]
    # the report: run time and set-up time apart, and the folder on one line, never wrapped
    report = result.stdout.strip()
    assert len(report.splitlines()) == 1, report
    assert "of set-up (kernel compilation included)" in report and f"results in {out}/" in report


def test_quiet_prints_no_progress(tmp_path):
    result = cli("run", EXAMPLE, "--out", tmp_path / "q", "--ticks", "5", "--quiet")
    assert result.returncode == 0 and result.stderr == ""


def test_plain_progress_paces_its_lines():
    from swarmstack.cli.progress import PlainProgress
    import io

    now = [0.0]
    stream = io.StringIO()
    p = PlainProgress("x", robots=10, every_s=5.0, stream=stream, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] = done * 0.2           # 100 ticks over 20 s
        p.tick(done, 100)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "x: set up, running 100 ticks"
    assert [l.split()[2] for l in lines[1:]] == ["26/100", "51/100", "76/100", "100/100"]
    assert lines[-1] == "x: tick 100/100 (100 %), 50 robot-ticks/s, 0 s left"


def test_a_command_named_first_reads_its_line_as_the_whole_command_line_does(tmp_path):
    # `main` reads `swarmstack NAME …` with an app holding only the command NAME (typer then
    # builds no other command's parameters): help, usage errors and bad values read the same
    from swarmstack import cli as command_line

    names = [c.name for c in app.registered_commands]
    assert "run" in names and "validate" in names
    lines = [[name, "-h"] for name in names]
    lines += [["run"], ["run", "--ticks", "0", "x.toml"], ["run", "x.toml", "--seed", "abc"],
              ["run", str(tmp_path / "missing.toml"), "--out", str(tmp_path / "out")],
              ["validate", "a.toml", "b.toml"], ["run", "--no-such-option"]]
    for line in lines:
        only = command_line._only_command_named(line[0])
        assert only is not None and only is not app, line
        alone, whole = (runner.invoke(a, line, env={"COLUMNS": "100"}) for a in (only, app))
        assert (alone.exit_code, alone.output) == (whole.exit_code, whole.output), line
    # a group's name, a misspelt command and an option first go to the whole command line
    assert all(command_line._only_command_named(w) is None for w in ("buzz", "rn", "-h"))
