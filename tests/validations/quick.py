"""Running a validation in its quick form, as the reproduction tests do, and every validation
at once (``swarmstack reproduce --all --quick``), run once per test session."""

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

from filelock import FileLock

from swarmstack import validations as reproduce

ALL_QUICK_TIMEOUT_S = 600


def run(name, tmp_path):
    """Validation ``name`` in its quick form, its files under ``tmp_path``."""
    importlib.import_module(reproduce._MODULES[name])
    tmp_path.mkdir(parents=True, exist_ok=True)
    return reproduce._REGISTRY[name](tmp_path, quick=True)


def failing(result):
    """The quantities of ``result`` outside tolerance."""
    return [r.quantity for r in result.rows if not r.ok]


def all_quick(tmp_path_factory):
    """``swarmstack reproduce --all --quick --json --report REPORT`` in one subprocess, once per
    test session (the pytest-xdist workers share it): ``(exit code, results, report path)``."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent   # the session's folder, shared by its workers
    root = base / "all-quick"
    done = base / "all-quick.json"
    with FileLock(str(done) + ".lock"):
        if not done.exists():
            report = root / "fidelity.md"
            proc = subprocess.run(
                [str(Path(sys.executable).with_name("swarmstack")), "reproduce", "--all",
                 "--quick", "--json", "--out", str(root / "out"), "--report", str(report)],
                capture_output=True, text=True, timeout=ALL_QUICK_TIMEOUT_S)
            if not proc.stdout.strip():
                raise AssertionError(f"swarmstack reproduce --all --quick printed no JSON "
                                     f"(exit {proc.returncode}):\n{proc.stderr[-4000:]}")
            done.write_text(json.dumps({"code": proc.returncode,
                                        "results": json.loads(proc.stdout),
                                        "report": str(report)}), encoding="utf-8")
    doc = json.loads(done.read_text(encoding="utf-8"))
    return doc["code"], doc["results"], Path(doc["report"])
