"""Every code block of the README and of docs/ runs, as a reader would run it from the
repository root.

A document's blocks run in order in a fresh folder that looks like the repository (its
``examples/`` and ``benchmarks/``, ``.venv/bin/python`` and ``.venv/bin/swarmstack``), one
Python namespace per document. By the fence's language:

- ``sh``: every command must exit 0 (``make demo`` runs the Makefile's demo recipe; ``make
  test`` is this suite and is not run again);
- ``console``: ``$ command`` lines run; the lines after each are output that must appear;
- ``python``: executed; ``toml``: a whole experiment is validated and built, a fragment (no
  ``[arena]``) is checked against the schema; ``buzz`` and ``lua``: compiled;
- no language or ``text``: diagrams, synopses and output — not run.

An HTML comment on the line before a fence adds: ``<!-- file: PATH -->`` (the block is also
written to PATH, for later blocks to use), ``<!-- excerpt: PATH -->`` (the block's lines appear
in that repository file, in order — a snippet that says it shows a file shows it; it is not
run on its own),
``<!-- needs: TOOL -->`` (skipped where TOOL is not installed). In docs/performance.md the
benchmark commands are checked, not run (they take minutes): each script exists and knows
every option the document passes it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "examples").rglob("*.md"))]
FENCE = re.compile(r"^```\s*([A-Za-z0-9_-]*)\s*$")
NOTE = re.compile(r"^<!--\s*(file|excerpt|needs):\s*(\S+)\s*-->\s*$")
RUN = {"sh", "console", "python", "toml", "buzz", "lua"}
QUIET = {"text", ""}


@dataclass
class Block:
    doc: Path
    line: int
    lang: str
    text: str
    notes: dict

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks(doc: Path) -> list[Block]:
    out, lines = [], doc.read_text().splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        notes = {}
        k = i - 1
        while k >= 0 and NOTE.match(lines[k]):
            kind, value = NOTE.match(lines[k]).groups()
            notes[kind] = value
            k -= 1
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        out.append(Block(doc, i + 1, m.group(1), "\n".join(lines[i + 1:end]) + "\n", notes))
        i = end + 1
    return out


# ---------------------------------------------------------------------------------------------
def _workdir(tmp: Path) -> Path:
    """A folder laid out like the repository for the commands of the docs."""
    shutil.copytree(ROOT / "examples", tmp / "examples",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (tmp / "benchmarks").symlink_to(ROOT / "benchmarks")
    bin_ = tmp / ".venv" / "bin"
    bin_.mkdir(parents=True)
    # scripts, not symlinks: a linked interpreter would not find its environment
    python = bin_ / "python"
    python.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} \"$@\"\n")
    cli = bin_ / "swarmstack"
    cli.write_text(f"#!/bin/sh\nexec {shlex.quote(sys.executable)} -c "
                   "'from swarmstack.cli import main; main()' \"$@\"\n")
    for script in (python, cli):
        script.chmod(0o755)
    return tmp


def _env(work: Path) -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{work / '.venv' / 'bin'}:{env['PATH']}"
    env["PYTHONPATH"] = str(ROOT) + (":" + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["COLUMNS"] = "120"
    env["MPLBACKEND"] = "Agg"
    return env


def _commands(text: str) -> list[str]:
    """Shell commands of a block: comments dropped, backslash continuations joined."""
    out, current = [], ""
    for line in text.splitlines():
        current += line.rstrip("\\").rstrip() + " " if line.endswith("\\") else line
        if line.endswith("\\"):
            continue
        if current.strip() and not current.lstrip().startswith("#"):
            out.append(current.strip())
        current = ""
    return out


def _demo_recipe() -> list[str]:
    """The commands of the Makefile's demo target, with $(BIN) as .venv/bin."""
    text = (ROOT / "Makefile").read_text()
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", text, re.M).group(1)
    return [line.strip().replace("$(BIN)", ".venv/bin") for line in recipe.splitlines()]


def _shell(command: str, work: Path, block: Block) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=work, env=_env(work), text=True,
                          capture_output=True, timeout=600)


def run_sh(block: Block, work: Path) -> None:
    for command in _commands(block.text):
        if command.startswith("make test"):
            continue
        todo = _demo_recipe() if command.startswith("make demo") else [command]
        for c in todo:
            r = _shell(c, work, block)
            assert r.returncode == 0, (f"{block.where}: `{c}` exited {r.returncode}\n"
                                       f"{r.stdout[-2000:]}\n{r.stderr[-3000:]}")


