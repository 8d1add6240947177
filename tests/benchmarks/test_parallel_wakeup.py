"""The idle-core benchmark: its figures line up with what it was asked, bad options are one
line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "parallel_wakeup.py"


def run_script(*args):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_one_figure_per_idle_time_and_thread_count():
    r = run_script("--robots", "200", "--idle-us", "0,20", "--calls", "3", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["robots"] == 200 and out["idle_us"] == [0.0, 20.0] and not out["same_poses"]
    assert [row["threads"] for row in out["rows"]] == [1, 2]
    for row in out["rows"]:
        assert len(row["sense_s"]) == 2 and all(s > 0 for s in row["sense_s"])
        assert row["tick_s"] > 0
    assert "whole tick" in r.stdout
    same = run_script("--robots", "200", "--idle-us", "0", "--calls", "2", "--same-poses",
                      "--json")
    assert same.returncode == 0 and json.loads(same.stdout.strip().splitlines()[-1])["same_poses"]


@pytest.mark.parametrize("args", [("--idle-us", "fast"), ("--idle-us", "-5"),
                                  ("--calls", "0")])
def test_bad_options_are_one_line(args):
    r = run_script(*args)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--" in r.stderr
