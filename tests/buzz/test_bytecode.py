"""Bytecode: encode/decode round trip, loading and running, disassembly, and the CLI."""

from typer.testing import CliRunner

from swarmstack.buzz import bytecode as B
from swarmstack.buzz.compiler import compile_source
from swarmstack.buzz.disasm import disassemble
from swarmstack.buzz.vm import BuzzVM
from swarmstack.cli import app

SRC = """
include "vec2.bzz"
function fib(n) { if (n < 2) return n
  return fib(n - 1) + fib(n - 2) }
t = {.a = 1.5, .b = "s", .3 = nil}
mk = function(x) { var y = x * 2  return function() { return y + self.k } }
u = {.k = 1}
u.f = mk(4)
i = 0
while (i < 3) { i = i + 1 }
log(fib(10), " ", t.a, t.b, size(t), " ", u.f(), " ", math.vec2.length(math.vec2.new(3, 4)), i)
"""


def test_round_trip_file_runs_with_same_output(tmp_path):
    prog = compile_source(SRC, "rt.bzz")
    data = B.encode(prog)
    p = tmp_path / "rt.bbo"
    p.write_bytes(data)
    again = B.decode(p.read_bytes())
    assert B.encode(again) == data
    out1, out2 = [], []
    BuzzVM(SRC, "rt.bzz", log=out1.append, raise_errors=True).run_top_level()
    BuzzVM.from_bytecode(p.read_bytes(), log=out2.append, raise_errors=True).run_top_level()
    assert out1 == out2 == ["55 1.500000s2 9 5.0000003"]


def test_errors_from_loaded_bytecode_keep_locations():
    data = B.encode(compile_source("x = 1\ny = x.z\n", "loc.bzz"))
    vm = BuzzVM.from_bytecode(data, log=lambda s: None)
    vm.run_top_level()
    assert str(vm.error) == "loc.bzz:2:7 : type mismatch: expected table, got integer"


def test_bad_magic_is_rejected():
    import pytest
    with pytest.raises(ValueError):
        B.decode(b"nope")


def test_disassembly_lists_instructions_with_locations():
    text = disassemble(compile_source("x = 1 + 2\nif (x) { log(x) }", "d.bzz"))
    assert "PUSHI    1" in text and "GSTORE   0 ('x')" in text
    assert "IF" in text and "END" in text and "d.bzz:2:" in text


def test_cli_check_ok_and_error(tmp_path):
    r = CliRunner()
    good = tmp_path / "g.bzz"
    good.write_text("log(1)\n")
    res = r.invoke(app, ["buzz", "check", str(good)])
    assert res.exit_code == 0
    bad = tmp_path / "b.bzz"
    bad.write_text("x = 1\ny = (2 +\n")
    res = r.invoke(app, ["buzz", "check", str(bad)])
    assert res.exit_code == 1
    assert f"{bad}:3:1: Syntax error" in res.output
    assert "Traceback" not in res.output


def test_cli_compile_disasm_size(tmp_path):
    r = CliRunner()
    src = tmp_path / "s.bzz"
    src.write_text("t = {.a = {}, .b = 2}\nfunction init() { u = {.x = 1} }\nfunction step() { log(1) }\n")
    out = tmp_path / "s.bbo"
    res = r.invoke(app, ["buzz", "compile", str(src), "-o", str(out)])
    assert res.exit_code == 0 and out.exists()
    res = r.invoke(app, ["buzz", "disasm", str(out)])
    assert res.exit_code == 0 and "function 1 init" in res.output
    res = r.invoke(app, ["buzz", "size", str(src), "--profile", "bittybuzz"])
    assert res.exit_code == 0
    assert "bytecode:" in res.output and "string table:" in res.output
    assert "peak heap:" in res.output and "step() calls" in res.output


def test_cli_disasm_compiles_a_script_and_size_runs_in_the_buzz_profile(tmp_path):
    r = CliRunner()
    src = tmp_path / "d.bzz"
    src.write_text("function step() { x = {.a = 1} }\n")
    res = r.invoke(app, ["buzz", "disasm", str(src)])
    assert res.exit_code == 0 and "function 1 step" in res.output and "TPUT" in res.output
    res = r.invoke(app, ["buzz", "size", str(src)])
    assert res.exit_code == 0 and "profile:         buzz" in res.output


def test_cli_size_reports_runtime_errors(tmp_path):
    src = tmp_path / "e.bzz"
    src.write_text("function step() { x = nil + 1 }\n")
    res = CliRunner().invoke(app, ["buzz", "size", str(src)])
    assert res.exit_code == 1 and "e.bzz:1:" in res.output


def test_truncated_or_corrupt_bytecode_is_a_value_error():
    import pytest
    data = B.encode(compile_source("x = 1\nlog(x)", "c.bzz"))
    for bad in (data[:-3], data[:20], data[:8] + b"\xff" * 40):
        with pytest.raises(ValueError):
            B.decode(bad)


def test_loaded_bytecode_keeps_the_reference_table_order_and_closure_addresses():
    from pathlib import Path
    for name in ("string_key_order", "closure_addresses"):
        script = Path(__file__).with_name("reference") / f"{name}.bzz"
        data = B.encode(compile_source(script.read_text(), str(script)))
        out: list[str] = []
        BuzzVM.from_bytecode(data, robot_id=1, log=out.append, raise_errors=True).run_top_level()
        assert [l for l in out if l] == script.with_suffix(".out").read_text().splitlines()