def run_console(block: Block, work: Path) -> None:
    steps: list[tuple[str, list[str]]] = []
    for line in block.text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps and line.strip():
            steps[-1][1].append(line.strip())
    assert steps, f"{block.where}: a console block without a `$ ` command"
    for command, expected in steps:
        r = _shell(command, work, block)
        said = (r.stdout + r.stderr).splitlines()
        for want in expected:
            assert any(want == s.strip() for s in said), \
                f"{block.where}: `{command}` did not print {want!r}; it printed:\n" + \
                "\n".join(said[:40])


def run_python(block: Block, work: Path, namespace: dict) -> None:
    cwd = os.getcwd()
    os.chdir(work)
    try:
        exec(compile(block.text, block.where, "exec"), namespace)
    finally:
        os.chdir(cwd)


def run_toml(block: Block, work: Path) -> None:
    from swarmstack.experiments.config import parse_experiment
    from swarmstack.sim.simulation import Simulation

    data = tomllib.loads(block.text)
    if "arena" in data:
        path = work / block.notes.get("file", "doc_experiment.toml")
        path.write_text(block.text)
        Simulation.from_file(path)
    else:   # a fragment: the keys and values it shows must be right
        base = {"arena": {"size": [1.0, 1.0]}, "robots": [{"name": "r", "count": 1}]}
        parse_experiment({**base, **data}, block.where)


def run_buzz(block: Block, work: Path) -> None:
    path = work / block.notes.get("file", "doc_snippet.bzz")
    path.write_text(block.text)
    r = _shell(f".venv/bin/swarmstack buzz check {shlex.quote(str(path))}", work, block)
    assert r.returncode == 0, f"{block.where}: {r.stdout}{r.stderr}"


def run_lua(block: Block, work: Path) -> None:
    from swarmstack.controllers.lua import LuaScriptError, compile_script

    path = work / block.notes.get("file", "doc_snippet.lua")
    path.write_text(block.text)
    try:
        compile_script(path)
    except LuaScriptError as exc:
        pytest.fail(f"{block.where}: {exc}")


def check_excerpt(block: Block) -> None:
    source = (ROOT / block.notes["excerpt"]).read_text().splitlines()
    at = 0
    for line in (l for l in block.text.splitlines() if l.strip()):
        want = line.split("  #")[0].rstrip()   # a comment added for the reader is allowed
        for k in range(at, len(source)):
            if source[k].rstrip().startswith(want):
                at = k + 1
                break
        else:
            pytest.fail(f"{block.where}: {line.strip()!r} is not in {block.notes['excerpt']} "
                        "(after the lines before it)")


def check_benchmark_commands(block: Block, work: Path) -> None:
    for command in _commands(block.text):
        m = re.search(r"benchmarks/(\w+\.py)(.*)", command)
        if not m:
            continue
        script, args = m.group(1), m.group(2)
        assert (ROOT / "benchmarks" / script).exists(), f"{block.where}: no benchmarks/{script}"
        r = _shell(f".venv/bin/python benchmarks/{script} --help", work, block)
        assert r.returncode == 0, f"{block.where}: {script} --help failed\n{r.stderr}"
        for flag in re.findall(r"(?<!\S)(--[a-z][a-z0-9-]*)", args):
            assert flag in r.stdout, f"{block.where}: {script} has no option {flag}"


# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("doc", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_code_blocks_run(doc, tmp_path):
    found = blocks(doc)
    unknown = [b.where for b in found if b.lang not in RUN | QUIET]
    assert not unknown, f"code blocks in a language the docs test does not know: {unknown}"
    work = _workdir(tmp_path)
    namespace: dict = {"__name__": "__doc__"}
    for block in found:
        needs = block.notes.get("needs")
        if needs and shutil.which(needs) is None:
            continue
        if "file" in block.notes and block.lang != "toml":
            target = work / block.notes["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text)
        if "excerpt" in block.notes:   # a piece of a file: checked against it, not run alone
            check_excerpt(block)
            continue
        if block.lang == "sh" and doc.name == "performance.md":
            check_benchmark_commands(block, work)
        elif block.lang == "sh":
            run_sh(block, work)
        elif block.lang == "console":
            run_console(block, work)
        elif block.lang == "python":
            run_python(block, work, namespace)
        elif block.lang == "toml":
            run_toml(block, work)
        elif block.lang == "buzz":
            run_buzz(block, work)
        elif block.lang == "lua":
            run_lua(block, work)


def test_the_docs_test_finds_the_blocks():
    readme = blocks(ROOT / "README.md")
    assert sum(b.lang == "sh" for b in readme) >= 5
    assert any(b.lang == "python" and "excerpt" in b.notes for b in readme)
