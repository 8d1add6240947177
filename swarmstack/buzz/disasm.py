"""Human-readable listing of Buzz bytecode: one instruction per line with its offset,
operand (string ids shown with their text) and source location."""

from __future__ import annotations

from swarmstack.buzz import bytecode as B
from swarmstack.buzz.values import display


def disassemble(prog: B.Program) -> str:
    out = [f"; {len(prog.strings)} strings, {len(prog.functions)} functions, "
           f"{prog.code_size()} code bytes"]
    out.append("; strings")
    for i, s in enumerate(prog.strings):
        out.append(f";   {i:4d} {s!r}")
    off = 0
    for fid, f in enumerate(prog.functions):
        out.append("")
        out.append(f"function {fid} {display(f.name)}  (closure address @{f.addr})  "
                   f"slots-captured={f.ncap} params={f.nparams}")
        depth = 0
        for ins in f.code:
            name = B.NAMES[ins.op]
            if ins.op in (B.ELSE, B.END, B.ENDLOOP):
                depth -= 1
            arg = ""
            if ins.arg is not None:
                if ins.op in (B.PUSHS, B.GLOAD, B.GSTORE):
                    known = 0 <= ins.arg < len(prog.strings)
                    arg = f"{ins.arg} ({prog.strings[ins.arg]!r})" if known else f"{ins.arg} (?)"
                elif ins.op in (B.PUSHL, B.PUSHCN):
                    fn = prog.functions[ins.arg] if 0 <= ins.arg < len(prog.functions) else None
                    arg = f"{ins.arg} ({display(fn.name)} @{fn.addr})" if fn else f"{ins.arg} (?)"
                elif ins.op == B.PUSHF:
                    arg = repr(float(ins.arg))
                else:
                    arg = str(ins.arg)
            where = display(prog.files[ins.file]) if ins.file < len(prog.files) else "?"
            text = f"  {off:6d}  {'  ' * depth}{name:<8} {arg}"
            out.append(f"{text:<56} ; {where}:{ins.line}:{ins.col}")
            if ins.op in (B.IF, B.ELSE, B.LOOP):
                depth += 1
            off += B.SIZE[ins.op]
    return "\n".join(out) + "\n"
