"""Robot reference pages: written from the robot types, so a page that no longer matches its
type fails here (regenerate with `swarmstack robot NAME --write docs/robots`)."""

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

import swarmstack.robots  # noqa: F401
from swarmstack.cli import app
from swarmstack.robots import base
from swarmstack.robots.reference import elements, markdown

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()


@pytest.mark.parametrize("name", sorted(base.ROBOT_TYPES))
def test_every_robot_type_has_an_up_to_date_page(name):
    rt = base.ROBOT_TYPES[name]
    if name.startswith("hover"):          # the test suite's own types have no page
        pytest.skip("test-only robot type")
    page = ROOT / "docs" / "robots" / f"{name}.md"
    assert page.exists(), f"no page for {name}: swarmstack robot {name} --write docs/robots"
    assert page.read_text() == markdown(rt, f"{name}.png"), \
        f"{page} is out of date: swarmstack robot {name} --write docs/robots"
    assert (page.parent / f"{name}.png").stat().st_size > 10_000


def test_the_epuck2_page_gives_indices_angles_and_colours():
    page = markdown(base.ROBOT_TYPES["epuck2"])
    # Table 3 of the E-Puck2 paper: sensor 0 at −15°, 7 at +15°, sensors clockwise
    assert "| 0 | -15.0 | 34.8 | -9.3 | 43.0 |" in page
    assert "| 7 | +15.0 | 34.8 | 9.3 | 43.0 |" in page
    assert "| 0 | red only |" in page and "| 1 | RGB |" in page and "| 9 | green only |" in page
    assert "| `tof` | `tof_mm` | int32 (one value) |" in page
    assert "`set_wheels(left_m_s: float, right_m_s: float) -> None`" in page


def test_a_changed_type_changes_its_page():
    rt = base.ROBOT_TYPES["epuck2"]
    em = rt.emitters
    red_only = replace(em, channels=np.where(np.arange(em.n_leds)[:, None] == 1, [1, 0, 0],
                                             em.channels).astype(np.uint8))
    assert markdown(replace(rt, emitters=red_only)) != markdown(rt)


def test_elements_follow_the_device_geometry():
    prox = base.ROBOT_TYPES["epuck2"].devices["proximity"]
    els = elements(prox.make(prox.options(), None))
    assert [e.index for e in els] == list(range(8))
    assert math.degrees(els[0].angle_rad) == pytest.approx(-15.0)
    assert math.hypot(els[3].x_m, els[3].y_m) == pytest.approx(0.036)


def test_robot_command(tmp_path):
    listed = runner.invoke(app, ["robot"])
    assert listed.exit_code == 0 and "epuck2" in listed.output.split()
    shown = runner.invoke(app, ["robot", "crazyflie"])
    assert shown.exit_code == 0 and shown.output.startswith("# Robot type `crazyflie`")
    wrote = runner.invoke(app, ["robot", "epuck2", "--write", str(tmp_path)])
    assert wrote.exit_code == 0
    assert (tmp_path / "epuck2.md").read_text() == (ROOT / "docs/robots/epuck2.md").read_text()
    assert (tmp_path / "epuck2.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = runner.invoke(app, ["robot", "epuk2"])
    assert bad.exit_code == 2 and "unknown robot type 'epuk2'" in bad.output
