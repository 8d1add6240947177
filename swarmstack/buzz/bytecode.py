"""Buzz bytecode: the opcode set, the program container and its binary file format.

The instruction set is a stack machine close to the reference assembler (push/arithmetic/
global and local loads and stores/table get and put/call/return), with one difference:
control flow is *structured* (``IF``/``ELSE``/``END`` and ``LOOP``/``EXITZ``/``ENDLOOP``
instead of jumps to labels). Structured control flow is what lets the loader turn each
function back into straight Python code (see ``codegen``), so the bytecode is the real
intermediate form: a ``.bbo`` file holds everything needed to run a script.

File layout (little endian)::

    b"BZBC" u16 version u16 flags
    u32 nstrings   { u32 len, bytes }*                string table (ids are indices)
    u32 nscript                                      how many of them the script itself uses
    u32 nfiles     { u16 sid }*                      source file names (debug info)
    u32 nfuncs     { u16 name_sid u16 ncap u16 nparams u32 addr
                     u32 codelen code
                     u32 debuglen debug }*

Flag bit 0 ("wide") marks a program too big for 16-bit numbers (more than 65 535 strings,
functions, locals or arguments): every u16 above, and every u16 instruction operand, is
then a u32. Strings are stored as the bytes they stand for (``values.str_bytes``).

``debug`` has one record per instruction, as unsigned LEB128 varints: the file index, the
line as a zig-zag delta from the previous instruction's line, and the column (about
three bytes an instruction).

``ncap`` is the number of activation-record slots the function starts with (slot 0 is
``self``; lambdas also get a by-value copy of the enclosing function's locals); arguments
follow in slots ``ncap .. ncap+nparams-1``. Function 0 is the script's top level. ``addr`` is
where the reference assembler would place the function in its bytecode: ``log`` shows a
closure as ``[n-closure @addr]``, so scripts print what they print on the reference VM.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from swarmstack.buzz.values import byte_len, bytes_str, str_bytes

MAGIC = b"BZBC"
VERSION = 1
FLAG_WIDE = 1

# opcode -> (name, operand format or "")
OPS: list[tuple[str, str]] = [
    ("NOP", ""), ("DONE", ""), ("PUSHNIL", ""), ("DUP", ""), ("POP", ""),
    ("RET0", ""), ("RET1", ""),
    ("ADD", ""), ("SUB", ""), ("MUL", ""), ("DIV", ""), ("MOD", ""), ("POW", ""), ("UNM", ""),
    ("LAND", ""), ("LOR", ""), ("LNOT", ""), ("BAND", ""), ("BOR", ""), ("BNOT", ""),
    ("LSHIFT", ""), ("RSHIFT", ""),
    ("EQ", ""), ("NEQ", ""), ("GT", ""), ("GTE", ""), ("LT", ""), ("LTE", ""),
    ("GLOAD", "H"), ("GSTORE", "H"), ("PUSHT", ""), ("TPUT", ""), ("TGET", ""),
    ("CALL", "H"), ("PUSHF", "f"), ("PUSHI", "i"), ("PUSHS", "H"), ("PUSHCN", "H"),
    ("PUSHL", "H"), ("LLOAD", "H"), ("LSTORE", "H"), ("LREMOVE", "H"),
    ("IF", ""), ("ELSE", ""), ("END", ""), ("LOOP", ""), ("EXITZ", ""), ("ENDLOOP", ""),
]
NAMES = [n for n, _ in OPS]
FMT = [f for _, f in OPS]
OP = {n: i for i, n in enumerate(NAMES)}
SIZE = [1 + (struct.calcsize("<" + f) if f else 0) for f in FMT]
for _n, _i in OP.items():
    globals()[_n] = _i

BINOPS = {"+": "ADD", "-": "SUB", "*": "MUL", "/": "DIV", "%": "MOD", "^": "POW",
          "and": "LAND", "or": "LOR", "&": "BAND", "|": "BOR", "<<": "LSHIFT", ">>": "RSHIFT",
          "==": "EQ", "!=": "NEQ", ">": "GT", ">=": "GTE", "<": "LT", "<=": "LTE"}


@dataclass
class Instr:
    op: int
    arg: int | float | None
    file: int
    line: int
    col: int


@dataclass
class Function:
    """One compiled function (index 0 is the top level)."""

    name: str
    ncap: int
    nparams: int
    code: list[Instr] = field(default_factory=list)
    addr: int = 0


@dataclass
class Program:
    strings: list[str]
    files: list[str]
    functions: list[Function]
    # the first ``nscript`` strings are the script's own, in the reference compiler's order;
    # any after them only name files and functions for debug information
    nscript: int = -1
    # the most ifs, and loops, nested in one function (counting an ``else if`` as nested):
    # from the compiler, not kept in files (0 when unknown)
    nesting: tuple = (0, 0)

    def __post_init__(self) -> None:
        if self.nscript < 0:
            self.nscript = len(self.strings)

    def code_size(self) -> int:
        return sum(SIZE[i.op] for f in self.functions for i in f.code)

    def string_table_size(self) -> int:
        return sum(byte_len(s) + 1 for s in self.strings)


def sid_of(strings: list[str], index: dict[str, int], s: str) -> int:
    i = index.get(s)
    if i is None:
        i = index[s] = len(strings)
        strings.append(s)
    return i


def _uvarint(out: bytearray, v: int) -> None:
    while v >= 0x80:
        out.append(v & 0x7F | 0x80)
        v >>= 7
    out.append(v)


def _read_uvarint(data: bytes, pos: int) -> tuple[int, int]:
    v = shift = 0
    while True:
        b = data[pos]
        pos += 1
        v |= (b & 0x7F) << shift
        if not b & 0x80:
            return v, pos
        shift += 7


def _formats(wide: bool) -> list[str]:
    """Per opcode, the struct format of its operand ("" for none; "H" is "I" when wide)."""
    return ["<" + ("I" if wide and f == "H" else f) if f else "" for f in FMT]


def encode(prog: Program) -> bytes:
    """Serialise a program to bytes (see the module docstring for the layout)."""
    strings = list(prog.strings)
    index = {s: i for i, s in enumerate(strings)}
    file_sids = [sid_of(strings, index, f) for f in prog.files]
    fun_sids = [sid_of(strings, index, f.name) for f in prog.functions]
    wide = len(strings) > 0xFFFF or any(
        f.ncap > 0xFFFF or f.nparams > 0xFFFF or any(
            FMT[i.op] == "H" and not 0 <= i.arg <= 0xFFFF for i in f.code)
        for f in prog.functions)
    fmts = _formats(wide)
    out = bytearray(MAGIC + struct.pack("<HHI", VERSION, FLAG_WIDE if wide else 0, len(strings)))
    for s in strings:
        b = str_bytes(s)
        out += struct.pack("<I", len(b)) + b
    out += struct.pack("<II", prog.nscript, len(file_sids))
    out += b"".join(struct.pack("<I" if wide else "<H", s) for s in file_sids)
    out += struct.pack("<I", len(prog.functions))
    for f, nsid in zip(prog.functions, fun_sids):
        code = bytearray()
        dbg = bytearray()
        prev_line = 0
        for ins in f.code:
            d = ins.line - prev_line
            for v in (ins.file, (d << 1) ^ (d >> 63), ins.col):
                _uvarint(dbg, v)
            prev_line = ins.line
            code.append(ins.op)
            if fmts[ins.op]:
                code += struct.pack(fmts[ins.op], ins.arg)
        out += struct.pack("<IIIII" if wide else "<HHHII", nsid, f.ncap, f.nparams, f.addr, len(code))
        out += code + struct.pack("<I", len(dbg)) + dbg
    return bytes(out)


def decode(data: bytes) -> Program:
    """Inverse of :func:`encode`; raises ``ValueError`` on a malformed file."""
    try:
        return _decode(data)
    except (IndexError, KeyError, struct.error, UnicodeDecodeError, OverflowError) as e:
        raise ValueError(f"malformed Buzz bytecode: {e}") from None


def _decode(data: bytes) -> Program:
    if data[:4] != MAGIC:
        raise ValueError("not a Buzz bytecode file (bad magic)")
    version, flags = struct.unpack_from("<HH", data, 4)
    if version != VERSION:
        raise ValueError(f"unsupported bytecode version {version}")
    wide = bool(flags & FLAG_WIDE)
    fmts = _formats(wide)
    sizes = [1 + (struct.calcsize(f) if f else 0) for f in fmts]
    pos = 8

    def read(fmt: str = "<I"):
        nonlocal pos
        values = struct.unpack_from(fmt, data, pos)
        pos += struct.calcsize(fmt)
        return values if len(values) > 1 else values[0]

    strings = []
    for _ in range(read()):
        ln = read()
        if pos + ln > len(data):
            raise IndexError("string table past the end of the file")
        strings.append(bytes_str(data[pos:pos + ln]))
        pos += ln
    nscript = read()
    files = [strings[read("<I" if wide else "<H")] for _ in range(read())]
    funcs = []
    for _ in range(read()):
        nsid, ncap, nparams, addr, clen = read("<IIIII" if wide else "<HHHII")
        code = data[pos:pos + clen]
        pos += clen
        nd = read()
        dpos, dend = pos, pos + nd
        pos = dend
        instrs = []
        off = 0
        line = 0
        while off < clen:
            fi, dpos = _read_uvarint(data, dpos)
            z, dpos = _read_uvarint(data, dpos)
            line += (z >> 1) ^ -(z & 1)
            col, dpos = _read_uvarint(data, dpos)
            op = code[off]
            if op >= len(fmts):
                raise ValueError(f"unknown opcode {op}")
            fmt = fmts[op]
            arg = struct.unpack_from(fmt, code, off + 1)[0] if fmt else None
            instrs.append(Instr(op, arg, fi, line, col))
            off += sizes[op]
        if dpos != dend:
            raise ValueError("debug information does not match the code")
        funcs.append(Function(strings[nsid], ncap, nparams, instrs, addr))
    return Program(strings, files, funcs, nscript)
