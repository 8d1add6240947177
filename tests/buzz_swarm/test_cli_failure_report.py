"""`swarmstack buzz run` reports a failed robot with location, caret and Buzz stack trace."""

from typer.testing import CliRunner

from swarmstack.cli import app


def test_failure_report_has_location_caret_and_trace(tmp_path):
    script = tmp_path / "bad.bzz"
    script.write_text('function f() {\n  var g = nil\n  return g()\n}\nlog("before")\n'
                      'function step() { if (id == 1) { f() } }\n')
    result = CliRunner().invoke(app, ["buzz", "run", str(script), "--robots", "3",
                                      "--steps", "2"])
    out = result.output
    assert result.exit_code == 1
    assert out.count("before") == 3                      # logged before the error: kept
    assert "robot 1 failed (step 1)" in out
    assert f"{script}:3:10 : type mismatch: expected closure, got nil" in out
    assert "  return g()" in out and "^" in out
    assert "Buzz stack trace" in out and "at f (" in out and "at step (" in out
