"""Bad experiment files: one clear line per problem, naming the file and the key path."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.experiments.config import ConfigError

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
     "robots[0].sensors.battery: "),
    (GOOD.replace("count = 3", "placement = { kind = 'explicit', poses = [[0, 0, 0], [0.01, 0, 0]] }"),
     "robots[0].placement: robot 1 of group 'e' at (0.01, 0, yaw 0 rad) overlaps robot 0 of "
     "group 'e'"),
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


# ---------------------------------------------------------------------------------------------
# Values that cannot be meant: each is one line naming the key, never a traceback or a hang.

def _problems(tmp_path, text, name="exp.toml"):
    path, result = _validate(tmp_path, text, name)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    lines = [l for l in result.output.splitlines() if l.strip()]
    assert lines and all(l.startswith(f"{path}: ") for l in lines), result.output
    assert "Traceback" not in result.output
    return lines


ONE = """
[arena]
size = [1.0, 1.0]

[[robots]]
name = "e"
count = 1
"""


@pytest.mark.parametrize("text, expected", [
    (ONE.replace("count = 1", "count = 1\nplacement = { yaw = nan }"),
     "robots[0].placement.yaw: expected \"uniform\" or a finite angle, found nan"),
    (ONE.replace("count = 1", "count = 1\nplacement = { yaw = \"inf deg\" }"),
     "robots[0].placement.yaw: expected \"uniform\" or an angle"),
    (ONE.replace("count = 1",
                 "count = 1\nplacement = { kind = 'explicit', poses = [[0, nan, 0]] }"),
     "robots[0].placement.poses[0][1]: expected a finite length"),
    ("[simulation]\nduration = inf\n" + ONE, "simulation.duration: expected a finite time"),
    ("[simulation]\nduration = '1e400 s'\n" + ONE, "simulation.duration: expected a finite time"),
    ("[simulation]\nticks_per_second = nan\n" + ONE,
     "simulation.ticks_per_second: expected a finite number"),
    ("[simulation]\nduration = '30 min'\nticks_per_second = 1e-300\n" + ONE,
     "simulation.ticks_per_second: expected greater than or equal to 0.001"),
    (ONE.replace("size = [1.0, 1.0]", "size = ['inf m', 1.0]"), "arena.size[0]: expected a length"),
    (ONE.replace("size = [1.0, 1.0]", "size = [1.0, 1.0]\ncenter = [-inf, 0]"),
     "arena.center[0]: expected a finite length"),
    (ONE.replace("size = [1.0, 1.0]", "size = [1.0, 1e20]"),
     "arena.size[1]: expected a length of at most 1e+06 m in magnitude"),
    (ONE.replace("size = [1.0, 1.0]", "size = [1.0, 1" + "0" * 400 + "]"),
     "arena.size[1]: expected a finite length"),
    ("[[lights]]\nposition = [0, 0, inf]\n" + ONE,
     "lights[0].position[2]: expected a finite length"),
    ("[[lights]]\nposition = [0, 0, 0.1]\nintensity = nan\n" + ONE,
     "lights[0].intensity: expected a finite number"),
    ("[[boxes]]\ncenter = [0.3, 0.3]\nsize = [0.1, 0.1, 0.1]\nyaw = -inf\n" + ONE,
     "boxes[0].yaw: expected a finite angle"),
    ("[floor]\nregions = [{ color = 'black', rect = [0, 0, nan, 1] }]\n" + ONE,
     "floor.regions[0].rect[2]: expected a finite length"),
    ("[floor]\nresolution = inf\nregions = [{ color = 'black', rect = [0, 0, 1, 1] }]\n" + ONE,
     "floor.resolution: expected a finite length"),
    ("[floor]\ngrey = nan\n" + ONE, "floor.grey: expected a finite number"),
    (ONE.replace("count = 1",
                 "count = 1\nsensors = { proximity = { noise = 'uniform', level = inf } }"),
     "robots[0].sensors.proximity.level: expected a finite number"),
    (ONE.replace("count = 1", "count = 1\nradio = { range = nan }"),
     "robots[0].radio.range: expected a finite length"),
    (ONE.replace("count = 1", "count = 1\ncontroller = { python = 'tests.core.controllers:Spin', "
                              "params = { speed = nan } }"),
     "robots[0].controller.params: expected a finite number, found nan at params.speed"),
])
def test_non_finite_numbers_are_refused(tmp_path, text, expected):
    lines = _problems(tmp_path, text)
    assert any(expected in l for l in lines), lines


@pytest.mark.parametrize("placement, expected", [
    ("{ min = [0.3, 0.3], max = [-0.3, -0.3] }", "robots[0].placement: min must be below max"),
    ("{ min = [0.0, 0.3], max = [0.4, 0.3] }", "robots[0].placement: min must be below max"),
    ("{ min = [0.0, 0.0], max = [0.05, 0.4] }",
     "robots[0].placement: the placement area (0.05 m × 0.4 m) is narrower than a robot"),
])
def test_uniform_placement_areas_that_cannot_hold_a_robot(tmp_path, placement, expected):
    lines = _problems(tmp_path, ONE.replace("count = 1", f"count = 1\nplacement = {placement}"))
    assert any(expected in l for l in lines), lines


def test_an_arena_narrower_than_a_robot(tmp_path):
    lines = _problems(tmp_path, ONE.replace("size = [1.0, 1.0]", "size = [0.05, 1.0]"))
    assert any("robots[0].placement: the arena (0.05 m × 1 m) is narrower than a robot" in l
               for l in lines), lines


@pytest.mark.parametrize("seed, expected", [
    ("-1", "simulation.seed: expected greater than or equal to 0 (found -1)"),
    (str(2 ** 63), "simulation.seed: expected less than 9223372036854775808"),
    ("true", "simulation.seed: expected a valid integer (found True)"),
    ("1.0", "simulation.seed: expected a valid integer (found 1.0)"),
])
def test_seed_must_be_a_non_negative_64_bit_integer(tmp_path, seed, expected):
    lines = _problems(tmp_path, f"[simulation]\nseed = {seed}\n" + ONE)
    assert any(expected in l for l in lines), lines


@pytest.mark.parametrize("text, expected", [
    (ONE.replace("count = 1", "count = true"), "robots[0].count: expected a valid integer"),
    ("[simulation]\nticks = true\n" + ONE, "simulation.ticks: expected a valid integer"),
    ("[output]\nevery = true\n" + ONE, "output.every: expected a valid integer"),
    ("[output]\nchunk_ticks = 1.5\n" + ONE, "output.chunk_ticks: expected a valid integer"),
    ("[output]\ntrajectories = 1\n" + ONE, "output.trajectories: expected a valid boolean"),
    (ONE.replace("count = 1", "count = 1\nradio = { capacity = true }"),
     "robots[0].radio.capacity: expected a valid integer"),
    (ONE.replace("count = 1", "count = 1\nradio = { payload_bytes = false }"),
     "robots[0].radio.payload_bytes: expected a valid integer"),
    (ONE.replace("count = 1", "count = 1\nsensors = { camera = { max_blobs = true } }"),
     "robots[0].sensors.camera.max_blobs: expected a valid integer"),
    (ONE.replace("count = 1", "count = 1\nsensors = { proximity = { level = '0.1' } }"),
     "robots[0].sensors.proximity.level: expected a valid number"),
    ("[simulation]\nticks_per_second = true\n" + ONE,
     "simulation.ticks_per_second: expected a number, found True"),
    (ONE.replace("size = [1.0, 1.0]", "size = ['٥ cm', 1.0]"), "arena.size[0]: expected a length"),
    (ONE.replace("size = [1.0, 1.0]", "size = ['1.0 m', '१ m']"),
     "arena.size[1]: expected a length"),
    (ONE.replace("size = [1.0, 1.0]", "size = [1.0, 1.0]\nwalls = 1"),
     "arena.walls: expected true, false or a table { thickness = …, height = … }; found 1"),
])
def test_strict_numbers_and_ascii_digits(tmp_path, text, expected):
    lines = _problems(tmp_path, text)
    assert any(expected in l for l in lines), lines


def test_a_problem_inside_the_walls_table_is_reported_alone(tmp_path):
    lines = _problems(tmp_path, ONE.replace("size = [1.0, 1.0]",
                                            "size = [1.0, 1.0]\nwalls = { thickness = -1 }"))
    assert len(lines) == 1 and "arena.walls.thickness: expected greater than 0" in lines[0], lines


# ---------------------------------------------------------------------------------------------
# Sizes: what an experiment may allocate before its first tick is bounded, and said.

def test_an_arena_typed_in_millimetres_with_a_painted_floor(tmp_path):
    text = ONE.replace("size = [1.0, 1.0]", "size = [2000, 2000]") + \
        "\n[floor]\nregions = [{ color = 'black', circle = [0, 0, 1] }]\n"
    lines = _problems(tmp_path, text)
    assert len(lines) == 1 and "floor.resolution: a 2000 m × 2000 m floor painted at 0.002 m " \
        "needs 1e+06 M texels; at most 16.8 M" in lines[0], lines


def test_painting_many_large_regions_is_bounded(tmp_path):
    regions = ", ".join(["{ color = 'black', rect = [-4, -4, 4, 4] }"] * 20)
    text = ONE.replace("size = [1.0, 1.0]", "size = [8, 8]") + \
        f"\n[floor]\nresolution = '2 mm'\nregions = [{regions}]\n"
    lines = _problems(tmp_path, text)
    assert any("floor.regions: painting 20 regions tests 320 M texels" in l for l in lines), lines


def test_huge_arenas_get_larger_grid_cells_within_bounds():
    from swarmstack.sim.simulation import Simulation
    from swarmstack.world.scene import GRID_CELL_M, MAX_CELLS_PER_RUN

    def grid(size):
        cfg = {"arena": {"size": [size, size], "walls": True},
               "robots": [{"name": "e", "count": 3}]}
        return Simulation.from_dict(cfg).world.scene.grid

    assert grid(2.0)[2] == GRID_CELL_M  # ordinary arenas: unchanged
    assert grid(150.0)[2] == GRID_CELL_M
    for size in (2000.0, 1e6):
        g = grid(size)
        assert g[2] > GRID_CELL_M and g[3] * g[4] <= MAX_CELLS_PER_RUN


def test_grid_cells_of_a_batch_are_bounded():
    from swarmstack.sim.simulation import Simulation

    cfg = {"arena": {"size": [150, 150]}, "robots": [{"name": "e", "count": 1}]}
    with pytest.raises(ConfigError) as err:
        Simulation.from_dict(cfg, runs=100, source="f.toml")
    assert err.value.problems[0].startswith(
        "f.toml: arena.size: a 150 m × 150 m arena: 100 runs of 695556 grid cells (0.18 m) need "
        "69.6 M cells; at most 16.8 M"), err.value.problems


def test_static_index_is_bounded(tmp_path):
    boxes = "".join(f"[[boxes]]\ncenter = [{x}, 0]\nsize = [150, 150, 0.1]\n" for x in range(40))
    text = ONE.replace("size = [1.0, 1.0]", "size = [180, 180]") + boxes
    text = text.replace("count = 1", "placement = { kind = 'explicit', poses = [[-85, 85, 0]] }")
    lines = _problems(tmp_path, text)
    assert any(": boxes: a 180 m × 180 m arena: walls, boxes and cylinders cover" in l
               for l in lines), lines


def test_robot_counts_are_bounded(tmp_path):
    lines = _problems(tmp_path, ONE.replace("count = 1", "count = 1000000"))
    assert any("robots[0].count: expected less than or equal to 200000" in l for l in lines)
    two = ONE.replace("count = 1", "count = 150000") + '[[robots]]\nname = "f"\ncount = 150000\n'
    lines = _problems(tmp_path, two)
    assert any("robots: 300000 robots in a run; at most 200000" in l for l in lines), lines


def test_robots_times_runs_is_bounded():
    from swarmstack.sim.simulation import Simulation

    cfg = {"arena": {"size": [1, 1]}, "robots": [{"name": "e", "count": 150000}]}
    with pytest.raises(ConfigError) as err:
        Simulation.from_dict(cfg, runs=2, source="f.toml")
    assert err.value.problems == ["f.toml: robots: 150000 robots × 2 runs = 300000 robots in "
                                  "one batch; at most 200000 (fewer runs per batch)"]


# ---------------------------------------------------------------------------------------------
# Controllers

def _controller(tmp_path, spec, module_text=None):
    if module_text is not None:
        (tmp_path / "ctl.py").write_text(module_text)
    return _problems(tmp_path, ONE.replace("count = 1", f"count = 1\ncontroller = {{ python = "
                                                        f"{spec} }}"))


@pytest.mark.parametrize("spec, expected", [
    ('":Diffusion"', "the module must be a dotted name"),
    ('".:X"', "the module must be a dotted name"),
    ('"..pkg:X"', "the module must be a dotted name"),
    ('"ctl.py:"', "the class name must be a Python identifier"),
    ('"Diffusion"', "expected 'file.py:Class' or 'package.module:Class'"),
    ('"a\\u0000b.py:X"', "a file name cannot contain a NUL character"),
    ('"' + "a" * 300 + '.py:X"', "a file or folder name has at most 255 characters"),
    ('"os:path"', "'os:path' is not a class (it is a module)"),
    ('"swarmstack_no_such_module:X"', "cannot import module 'swarmstack_no_such_module'"),
])
def test_controller_specs(tmp_path, spec, expected):
    lines = _controller(tmp_path, spec)
    assert len(lines) == 1 and "robots[0].controller.python: " in lines[0] \
        and expected in lines[0], lines


@pytest.mark.parametrize("module, expected", [
    ("import sys\nsys.exit(3)\n", "importing '{dir}/ctl.py' failed: it called sys.exit(3)"),
    ("raise ValueError('two\\nlines')\n", "failed: ValueError: two lines"),
    ("class Ctl:\n    def __init__(self, speed):\n        pass\n    def step(self, robot):\n"
     "        pass\n", "Ctl cannot be created without arguments"),
    ("Ctl = 3\n", "'ctl.py:Ctl' is not a class (it is a int)"),
])
def test_controller_modules_that_cannot_give_a_controller(tmp_path, module, expected):
    lines = _controller(tmp_path, '"ctl.py:Ctl"', module)
    assert len(lines) == 1 and "robots[0].controller.python: " in lines[0] \
        and expected.format(dir=tmp_path.resolve()) in lines[0], lines


def test_buzz_script_that_is_a_device(tmp_path):
    lines = _problems(tmp_path, ONE.replace("count = 1",
                                            "count = 1\ncontroller = { buzz = '/dev/zero' }"))
    assert lines == [f"{tmp_path / 'exp.toml'}: robots[0].controller.buzz: cannot read "
                     "'/dev/zero' (the Buzz script is not a regular file)"], lines


# ---------------------------------------------------------------------------------------------
# Nesting, files

def test_deeply_nested_toml(tmp_path):
    lines = _problems(tmp_path, ONE + "x = " + "[" * 500 + "]" * 500 + "\n")
    assert len(lines) == 1 and "nested too deeply" in lines[0], lines


def test_deeply_nested_params(tmp_path):
    deep = "[" * 300 + "]" * 300
    lines = _problems(tmp_path, ONE.replace(
        "count = 1", f"count = 1\ncontroller = {{ python = 'tests.core.controllers:Spin', "
                     f"params = {{ a = {deep} }} }}"))
    assert len(lines) == 1 and ": robots[0].controller.params" in lines[0] \
        and "nested too deeply" in lines[0], lines
    lines = _problems(tmp_path, ONE.replace(
        "count = 1", "count = 1\ncontroller = { python = 'tests.core.controllers:Spin', "
                     "params = { a = " + "[" * 40 + "]" * 40 + " } }"))
    assert len(lines) == 1 and ": robots[0].controller.params: nested too deeply at params.a[0]" \
        in lines[0] and "(at most 32 levels" in lines[0], lines
    ok = "[" * 20 + "]" * 20
    path, result = _validate(tmp_path, ONE.replace(
        "count = 1", f"count = 1\ncontroller = {{ python = 'tests.core.controllers:Spin', "
                     f"params = {{ a = {ok} }} }}"))
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("data_file, expected", [
    ("/dev/zero", "/dev/zero: cannot read battery data file (not a regular file)"),
    (".", "cannot read battery data file (not a regular file)"),
    ("bad.csv", "bad.csv:2: battery data file is not UTF-8 text (byte 0xff)"),
    ("a\\u0000b.csv", "cannot read battery data file"),
])
def test_battery_data_files_are_read_safely(tmp_path, data_file, expected):
    (tmp_path / "bad.csv").write_bytes(b"# comment\n\xff\xfe\n")
    lines = _problems(tmp_path, ONE.replace(
        "count = 1", f"count = 1\nsensors = {{ battery = {{ model = 'linear', "
                     f"data_file = \"{data_file}\" }} }}"))
    assert len(lines) == 1 and "robots[0].sensors.battery: " in lines[0] \
        and expected in lines[0], lines


def test_experiment_file_that_is_not_a_regular_file(tmp_path):
    for path in (Path("/dev/zero"), tmp_path):
        result = runner.invoke(app, ["validate", str(path)])
        assert result.exit_code == 1
        assert result.output.strip() == f"{path}: cannot read file (the experiment file is not " \
                                         "a regular file)", result.output


def test_odd_keys_stay_on_one_line(tmp_path):
    lines = _problems(tmp_path, ONE.replace("count = 1", 'count = 1\n"a\\nb\\u2028c" = 1\n'
                                                         'sensors = { "x\\ny" = true }'))
    assert len(lines) == 1 and lines[0].startswith(
        f"{tmp_path / 'exp.toml'}: robots[0].'a\\nb\\u2028c': unknown key"), lines


def test_long_group_names_are_refused(tmp_path):
    lines = _problems(tmp_path, ONE.replace('name = "e"', f'name = "{"e" * 101}"'))
    assert any("robots[0].name: expected at most 100 characters" in l for l in lines), lines


def test_controller_whose_constructor_raises_is_a_config_error(tmp_path):
    (tmp_path / "ctl.py").write_text(
        "import sys\nclass Boom:\n    def __init__(self):\n        raise RuntimeError('no')\n"
        "    def step(self, robot):\n        pass\n"
        "class Leave:\n    def __init__(self):\n        sys.exit(3)\n"
        "    def step(self, robot):\n        pass\n")
    for cls, what in (("Boom", "RuntimeError: no"), ("Leave", "SystemExit: 3")):
        text = GOOD.replace("count = 3", f'count = 3\ncontroller = {{ python = "ctl.py:{cls}" }}')
        path, result = _validate(tmp_path, text)
        assert result.exit_code == 1
        assert f"robots[0].controller.python: creating {cls}() raised {what}" in result.output


def test_reset_refuses_a_negative_seed():
    from swarmstack.sim.simulation import Simulation

    sim = Simulation.from_dict({"arena": {"size": [1.0, 1.0]},
                                "robots": [{"name": "e", "count": 2}]})
    with pytest.raises(ValueError, match="seed must be an integer"):
        sim.reset(seed=-1)
