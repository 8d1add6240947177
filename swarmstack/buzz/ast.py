"""Buzz abstract syntax tree. Every node carries the 1-based ``line``/``col`` and ``file`` of
the token that starts it, so the compiler can attach precise debug info to each instruction."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Node:
    line: int
    col: int
    file: str


# ---------------------------------------------------------------- expressions
@dataclass
class Nil(Node):
    pass


@dataclass
class Int(Node):
    value: int


@dataclass
class Float(Node):
    value: float


@dataclass
class Str(Node):
    value: str


@dataclass
class Name(Node):
    name: str


@dataclass
class Field(Node):
    """``obj.name``"""
    obj: Node
    name: str


@dataclass
class Index(Node):
    """``obj[key]``"""
    obj: Node
    key: Node


@dataclass
class Call(Node):
    callee: Node
    args: list[Node]


@dataclass
class Unary(Node):
    op: str  # "-", "not", "!"
    operand: Node


@dataclass
class Binary(Node):
    op: str  # + - * / % ^ << >> & | == != < <= > >= and or
    left: Node
    right: Node


@dataclass
class Lambda(Node):
    params: list[str]
    body: list[Node]


@dataclass
class TableLit(Node):
    """``{ .key = value, ... }``; keys are Str, Int or Float nodes."""
    entries: list[tuple[Node, Node]]


# ----------------------------------------------------------------- statements
@dataclass
class VarDecl(Node):
    name: str
    value: Node | None


@dataclass
class FunDef(Node):
    name: str
    params: list[str]
    body: list[Node]


@dataclass
class Block(Node):
    """A braced block: opens a scope (its ``var`` locals are removed at the end)."""
    body: list[Node] = field(default_factory=list)


@dataclass
class If(Node):
    cond: Node
    then: Node          # Block or a single statement
    orelse: Node | None


@dataclass
class While(Node):
    cond: Node
    body: Node


@dataclass
class For(Node):
    init: Node
    cond: Node
    update: Node
    body: Node


@dataclass
class Return(Node):
    value: Node | None


@dataclass
class Assign(Node):
    target: Node  # Name, Field or Index
    value: Node


@dataclass
class ExprStat(Node):
    """A call used as a statement (its result is discarded)."""
    call: Node


@dataclass
class Script:
    """A parsed script: top-level statements (includes already spliced in) and the files read."""
    body: list[Node]
    files: list[str]
    sources: dict[str, str]
