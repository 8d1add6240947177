"""Battery data files: shipped tables load, replacements take effect, broken files say why."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from swarmstack.power import (
    BatteryTableError,
    crazyflie_battery,
    data_path,
    discharge,
    epuck2_battery,
    load_model,
)
from swarmstack.power.battery import EPUCK2_FILES


def _data_lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def _write(tmp_path: Path, name: str, lines: list[str]) -> Path:
    p = tmp_path / name
    p.write_text("\n".join(lines) + "\n")
    return p


@pytest.mark.parametrize("kind", sorted(EPUCK2_FILES))
def test_shipped_epuck2_tables_load_with_16_speeds(kind):
    m = epuck2_battery(kind)
    assert m.n_speeds == (2 if kind == "simple" else 16)
    assert m.max_speed_cm_s == 15.0


def test_shipped_files_cite_their_source_and_name_units():
    for name in [*EPUCK2_FILES.values(), "crazyflie_cubic.csv"]:
        lines = _data_lines(data_path(name))
        assert lines[0].startswith("# Source:"), name
        header = next(line for line in lines if not line.startswith("#"))
        assert "_per_s" in header, name


def test_published_values_are_in_the_tables():
    lin = epuck2_battery("linear").table
    assert lin.slope_per_s[4] == -1.090958885e-04
    cub = epuck2_battery("cubic").table
    assert cub.coeffs[14, 3] == -7.9006866533e-13 and cub.tmax_s[14] == 13228.2938
    seg = epuck2_battery("approximated").table
    assert seg.slope_per_s[0, 3] == -1.6328606520e-01 and seg.charge_from[15, 2] == 0.5233256695
    cf = crazyflie_battery().table
    assert list(cf.coeffs[0]) == [1.009061, -4.506692e-03, 1.582833e-05, -2.347383e-08]
    assert cf.tmax_s[0] == 427.21


def test_replacing_the_data_file_changes_the_result(tmp_path):
    lines = _data_lines(data_path("epuck2_linear.csv"))
    new = [("4,-2.0e-04" if line.startswith("4,") else line) for line in lines]
    custom = epuck2_battery("linear", path=_write(tmp_path, "mine.csv", new))
    shipped = epuck2_battery("linear")
    q = np.ones(1)
    d = np.full(1, 0.004)  # 4 cm/s at dt = 0.1 s
    z = np.zeros(1)
    assert discharge(q, d, z, 0.1, custom)[0] == pytest.approx(1 - 2.0e-5, abs=1e-15)
    assert discharge(q, d, z, 0.1, shipped)[0] == pytest.approx(1 - 1.090958885e-5, abs=1e-15)


def test_replacing_the_crazyflie_file_changes_tmax(tmp_path):
    lines = _data_lines(data_path("crazyflie_cubic.csv"))
    # a steeper, linear "cubic": 1 - t/100, empty at 90 s
    new = [ln for ln in lines if ln.startswith("#") or ln.startswith("speed")]
    new.append("0,1.0,-0.01,0,0,90,0.1")
    m = crazyflie_battery(path=_write(tmp_path, "cf.csv", new))
    from swarmstack.power import autonomy_s
    assert autonomy_s(m, 0) == pytest.approx(90.0)


def _expect_error(path: Path, kind: str, *fragments: str) -> str:
    with pytest.raises(BatteryTableError) as err:
        load_model(kind, path)
    msg = str(err.value)
    assert str(path) in msg
    for frag in fragments:
        assert re.search(frag, msg), (frag, msg)
    return msg


def test_wrong_header_names_file_line_and_expected_columns(tmp_path):
    lines = _data_lines(data_path("epuck2_linear.csv"))
    i = next(k for k, ln in enumerate(lines) if ln.startswith("speed"))
    lines[i] = "speed,slope"
    p = _write(tmp_path, "bad.csv", lines)
    _expect_error(p, "linear", rf":{i + 1}:", "speed_cm_s,slope_per_s")


def test_missing_value_names_the_row(tmp_path):
    lines = _data_lines(data_path("epuck2_cubic.csv"))
    i = next(k for k, ln in enumerate(lines) if ln.startswith("7,"))
    lines[i] = ",".join(lines[i].split(",")[:-1])
    p = _write(tmp_path, "bad.csv", lines)
    _expect_error(p, "cubic", rf":{i + 1}:", "6 values; expected 7")


def test_not_a_number(tmp_path):
    lines = _data_lines(data_path("epuck2_linear.csv"))
    i = next(k for k, ln in enumerate(lines) if ln.startswith("9,"))
    lines[i] = "9,fast"
    _expect_error(_write(tmp_path, "bad.csv", lines), "linear", rf":{i + 1}:", "'fast'", "number")


def test_speed_gap(tmp_path):
    lines = [ln for ln in _data_lines(data_path("epuck2_linear.csv")) if not ln.startswith("5,")]
    i = next(k for k, ln in enumerate(lines) if ln.startswith("6,"))
    _expect_error(_write(tmp_path, "bad.csv", lines), "linear", rf":{i + 1}:", "expected 5")


def test_positive_slope_rejected(tmp_path):
    lines = _data_lines(data_path("epuck2_simple.csv"))
    lines = [("moving,8.7e-05" if ln.startswith("moving") else ln) for ln in lines]
    _expect_error(_write(tmp_path, "bad.csv", lines), "simple", "negative slope")


def test_non_monotone_cubic_rejected(tmp_path):
    lines = _data_lines(data_path("crazyflie_cubic.csv"))
    lines[-1] = "0,1.0,-1e-3,1e-5,0,427.21,1.0"  # turns upwards at t = 50 s
    _expect_error(_write(tmp_path, "bad.csv", lines), "cubic", ":6:", "not decreasing")


def test_inconsistent_charge_at_tmax_rejected(tmp_path):
    lines = _data_lines(data_path("crazyflie_cubic.csv"))
    lines[-1] = lines[-1].rsplit(",", 1)[0] + ",0.3"
    _expect_error(_write(tmp_path, "bad.csv", lines), "cubic", "charge_at_tmax", "0.142")


def test_segment_rows_must_come_in_fours(tmp_path):
    lines = _data_lines(data_path("epuck2_approximated.csv"))[:-1]
    _expect_error(_write(tmp_path, "bad.csv", lines), "approximated", "4 segments")


def test_segments_must_be_contiguous(tmp_path):
    lines = _data_lines(data_path("epuck2_approximated.csv"))
    i = next(k for k, ln in enumerate(lines) if ln.startswith("3,2,"))
    cells = lines[i].split(",")
    cells[6] = "0.6703"  # charge_from no longer equal to segment 1's charge_to
    cells[2] = str(0.6703 + 3.9872186139e-05 * 2844.5075)  # keep the line itself consistent
    lines[i] = ",".join(cells)
    _expect_error(_write(tmp_path, "bad.csv", lines), "approximated", rf":{i + 1}:", "contiguous")


def test_missing_file_is_clear(tmp_path):
    with pytest.raises(BatteryTableError, match="cannot read"):
        epuck2_battery("cubic", path=tmp_path / "nope.csv")


def test_bad_options_rejected():
    with pytest.raises(ValueError, match="interpolation"):
        epuck2_battery("linear", interpolation="cubic-spline")
    with pytest.raises(ValueError, match="start_charge"):
        epuck2_battery("linear", start_charge=1.5)
    with pytest.raises(ValueError, match="kind"):
        epuck2_battery("quadratic")


def test_power_imports_nothing_from_the_simulator():
    import ast

    import swarmstack.power as power

    for src in Path(power.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(src.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top in {"numpy", "numba", "math", "dataclasses", "pathlib", "typing",
                               "__future__", "swarmstack"}, (src.name, name)
                if top == "swarmstack":  # its own modules, and how kernels are declared
                    assert name.startswith(("swarmstack.power", "swarmstack.kernels")), \
                        (src.name, name)
