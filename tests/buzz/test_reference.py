"""Scripts whose output was recorded from the reference tool chain: ours must print the same."""

from pathlib import Path

import pytest

from swarmstack.buzz.vm import BuzzVM

HERE = Path(__file__).with_name("reference")
SCRIPTS = sorted(HERE.glob("*.bzz"))


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_same_output_as_the_reference(script):
    out: list[str] = []
    vm = BuzzVM(script.read_text(), str(script), robot_id=1, log=out.append)
    vm.run_top_level()
    lines = [line for line in out if line != ""]
    if vm.failed:
        lines.append("ERROR " + vm.error.message)
    expected = script.with_suffix(".out").read_text().splitlines()
    assert lines == expected
