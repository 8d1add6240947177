"""An experiment naming a controller base class itself (which only raises NotImplementedError
in step) or a class that does not define step is refused when it is validated, naming the key
path, instead of failing at tick 0."""

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app

SUBCLASS = '''import abc

from swarmstack import BatchedController, Controller


class Empty(Controller):
    def init(self, robot, params):
        pass


class Half(BatchedController):
    pass


class Abstract(abc.ABC):
    @abc.abstractmethod
    def step(self, robot):
        ...


class Fine(Controller):
    def step(self, robot):
        pass
'''


@pytest.mark.parametrize("spec, says", [
    ("swarmstack:Controller", "does not define step(): Controller's own step()"),
    ("swarmstack:BatchedController", "does not define step(): BatchedController's own"),
    ("swarmstack.controllers.api:Controller", "does not define step()"),
    ("mine.py:Empty", "'mine.py:Empty' does not define step()"),
    ("mine.py:Half", "'mine.py:Half' does not define step()"),
    ("mine.py:Abstract", "'mine.py:Abstract' is abstract: it does not define step"),
])
def test_a_controller_without_its_own_step_is_refused_by_validate(tmp_path, spec, says):
    (tmp_path / "mine.py").write_text(SUBCLASS)
    (tmp_path / "e.toml").write_text(
        "[simulation]\nticks = 3\n[arena]\nsize = [1, 1]\n[[robots]]\nname = \"e\"\n"
        f"count = 2\ncontroller = {{ python = \"{spec}\" }}\n")
    r = CliRunner().invoke(app, ["validate", str(tmp_path / "e.toml")])
    assert r.exit_code == 1, r.output
    assert "robots[0].controller.python: " in r.output and says in r.output, r.output
    assert "Traceback" not in r.output


def test_a_controller_that_defines_step_is_valid(tmp_path):
    (tmp_path / "mine.py").write_text(SUBCLASS)
    (tmp_path / "e.toml").write_text(
        "[simulation]\nticks = 3\n[arena]\nsize = [1, 1]\n[[robots]]\nname = \"e\"\n"
        "count = 2\ncontroller = { python = \"mine.py:Fine\" }\n")
    r = CliRunner().invoke(app, ["validate", str(tmp_path / "e.toml")])
    assert r.exit_code == 0, r.output
