"""Buzz tokens: kinds, descriptions (used verbatim in syntax errors) and the Token record.

The kinds mirror the reference lexer's token classes so that our syntax errors read the
same ("expected ), found identifier").
"""

from __future__ import annotations

from dataclasses import dataclass

ID = "ID"
CONST = "CONST"
STRING = "STRING"
VAR = "VAR"
NIL = "NIL"
IF = "IF"
ELSE = "ELSE"
FUN = "FUN"
RETURN = "RETURN"
FOR = "FOR"
WHILE = "WHILE"
LANDOR = "LANDOR"
LNOT = "LNOT"
ADDSUB = "ADDSUB"
MULDIV = "MULDIV"
MOD = "MOD"
POW = "POW"
LRSHIFT = "LRSHIFT"
BANDOR = "BANDOR"
BNOT = "BNOT"
BLOCKOPEN = "BLOCKOPEN"
BLOCKCLOSE = "BLOCKCLOSE"
PAROPEN = "PAROPEN"
PARCLOSE = "PARCLOSE"
IDXOPEN = "IDXOPEN"
IDXCLOSE = "IDXCLOSE"
LISTSEP = "LISTSEP"
ASSIGN = "ASSIGN"
DOT = "DOT"
CMP = "CMP"
INCLUDE = "INCLUDE"
EOF = "EOF"

DESC = {
    ID: "identifier", CONST: "numeric constant", STRING: "string", VAR: "variable",
    NIL: "nil", IF: "if", ELSE: "else", FUN: "function", RETURN: "return", FOR: "for",
    WHILE: "while", LANDOR: "logic and/or", LNOT: "logic not", ADDSUB: "+ or -",
    MULDIV: "* or /", MOD: "%", POW: "^", LRSHIFT: "bit shift", BANDOR: "bitwise and/or",
    BNOT: "bitwise not", BLOCKOPEN: "{", BLOCKCLOSE: "}", PAROPEN: "(", PARCLOSE: ")",
    IDXOPEN: "[", IDXCLOSE: "]", LISTSEP: ",", ASSIGN: "=",
    DOT: ".", CMP: "== != < <= > >=", INCLUDE: "include", EOF: "end-of-file",
}

KEYWORDS = {
    "var": VAR, "if": IF, "else": ELSE, "function": FUN, "return": RETURN, "for": FOR,
    "while": WHILE, "and": LANDOR, "or": LANDOR, "not": LNOT, "nil": NIL,
}


@dataclass(slots=True)
class Token:
    """One token. ``line`` and ``col`` are 1-based; ``value`` is the lexeme (decoded for strings).
    Treat as immutable (not frozen: a frozen dataclass is four times slower to make, and a big
    script has millions of tokens)."""

    kind: str
    value: str
    line: int
    col: int
    file: str
