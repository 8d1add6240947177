"""`swarmstack import`: prints or writes the TOML, never replaces a file unasked."""

from __future__ import annotations

import tomllib

from typer.testing import CliRunner

from swarmstack.cli import app

runner = CliRunner()


def test_prints_without_out(argos):
    result = runner.invoke(app, ["import", str(argos())])
    assert result.exit_code == 0, result.output
    assert tomllib.loads(result.output)["robots"][0]["type"] == "epuck2"


def test_writes_and_refuses_to_replace(argos, tmp_path):
    path, out = argos(), tmp_path / "exp.toml"
    result = runner.invoke(app, ["import", str(path), "-o", str(out)])
    assert result.exit_code == 0 and out.is_file()
    assert "not translated are listed at its top" in result.output
    out.write_text("# mine\n")
    result = runner.invoke(app, ["import", str(path), "-o", str(out)])
    assert result.exit_code == 1 and "--force" in result.output
    assert out.read_text() == "# mine\n"
    result = runner.invoke(app, ["import", str(path), "-o", str(out), "--force"])
    assert result.exit_code == 0 and out.read_text().startswith("# Imported from exp.argos")
    result = runner.invoke(app, ["validate", str(out)])
    assert result.exit_code == 0, result.output


def test_never_writes_over_the_file_it_imports(argos):
    path = argos()
    before = path.read_bytes()
    result = runner.invoke(app, ["import", str(path), "-o", str(path), "--force"])
    assert result.exit_code == 1 and "is the .argos file being imported" in result.output
    assert path.read_bytes() == before
