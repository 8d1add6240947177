"""The three Buzz validations, in their quick form (the full ones run from the CLI)."""

import pytest

pytest.importorskip("swarmstack.buzz.vm")

from swarmstack import validations as reproduce  # noqa: E402


@pytest.mark.parametrize("name", ["buzz-barrier", "buzz-vs-consensus", "buzz-bidding"])
def test_validation_quick(name, tmp_path):
    import importlib

    importlib.import_module(reproduce._MODULES[name])
    result = reproduce._REGISTRY[name](tmp_path, quick=True)
    assert result.ok, [(r.quantity, r.ours) for r in result.rows if not r.ok]
    assert all(f.exists() and f.suffix == ".png" for f in result.files) and result.files
