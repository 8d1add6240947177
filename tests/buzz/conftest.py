"""Helpers for the Buzz core tests: run a script and collect what it logs."""

from __future__ import annotations

import pytest

from swarmstack.buzz.vm import BuzzVM


def run_lines(src: str, filename: str = "t.bzz", **kw) -> list[str]:
    out: list[str] = []
    vm = BuzzVM(src, filename, log=out.append, raise_errors=True, **kw)
    vm.run_top_level()
    return out


def run_vm(src: str, filename: str = "t.bzz", **kw) -> tuple[BuzzVM, list[str]]:
    out: list[str] = []
    vm = BuzzVM(src, filename, log=out.append, **kw)
    vm.run_top_level()
    return vm, out


def ev(expr: str, **kw) -> str:
    """What `log(<expr>)` prints."""
    return run_lines(f"log({expr})\n", **kw)[0]


@pytest.fixture
def run():
    return run_lines
