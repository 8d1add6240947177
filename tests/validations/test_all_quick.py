"""`swarmstack reproduce --all --quick`: every validation runs in its quick form, inside
tolerance, and its `--json` rows carry their numbers; `--quick` is a flag of every validation."""

import importlib
import inspect
import math

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.cli.reproduce import verdict
from swarmstack import validations as reproduce
from swarmstack.validations import Row
from swarmstack.validations.automode_aggregation import module_rows
from tests.validations.quick import all_quick

KEYS = {"quantity", "paper", "ours", "ok", "paper_value", "ours_value", "tolerance", "unit",
        "informative"}


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return all_quick(tmp_path_factory)


def test_every_validation_runs(quick):
    _, results, _ = quick
    assert [r["name"] for r in results] == reproduce.names()


def test_every_validation_is_inside_tolerance(quick):
    code, results, _ = quick
    outside = {r["name"]: [row["quantity"] for row in r["rows"]
                           if not row["ok"] and not row["informative"]]
               for r in results if not r["ok"]}
    assert outside == {}
    assert code == 0


def test_json_rows_carry_numbers_beside_their_text(quick):
    _, results, _ = quick
    for r in results:
        judged = [row for row in r["rows"] if not row["informative"]]
        assert judged, f"{r['name']} judges no row"
        for row in r["rows"]:
            assert set(row) == KEYS, (r["name"], row["quantity"])
            if row["tolerance"] is not None:
                # a two-sided row: its verdict is |ours − paper| ≤ tolerance
                agrees = abs(row["ours_value"] - row["paper_value"]) <= row["tolerance"]
                assert agrees == row["ok"] or math.isnan(row["ours_value"]), \
                    (r["name"], row["quantity"])


def test_quick_runs_the_reduced_design(quick):
    _, results, _ = quick
    automode = next(r for r in results if r["name"] == "automode-aggregation")
    assert "budget 1000 runs of 300 ticks" in automode["title"]


def test_quick_is_an_option_of_every_validation():
    for name in reproduce.names():
        importlib.import_module(reproduce._MODULES[name])
        fn = reproduce._REGISTRY[name]
        assert inspect.signature(fn).parameters["quick"].default is False, name


def test_quick_flag_from_the_command_line(tmp_path):
    result = CliRunner().invoke(app, ["reproduce", "epuck2-tof", "--quick", "--json",
                                      "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "epuck2-tof").is_dir()


@pytest.mark.parametrize("row, expected", [
    (Row.within("x", 1.0, 1.5, 0.2, "m"), "off by 0.5 m (tolerance 0.2 m)"),
    (Row.within("x", 1.0, 1.1, 0.2, "m"), "within tolerance"),
    (Row("x", "> 3", "2", False), "outside tolerance"),
    (Row("x", "12", "not reproducible: no data published", True, informative=True),
     "not reproducible: no data published"),
    (Row.within("x", 0.5, 0.25, 0.05, informative=True), "info (disagrees)"),
    (Row("x", "—", "0.07", True, ours_value=0.07, informative=True), "info"),
])
def test_verdicts(row, expected):
    assert verdict(row) == expected


def test_report_into_a_folder_is_refused(tmp_path):
    result = CliRunner().invoke(app, ["reproduce", "epuck2-tof", "--quick", "--out",
                                      str(tmp_path), "--report", str(tmp_path)])
    assert result.exit_code == 2
    assert f"--report {tmp_path}: a folder" in result.output


@pytest.mark.parametrize("module, constant, wrong, quantity", [
    ("chocolate", "OBSTACLE_GAIN", 4.0, "Chocolate obstacle gain k"),
    ("chocolate", "PROXIMITY_THRESHOLD", 0.2, "Chocolate exploration: obstacle threshold"),
    ("pfsm", "MAX_STATES", 5, "PFSM: most states"),
    ("watermelon", "BLACK_BELOW", 0.1, "Watermelon black floor"),
    ("watermelon", "ATTRACTION_GAIN", 1.0, "Watermelon attraction k_w"),
])
def test_automode_module_rows_fail_on_a_constant_the_seed_contradicts(monkeypatch, module,
                                                                       constant, wrong,
                                                                       quantity):
    monkeypatch.setattr(f"swarmstack.design.{module}.{constant}", wrong)
    failing = [r.quantity for r in module_rows() if not r.ok]
    assert [q for q in failing if q.startswith(quantity)] != []
