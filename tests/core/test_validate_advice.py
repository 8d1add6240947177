"""`validate` guides: "did you mean" for misspelt keys, the TOML line of a problem, and warnings
for what runs but is probably not meant (objects and lights outside the arena, logged sensors
that no group has)."""

import json

from typer.testing import CliRunner

from swarmstack.cli import app

runner = CliRunner()

BASE = """[simulation]
ticks = 10

[arena]
size = [1.0, 1.0]
walls = true

[[robots]]
name = "e"
count = 2
sensors = { proximity = true }
"""


def _validate(tmp_path, text, *extra):
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return path, runner.invoke(app, ["validate", str(path), *extra])


def test_misspelt_keys_get_a_suggestion_and_their_line(tmp_path):
    path, r = _validate(tmp_path, BASE.replace("ticks = 10", "tick_per_second = 10"))
    assert r.exit_code == 1
    assert r.output.strip() == (f"{path}: simulation.tick_per_second: unknown key; did you mean "
                                "ticks_per_second? (line 2)")
    path, r = _validate(tmp_path, BASE.replace("count = 2", "count = 2\nsensor = {}"))
    assert f"{path}: robots[0].sensor: unknown key; did you mean sensors? (line 11)" in r.output
    path, r = _validate(tmp_path, BASE.replace("proximity = true", "proximty = true"))
    assert "robots[0].sensors.proximty: epuck2 has no proximty; did you mean proximity?" \
        in r.output and "(line 11)" in r.output
    path, r = _validate(tmp_path, BASE.replace("proximity = true",
                                               'tof = { noise = "uniform", levle = 0.1 }'))
    assert "robots[0].sensors.tof.levle: unknown key; did you mean level?" in r.output


def test_a_wrong_value_points_at_its_line_in_the_second_group(tmp_path):
    text = BASE + '\n[[robots]]\nname = "f"\ncount = -3\n'
    path, r = _validate(tmp_path, text)
    assert r.exit_code == 1
    assert r.output.strip().startswith(f"{path}: robots[1].count: expected greater than or equal to 1")
    assert r.output.strip().endswith("(line 15)")


def test_a_key_that_is_far_off_gets_no_suggestion(tmp_path):
    path, r = _validate(tmp_path, BASE.replace("ticks = 10", "zzzz = 10"))
    assert r.output.strip() == f"{path}: simulation.zzzz: unknown key (line 2)"


def test_objects_and_lights_outside_the_arena_are_warned_about(tmp_path):
    text = BASE + """
[[boxes]]
center = [2.0, 0.0]
size = [0.1, 0.1, 0.1]

[[cylinders]]
center = [0.0, 0.4]
radius = 0.05

[[lights]]
position = [0.0, -3.0, 0.1]
"""
    path, r = _validate(tmp_path, text)
    assert r.exit_code == 0, r.output
    warnings = [l for l in r.output.splitlines() if l.startswith("warning: ")]
    assert len(warnings) == 2, r.output       # the cylinder inside is fine
    assert warnings[0].startswith(f"warning: {path}: boxes[0].center: (2, 0) m is outside")
    assert warnings[1].startswith(f"warning: {path}: lights[0].position: (0, -3) m is outside")


def test_logged_sensors_that_no_group_has_on_are_warned_about(tmp_path):
    text = BASE + '\n[output]\nsensors = ["ground", "proximity"]\n'
    path, r = _validate(tmp_path, text)
    assert r.exit_code == 0
    assert r.output.count("warning: ") == 1
    assert f"{path}: output.sensors[0]: no group has 'ground' on" in r.output


def test_logged_sensors_missing_from_a_group_type_are_warned_about(tmp_path):
    text = BASE + """
[[robots]]
name = "drones"
type = "crazyflie"
count = 1

[output]
sensors = ["proximity"]
"""
    path, r = _validate(tmp_path, text)
    assert r.exit_code == 0, r.output
    assert (f"{path}: output.sensors[0]: 'proximity' is logged for 'e' only: 'drones' has no "
            "such sensor") in r.output


def test_run_prints_the_same_warnings(tmp_path):
    path = tmp_path / "exp.toml"
    path.write_text(BASE + "\n[[lights]]\nposition = [5.0, 0.0, 0.1]\n")
    r = runner.invoke(app, ["run", str(path), "--out", str(tmp_path / "o"), "--quiet"])
    assert r.exit_code == 0, r.output
    assert f"warning: {path}: lights[0].position" in r.output


def test_validate_json(tmp_path):
    path, r = _validate(tmp_path, BASE + "\n[[lights]]\nposition = [5.0, 0.0, 0.1]\n", "--json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 0 and doc["valid"] is True and doc["problems"] == []
    assert len(doc["warnings"]) == 1 and doc["file"] == str(path)
    path, r = _validate(tmp_path, BASE.replace("count = 2", "count = 0"), "--json")
    doc = json.loads(r.stdout)
    assert r.exit_code == 1 and doc["valid"] is False
    assert doc["problems"][0].startswith(f"{path}: robots[0].count: ")
