"""Running a validation in its quick form, as the reproduction tests do."""

import importlib

from swarmstack.experiments import reproduce


def run(name, tmp_path):
    """Validation ``name`` in its quick form, its files under ``tmp_path``."""
    module = importlib.import_module(reproduce._MODULES[name])
    tmp_path.mkdir(parents=True, exist_ok=True)
    return module.reproduce(tmp_path, quick=True)


def failing(result):
    """The quantities of ``result`` outside tolerance."""
    return [r.quantity for r in result.rows if not r.ok]
