"""The battery as a robot sensor: discharges with motion, and its data file can be replaced."""

from pathlib import Path

import numpy as np

from swarmstack import Simulation
from swarmstack.power import data_path

EXP = """
[simulation]
ticks = 600

[arena]
size = [2.0, 2.0]

[[robots]]
name = "e"
placement = {{ kind = "explicit", poses = [[0, 0, 0], [0.5, 0.5, 0]] }}
controller = {{ python = "tests.core.controllers:Spin" }}
sensors = {{ battery = {{ model = "linear"{extra} }} }}
"""


def _charge(tmp_path: Path, extra: str = "") -> np.ndarray:
    path = tmp_path / "exp.toml"
    path.write_text(EXP.format(extra=extra))
    sim = Simulation.from_file(path)
    sim.run(600)
    return sim.readings("e")["battery"].copy()


def test_spinning_robots_discharge_at_the_published_rate(tmp_path):
    q = _charge(tmp_path)
    # spinning at ±5 cm/s on the spot: the 5 cm/s slope for every tick after tick 0
    slope_5 = -1.068908673e-04
    assert np.allclose(q, 1.0 + slope_5 * 600 * 0.1, atol=1e-9)


def test_a_replaced_data_file_changes_the_discharge(tmp_path):
    lines = data_path("epuck2_linear.csv").read_text().splitlines()
    out = []
    for line in lines:
        parts = line.split(",")
        if line.startswith("#") or not parts[0].strip().isdigit():
            out.append(line)
        else:  # double every slope
            out.append(",".join([parts[0], repr(2 * float(parts[1]))] + parts[2:]))
    (tmp_path / "steep.csv").write_text("\n".join(out) + "\n")
    default = _charge(tmp_path)
    steep = _charge(tmp_path, ', data_file = "steep.csv"')
    assert np.allclose(1.0 - steep, 2 * (1.0 - default), rtol=1e-9)
