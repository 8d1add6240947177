"""Python controllers write debug text too (`robot.log`, `group.log`): it reaches the run's
logs, the console with --verbose, and the recording the viewer draws next to the robot."""

import json

from typer.testing import CliRunner

from swarmstack.cli import app
from swarmstack.viewer.recording import open_recording

CONTROLLERS = '''
from swarmstack import BatchedController, Controller

class Talk(Controller):
    def step(self, robot):
        if robot.tick == 3:
            robot.log("robot", robot.id, "at tick", robot.tick)

class TalkBatched(BatchedController):
    def step(self, group):
        if group.tick == 4:
            group.log(1, "row one says", 42)
'''

EXP = """
[simulation]
ticks = 6

[arena]
size = [0.6, 0.6]

[[robots]]
name = "a"
count = 2
controller = {{ python = "ctl.py:{cls}" }}
"""


def _run(tmp_path, cls, *extra):
    (tmp_path / "ctl.py").write_text(CONTROLLERS)
    (tmp_path / "exp.toml").write_text(EXP.format(cls=cls))
    out = tmp_path / cls
    r = CliRunner().invoke(app, ["run", str(tmp_path / "exp.toml"), "--out", str(out),
                                 "--quiet", "--record", *extra])
    assert r.exit_code == 0, r.output
    return r, out


def test_robot_log_reaches_logs_console_and_recording(tmp_path):
    r, out = _run(tmp_path, "Talk", "--verbose")
    log = (out / "logs" / "run-00000.log").read_text()
    assert "robot 0 at tick 3" in log and "robot 1 at tick 3" in log
    assert "robot 1 at tick 3" in r.output
    rec = open_recording(out)
    lines = [entry for k in range(len(rec.chunk_sizes)) for entry in json.loads(rec.overlay("text", k))]
    assert sorted(text for *_, text in lines) == ["robot 0 at tick 3", "robot 1 at tick 3"]


def test_group_log_names_the_robot_of_the_row(tmp_path):
    _, out = _run(tmp_path, "TalkBatched")
    log = (out / "logs" / "run-00000.log").read_text()
    assert "row one says 42" in log
    rec = open_recording(out)
    lines = [entry for k in range(len(rec.chunk_sizes)) for entry in json.loads(rec.overlay("text", k))]
    assert [(robot, text) for _, robot, text in lines] == [(1, "row one says 42")]
