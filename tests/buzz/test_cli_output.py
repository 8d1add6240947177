"""What the buzz command line prints, and where: plain text, logs alone on standard output."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app


def cli(*args: str):
    return CliRunner().invoke(app, ["buzz", *args])


def script(tmp_path, text: str, name: str = "s.bzz"):
    f = tmp_path / name
    f.write_text(text)
    return f


def test_run_prints_only_log_lines_on_standard_output(tmp_path):
    f = script(tmp_path, 'log("hello ", id)\nv = stigmergy.create(3)\nv.put("a", 7)\n'
                         'function step() { log("step ", id) }\n')
    res = cli("run", str(f), "--robots", "2", "--steps", "2")
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines() == ["[robot 0] hello 0", "[robot 1] hello 1",
                                       "[robot 0] step 0", "[robot 1] step 1",
                                       "[robot 0] step 0", "[robot 1] step 1"]
    assert "robot(s)" in res.stderr and "#3" in res.stderr  # the summary


def test_run_failures_go_to_standard_error_with_exit_status_1(tmp_path):
    f = script(tmp_path, 'log("before")\nfunction step() { if (id == 1) { nil_fn() } }\n')
    res = cli("run", str(f), "--robots", "2", "--steps", "1")
    assert res.exit_code == 1
    assert res.stdout.splitlines() == ["[robot 0] before", "[robot 1] before"]
    assert "robot 1 failed (step 1)" in res.stderr and f"{f}:2:34 : type mismatch" in res.stderr


@pytest.mark.parametrize("args", [["--robots", "0"], ["--topology", "nonsense"], ["--profile", "x"],
                                  ["--distance-unit", "km"], ["--drop", "2"]])
def test_run_usage_errors_exit_2_with_nothing_on_standard_output(tmp_path, args):
    f = script(tmp_path, 'log("x")\n')
    res = cli("run", str(f), *args)
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and "error:" in res.stderr


def test_run_of_a_missing_file_is_a_usage_error(tmp_path):
    res = cli("run", str(tmp_path / "none.bzz"))
    assert res.exit_code == 2 and res.stdout == "" and "cannot read" in res.stderr


def test_a_script_that_does_not_compile_is_reported_as_check_reports_it(tmp_path):
    f = script(tmp_path, "x = 1 +\n")
    run, check = cli("run", str(f), "--robots", "3"), cli("check", str(f))
    assert run.exit_code == check.exit_code == 1
    assert run.stdout == "" and check.stderr.strip() in run.stderr


def test_locations_print_as_plain_text(tmp_path):
    # rich would turn ":100:" into an emoji and "[red]" into a style
    lines = ["x = 1"] * 99 + ['function step() { y = nil + "[red]:100:[/]" }']
    f = script(tmp_path, "\n".join(lines) + "\n")
    res = cli("run", str(f), "--steps", "1")
    assert res.exit_code == 1
    assert f"{f}:100:27 : type mismatch" in res.stderr and "\U0001f4af" not in res.output
    g = script(tmp_path, "\n".join(["x = 1"] * 99 + ["x = :smile: $"]) + "\n", "g.bzz")
    for cmd in ("check", "run"):
        res = cli(cmd, str(g))
        assert f"{g}:100:5: Syntax error: unknown character ':'" in res.stderr
        assert "\U0001f604" not in res.output


def test_the_summary_shows_script_strings_verbatim(tmp_path):
    f = script(tmp_path, 'name = "[bold]:100: :smile:"\n')
    res = cli("run", str(f), "--steps", "0")
    assert res.exit_code == 0
    assert "[bold]:100: :smile:" in res.stderr


DISTANCES = """
function step() {
  neighbors.foreach(function(rid, data) { log(rid, " ", data.distance) })
}
"""


def test_distance_unit_scales_neighbour_distances(tmp_path):
    f = script(tmp_path, DISTANCES)
    got = {}
    for unit in ("m", "cm", "mm", None):
        args = ["run", str(f), "--robots", "2", "--steps", "2", "--topology", "line"]
        res = cli(*(args + (["--distance-unit", unit] if unit else [])))
        assert res.exit_code == 0, res.output
        got[unit] = [float(line.split()[-1]) for line in res.stdout.splitlines()]
    assert got[None] == got["cm"] and got["m"]
    for m, cm, mm in zip(got["m"], got["cm"], got["mm"]):
        assert cm == pytest.approx(100 * m, rel=1e-6) and mm == pytest.approx(1000 * m, rel=1e-6)


def test_check_and_size_print_plain_paths(tmp_path):
    f = script(tmp_path, "x = 1\n", "a[red]b.bzz")
    assert cli("check", str(f)).stdout == f"{f}: ok\n"
    assert re.search(r"file: +.*a\[red\]b\.bzz", cli("size", str(f)).stdout)
