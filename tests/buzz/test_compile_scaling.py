"""Compile work grows linearly with the script: checked by counting work, not by timing.

What used to grow quadratically: a block copied its function's symbol table (and a lambda the
enclosing locals); the generated code listed every captured local in each lambda; every
generated function was nested in one factory function, for which Python's compiler copies
the factory's names once per function; one huge top-level function; and the cycle collector
walking the compiler's millions of objects again and again.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

import swarmstack.buzz.codegen as C
from swarmstack.buzz.compiler import Compiler, compile_source
from swarmstack.buzz.runtime import Profile
from swarmstack.buzz.vm import BuzzVM

REFERENCE = Path(__file__).with_name("reference")


def many_locals(n: int) -> str:
    """A function with n locals, each followed by a block and a lambda capturing them all."""
    body = "".join(f"  var v{i} = {i}\n  if (v{i} > 3) {{ var w = v{i} }}\n"
                   f"  var l{i} = function(x) {{ return x + v0 }}\n" for i in range(n))
    return f"function g() {{\n{body}  return l{n - 1}(1)\n}}\nlog(g())\n"


def test_symbol_tables_are_not_copied_per_block_or_lambda(monkeypatch):
    entries = []
    orig = Compiler.push_table

    def counting(self, table, base=0):
        entries.append(len(table))
        return orig(self, table, base)

    monkeypatch.setattr(Compiler, "push_table", counting)
    for n in (50, 200):
        entries.clear()
        compile_source(many_locals(n), "s.bzz")
        assert sum(entries) <= 2 * n + 10  # a lambda's table starts empty: no copy


def python_lines(src: str) -> int:
    return sum(text.count("\n") + 1 for text, _ in C.Generator(compile_source(src, "s.bzz"),
                                                                 Profile("buzz")).units())


def test_generated_code_is_linear_in_lambdas_capturing_many_locals():
    small, big = python_lines(many_locals(100)), python_lines(many_locals(400))
    assert big < 4.5 * small  # quadratic would be about 16 times


def test_generated_functions_are_not_nested():
    gen = C.Generator(compile_source("function f(a) { return a }\nx = function() { return 1 }\n", "s.bzz"),
                      Profile("buzz"))
    for text, _ in gen.units():
        defs = [line for line in text.splitlines() if line.lstrip().startswith("def ")]
        assert defs and all(line.startswith("def ") for line in defs)


def test_the_cycle_collector_is_paused_while_compiling(monkeypatch):
    seen = []
    orig = Compiler.compile

    def spy(self):
        seen.append(gc.isenabled())
        return orig(self)

    monkeypatch.setattr(Compiler, "compile", spy)
    assert gc.isenabled()
    compile_source("x = 1\n", "s.bzz")
    assert seen == [False] and gc.isenabled()


def test_a_long_top_level_is_cut_into_small_functions_and_units():
    n = 3 * C.CHUNK_INSTRS
    src = "".join(f"x{i % 50} = {i} + 1\n" for i in range(n))
    units = C.Generator(compile_source(src, "s.bzz"), Profile("buzz")).units()
    text = "\n".join(t for t, _ in units)
    assert text.count("def _f0_") >= 3
    assert len(units) >= 2 and all(t.count("\n") < C.UNIT_LINES + C.CHUNK_LINES for t, _ in units)
    vm = BuzzVM(src + "log(x7)\n", "s.bzz", log=(out := []).append)
    vm.run_top_level()
    assert out == [str(n - 43 + 1)]


@pytest.mark.parametrize("script", sorted(REFERENCE.glob("*.bzz")), ids=lambda p: p.stem)
def test_a_top_level_cut_into_chunks_behaves_the_same(script, monkeypatch):
    """Every reference script, its top level forced into chunks of three lines (compiled as
    code that runs once, without inline fast paths): still the reference's output."""
    monkeypatch.setattr(C, "CHUNK_INSTRS", 0)
    monkeypatch.setattr(C, "CHUNK_LINES", 3)
    monkeypatch.setattr(C, "UNIT_LINES", 40)
    out: list[str] = []
    vm = BuzzVM(script.read_text(), str(script), robot_id=1, log=out.append)
    assert "def _f0_2(" in vm.python_source
    vm.run_top_level()
    lines = [line for line in out if line != ""]
    if vm.failed:
        lines.append("ERROR " + vm.error.message)
    assert lines == script.with_suffix(".out").read_text().splitlines()
