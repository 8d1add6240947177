"""A broken .argos file gets one line per problem naming file, line and XML path — from
`swarmstack import`, `validate` and `run` alike — never a traceback."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from swarmstack.argos import ArgosError, import_argos
from swarmstack.experiments.config import load_experiment
from swarmstack.cli import app
from swarmstack.experiments.config import ConfigError

from .conftest import ROBOT

runner = CliRunner()


def _line(path, text: str) -> int:
    """The line of ``path`` where ``text`` first appears."""
    return next(k for k, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def _error(path) -> str:
    with pytest.raises(ArgosError) as info:
        import_argos(path)
    (line,) = info.value.problems
    assert "\n" not in line and line.startswith(f"{path}:")
    return line


def test_malformed_xml_names_the_line(argos):
    path = argos(ROBOT + "\n    <box id='b' size='1,1,1'>\n")   # never closed
    line = _error(path)
    assert "not well-formed XML" in line
    assert line.startswith(f"{path}:{_line(path, '</arena>')}:")


def test_entity_declarations_are_refused(tmp_path):
    path = tmp_path / "bomb.argos"
    path.write_text('<?xml version="1.0"?>\n<!DOCTYPE a [<!ENTITY x "xxxxxxxxxx">'
                    '<!ENTITY y "&x;&x;&x;&x;&x;&x;&x;&x;&x;&x;">]>\n'
                    '<argos-configuration>&y;</argos-configuration>\n')
    assert "document type declaration" in _error(path)


@pytest.mark.parametrize("arena, where, what", [
    ('<box id="b" size="1,2" movable="false"><body position="0,0,0" /></box>',
     "/argos-configuration/arena/box[@id='b']@size", 'expected 3 numbers "x,y,z"'),
    ('<box id="b" size="1,1,x" movable="false"><body position="0,0,0" /></box>',
     "/argos-configuration/arena/box[@id='b']@size", "expected a number, found 'x'"),
    ('<box id="b" size="1,1,1" movable="maybe"><body position="0,0,0" /></box>',
     "/argos-configuration/arena/box[@id='b']@movable", "expected true or false"),
    ('<light id="l" position="0,0,nan" color="red" intensity="1" medium="m" />',
     "/argos-configuration/arena/light[@id='l']@position", "expected a number"),
    ('<light id="l" position="0,0,1" color="mauve" intensity="1" medium="m" />',
     "/argos-configuration/arena/light[@id='l']@color", "expected a colour name"),
    ('<distribute><position method="triangle" /><orientation method="constant" values="0,0,0" />'
     '<entity quantity="2" max_trials="3"><e-puck2 id="e"><controller config="lua" /></e-puck2>'
     '</entity></distribute>',
     "/argos-configuration/arena/distribute/position@method",
     "expected one of uniform, gaussian, constant, grid, found 'triangle'"),
    ('<distribute><position method="grid" center="0,0,0" distances="0.1,0.1,0" layout="2,2,1" />'
     '<orientation method="constant" values="0,0,0" /><entity quantity="5" max_trials="3">'
     '<e-puck2 id="e"><controller config="lua" /></e-puck2></entity></distribute>',
     "/argos-configuration/arena/distribute/position@layout", "4 places for 5"),
    ('<e-puck2 id="e"><body position="0,0,0" /><controller config="nope" /></e-puck2>',
     "/argos-configuration/arena/e-puck2[@id='e']/controller@config",
     "no controller with id 'nope'"),
    ('<foot-bot id="f"><body position="0,0,0" /><controller config="lua" /></foot-bot>',
     "/argos-configuration/arena/foot-bot[@id='f']", "does not simulate the foot-bot"),
    ('<box id="b" size="1,1,1" movable="false" />',
     "/argos-configuration/arena/box[@id='b']", "missing <body"),
])
def test_bad_values_name_the_xml_path(argos, arena, where, what):
    line = _error(argos(ROBOT + "\n" + arena))
    assert f": {where}: " in line and what in line, line


def test_an_arena_without_robots_is_refused(argos):
    assert "no robot of a type swarmstack simulates" in _error(argos(""))


def test_not_an_argos_file(tmp_path):
    path = tmp_path / "x.argos"
    path.write_text("<html><body/></html>")
    assert "expected the root element <argos-configuration>" in _error(path)
    with pytest.raises(ArgosError, match="file not found"):
        import_argos(tmp_path / "missing.argos")


def test_schema_problems_are_told_in_terms_of_the_xml(argos):
    path = argos(ROBOT + '\n<light id="l" position="0,0,1" color="red" intensity="-1" medium="m" />')
    with pytest.raises(ConfigError) as info:
        load_experiment(path)
    (line,) = info.value.problems
    assert line.startswith(f"{path}:{_line(path, '<light')}: "
                           "/argos-configuration/arena/light[@id='l']: ")
    assert "experiment key lights[0].intensity" in line


def test_cli_reports_without_traceback(argos, tmp_path):
    path = argos(ROBOT + "\n<box id='b' size='1,1'><body position='0,0,0' /></box>")
    for args in (["import", str(path)], ["validate", str(path)],
                 ["run", str(path), "--out", str(tmp_path / "r"), "--quiet"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1, result.output
        assert "Traceback" not in result.output
        assert f"{path}:{_line(path, '<box')}: /argos-configuration/arena/box[@id='b']@size:" \
            in result.output


def test_world_building_problems_are_told_in_terms_of_the_xml(argos, tmp_path):
    path = argos("""<distribute>
      <position method="uniform" min="-0.2,-0.2,0" max="0.2,0.2,0" />
      <orientation method="uniform" min="0,0,0" max="360,0,0" />
      <entity quantity="400" max_trials="10"><e-puck2 id="ep"><controller config="native" />
      </e-puck2></entity></distribute>""")
    for args in (["validate", str(path)], ["run", str(path), "--out", str(tmp_path / "r"),
                                           "--quiet"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 1
        assert f"{path}:{_line(path, '<distribute>')}: /argos-configuration/arena/distribute: " \
               "cannot fit 400 robots" in result.output, result.output


def test_run_and_validate_say_what_is_not_simulated(argos):
    path = argos(tail="<physics_engines><dynamics2d id='d' /></physics_engines>")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0, result.output
    assert (f"warning: {path}:{_line(path, '<native')}: not translated: "
            "/argos-configuration/controllers/native[@id='native']: a C++ controller") \
        in result.output
    assert f"{path}:{_line(path, '<physics_engines')}: not translated: " \
           "/argos-configuration/physics_engines" in result.output


def test_a_missing_script_is_told_at_the_controller(argos, tmp_path):
    path = argos('<e-puck2 id="c"><body position="0,0,0" /><controller config="bz" /></e-puck2>')
    (tmp_path / "gone.bzz").write_text("function init() {}\n")
    path.write_text(path.read_text().replace("<controllers>", """<controllers>
    <buzz_controller_epuck2 id="bz"><params script="gone.bzz" /></buzz_controller_epuck2>"""))
    (tmp_path / "gone.bzz").unlink()
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    line = _line(path, 'script="gone.bzz"')
    assert (f"{path}:{line}: /argos-configuration/controllers/"
            "buzz_controller_epuck2[@id='bz']/params: ") in result.output, result.output
