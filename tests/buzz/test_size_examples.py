"""`swarmstack buzz size` sizes every example, swarm-layer scripts included, in both profiles."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app

EXAMPLES = sorted((Path(__file__).resolve().parents[2] / "examples" / "buzz").glob("*.bzz"))


@pytest.mark.parametrize("profile", ["buzz", "bittybuzz"])
@pytest.mark.parametrize("script", EXAMPLES, ids=lambda p: p.stem)
def test_size_of_every_example(script, profile):
    result = CliRunner().invoke(app, ["buzz", "size", str(script), "--profile", profile])
    assert result.exit_code == 0, result.output
    peak = int(result.output.split("peak heap:")[1].split("bytes")[0])
    assert 0 < peak
    code = int(result.output.split("bytecode:")[1].split("bytes")[0])
    assert code > 0
