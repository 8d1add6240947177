"""What a message or a summary quotes of a file, a value or an error is bounded: a script's
error of megabytes stays a few kilobytes in summary.json and on the console."""

import json

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.experiments.checks import MAX_REPORT, bounded_error, excerpt, report

HUGE = 10_000_000
LOUD = f'''from swarmstack import Controller


class Loud(Controller):
    def step(self, robot):
        raise ValueError("x" * {HUGE} + " the end")
'''


@pytest.mark.parametrize("strict", [False, True])
def test_a_controller_error_of_megabytes_is_a_bounded_summary(tmp_path, strict):
    (tmp_path / "loud.py").write_text(LOUD)
    (tmp_path / "e.toml").write_text(
        "[simulation]\nticks = 3\n[arena]\nsize = [1, 1]\n[[robots]]\nname = \"e\"\n"
        "count = 2\ncontroller = { python = \"loud.py:Loud\" }\n")
    r = CliRunner().invoke(app, ["run", str(tmp_path / "e.toml"), "--out", str(tmp_path / "o"),
                                 "--quiet", "--runs", "2"] + (["--strict"] if strict else []))
    assert r.exit_code == 1, r.output[:2000]
    assert len(r.output) < 20 * MAX_REPORT and "ValueError: xxx" in r.output
    text = (tmp_path / "o" / "summary.json").read_text()
    assert len(text) < 20 * MAX_REPORT
    summary = json.loads(text)
    error = summary["error"]
    # the start and the end of the traceback are kept (where it was raised, and what)
    assert "loud.py" in error["traceback"] and error["traceback"].rstrip().endswith("the end")
    assert "characters left out" in error["traceback"]


def test_an_excerpt_is_one_short_line_with_control_characters_escaped():
    assert excerpt("root:x:0:0:\x1b[31m\nnext") == "root:x:0:0:\\x1b[31m next"
    long = excerpt("y" * HUGE)
    assert len(long) < 250 and long.endswith(f"({HUGE} characters)")
    assert excerpt("y" * 300, 10) == "yyyyyyyyyy… (300 characters)"


def test_a_report_keeps_its_start_and_end():
    text = "start\n" + "z" * HUGE + "\nend"
    kept = report(text)
    assert len(kept) < MAX_REPORT + 100
    assert kept.startswith("start\n") and kept.endswith("\nend")
    assert report("short\ntrace") == "short\ntrace"


def test_a_bounded_error_bounds_every_string_and_keeps_the_rest():
    e = bounded_error({"tick": 3, "robot": 1, "error": "w" * HUGE, "traceback": "t" * HUGE,
                       "report": "r" * HUGE, "where": "step"})
    assert e["tick"] == 3 and e["robot"] == 1 and e["where"] == "step"
    assert all(len(e[k]) < MAX_REPORT + 100 for k in ("error", "traceback", "report"))
