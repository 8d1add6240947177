"""A ``pfsm_file`` is checked for the form of a PFSM before anything of it is quoted: a file
that is no PFSM (``/etc/passwd``, a binary) is said to be one, quoting nothing of it; a PFSM
with a token of a megabyte is quoted as a short excerpt."""

import json

import pytest
from typer.testing import CliRunner

from swarmstack.cli import app

GROUP = ("[simulation]\nticks = 3\n[arena]\nsize = [1, 1]\n[[robots]]\nname = \"e\"\n"
         "count = 2\nradio = true\nsensors = { proximity = true, light = true, ground = true }\n")


def _problems(tmp_path, controller: str) -> list:
    (tmp_path / "e.toml").write_text(GROUP + f"controller = {controller}\n")
    r = CliRunner().invoke(app, ["validate", "--json", str(tmp_path / "e.toml")])
    assert r.exit_code == 1, r.output[:2000]
    return json.loads(r.output)["problems"]


@pytest.mark.parametrize("content", [
    "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
    "secret-token-1234 --nstates 1 --s0 0\n",
    "\x00\x01binary\x1b[2J",
])
def test_a_file_that_is_no_pfsm_is_said_to_be_none_and_not_quoted(tmp_path, content):
    (tmp_path / "other.txt").write_text(content)
    problems = _problems(tmp_path, '{ pfsm_file = "other.txt" }')
    assert len(problems) == 1, problems
    assert "robots[0].controller.pfsm_file: " in problems[0]
    assert "is not an AutoMoDe PFSM file" in problems[0]
    first = content.split()[0]
    assert first not in problems[0] and "root:x" not in problems[0], problems


def test_a_file_that_is_not_text_says_so_without_quoting_it(tmp_path):
    (tmp_path / "bin.txt").write_bytes(b"--nstates \xff\xfe 1")
    problems = _problems(tmp_path, '{ pfsm_file = "bin.txt" }')
    assert len(problems) == 1 and "cannot read" in problems[0] and "\\xff" not in problems[0]


@pytest.mark.parametrize("where", ["file", "string"])
def test_a_token_of_a_megabyte_is_quoted_as_a_short_excerpt(tmp_path, where):
    pfsm = "--nstates 1 --s0 " + "9" * 1_000_000
    if where == "file":
        (tmp_path / "best.txt").write_text(pfsm + "\n")
        problems = _problems(tmp_path, '{ pfsm_file = "best.txt" }')
    else:
        problems = _problems(tmp_path, f'{{ pfsm = "{pfsm}" }}')
    assert len(problems) == 1, [p[:300] for p in problems]
    assert len(problems[0]) < 400 and "(1000000 characters)" in problems[0], problems[0][:400]
    assert "token 4 '9999" in problems[0]
