"""A TOML date or time in a --param value or a [sweep.params] entry is refused before any run,
naming the parameter (no key of an experiment takes one; the summary's JSON could not hold
it)."""

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app

EXP = "[simulation]\nticks = 3\n[arena]\nsize = [1, 1]\n[[robots]]\nname = \"e\"\ncount = 2\n"


@pytest.mark.parametrize("value", ["1979-05-27", "1,07:32:00", "1979-05-27T07:32:00Z",
                                   "1979-05-27 07:32:00", "1,1979-05-27", "[1979-05-27]",
                                   "{ a = 07:32:00 }"])
def test_a_date_in_a_param_is_refused_naming_it(tmp_path, value):
    (tmp_path / "e.toml").write_text(EXP)
    r = CliRunner().invoke(app, ["sweep", str(tmp_path / "e.toml"), "--out",
                                 str(tmp_path / "out"), "--param", f"robots.0.count={value}"])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    assert "Traceback" not in r.output and "not JSON serializable" not in r.output
    assert "--param robots.0.count: " in r.output and "TOML date or time" in r.output, r.output
    assert not (tmp_path / "out").exists()


def test_a_date_in_the_sweep_table_is_refused_naming_it(tmp_path):
    (tmp_path / "e.toml").write_text(EXP + "[sweep.params]\n\"robots.0.count\" = [1, 1979-05-27]\n")
    r = CliRunner().invoke(app, ["sweep", str(tmp_path / "e.toml"), "--out",
                                 str(tmp_path / "out")])
    assert r.exit_code == 1 and isinstance(r.exception, SystemExit), (r.output, r.exception)
    assert "sweep.params.'robots.0.count': 1979-05-27 is a TOML date" in r.output, r.output


def test_a_date_in_quotes_is_a_string(tmp_path):
    from swarmstack.studies.overrides import parse_param

    assert parse_param('robots.0.name="1979-05-27"').values == ("1979-05-27",)
