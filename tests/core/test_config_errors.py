"""Bad experiment files: one clear line per problem, naming the file and the key path."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app

runner = CliRunner()

GOOD = """
[arena]
size = [1.0, 1.0]
walls = true

[[robots]]
name = "e"
count = 3
sensors = { proximity = true }
"""


def _validate(tmp_path: Path, text: str, name="exp.toml"):
    path = tmp_path / name
    path.write_text(text)
    result = runner.invoke(app, ["validate", str(path)])
    return path, result


def test_good_file_is_valid(tmp_path):
    path, result = _validate(tmp_path, GOOD)
    assert result.exit_code == 0, result.output
    assert "valid" in result.output


@pytest.mark.parametrize("text, expected", [
    ("[arena\nsize = [1, 1]", "not valid TOML"),
    (GOOD.replace("count = 3", "count = -3"), "robots[0].count: expected greater than or equal to 1"),
    (GOOD.replace("count = 3", "count = 3\ncolour = 'red'"), "robots[0].colour: unknown key"),
    (GOOD.replace("size = [1.0, 1.0]", "size = [1.0, '3 kg']"),
     "arena.size[1]: expected a length"),
    (GOOD.replace("proximity = true", "proximity = { noise = 'loud' }"),
     "robots[0].sensors.proximity.noise: expected 'none', 'uniform' or 'gaussian'"),
    (GOOD.replace("count = 3", "count = 900"), "robots[0].placement: cannot fit 900 robots"),
    (GOOD + "\n[floor]\nimage = 'missing.png'\n", "floor.image: file"),
    (GOOD.replace("count = 3", "count = 3\ncontroller = { python = 'nowhere.py:X' }"),
     "robots[0].controller.python: controller file"),
    ("[[robots]]\nname = 'e'\ncount = 1\n", "arena: required key is missing"),
    (GOOD.replace("proximity = true", "battery = { model = 'linear', data_file = 'nope.csv' }"),
     "robots[0].sensors: "),
    (GOOD.replace("count = 3", "placement = { kind = 'explicit', poses = [[0, 0, 0], [0.01, 0, 0]] }"),
     "robots[0].placement: pose 1 (0.01, 0) of group 'e' overlaps another robot"),
])
def test_bad_files_name_the_place(tmp_path, text, expected):
    path, result = _validate(tmp_path, text)
    assert result.exit_code == 1
    out = result.output
    assert "Traceback" not in out
    assert str(path) in out
    assert expected in out, out


def test_every_problem_is_listed_on_its_own_line(tmp_path):
    bad = GOOD.replace("count = 3", "count = 0\nbogus = 1")
    _, result = _validate(tmp_path, bad)
    lines = [l for l in result.output.splitlines() if l.strip()]
    assert len(lines) == 2
    assert all(l.startswith(str(tmp_path)) for l in lines)


def test_run_of_invalid_file_exits_1_without_traceback(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(GOOD.replace("count = 3", "count = 'many'"))
    result = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "o"), "--quiet"])
    assert result.exit_code == 1
    assert "robots[0].count" in result.output and "Traceback" not in result.output
