"""docs/fidelity.md is current: regenerated from `swarmstack reproduce --all --quick --report`,
its table has the same rows — paper result, command, ours, verdict — as the committed file."""

from pathlib import Path

import pytest

from tests.validations.quick import all_quick

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "fidelity.md"
COMMAND = "swarmstack reproduce --all --quick --report docs/fidelity.md"
# rows measured on this machine's clock (beside ARGoS where it is installed): what they
# measure changes with the machine, what they compare does not
WALL_CLOCK = ("execution time",)


def table(text: str) -> list[list[str]]:
    """The cells of the report's table, one list per row (header and rule left out)."""
    lines = [ln for ln in text.splitlines() if ln.startswith("| ")]
    rows = [[c.strip() for c in ln.strip()[1:-1].split(" | ")] for ln in lines[1:]]
    assert rows and all(len(r) == 4 for r in rows), "a table of four columns"
    return rows


def comparable(row: list[str]) -> list[str]:
    paper, command, ours, verdict = row
    if paper.startswith(WALL_CLOCK):
        ours = verdict = "(this machine)"
    return [paper, command, ours, verdict]


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    _, _, report = all_quick(tmp_path_factory)
    return report.read_text(encoding="utf-8")


def test_committed_report_is_current(regenerated):
    committed = COMMITTED.read_text(encoding="utf-8")
    assert f"`{COMMAND}`" in committed, f"docs/fidelity.md: regenerate it with `{COMMAND}`"
    old = [comparable(r) for r in table(committed)]
    new = [comparable(r) for r in table(regenerated)]
    stale = [(a, b) for a, b in zip(old, new) if a != b]
    assert not stale and len(old) == len(new), (
        f"docs/fidelity.md is stale (regenerate it with `{COMMAND}`); first differences: "
        f"{stale[:3]}; rows committed {len(old)}, now {len(new)}")


def test_every_validation_has_rows_in_the_report(regenerated):
    from swarmstack import validations as reproduce

    commands = {r[1] for r in table(regenerated)}
    assert commands == {f"`swarmstack reproduce {n} --quick`" for n in reproduce.names()}
