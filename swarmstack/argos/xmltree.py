"""Reading an ``.argos`` file: a small element tree that knows, for every element, its line and
its XML path, and which of its attributes the translation has read; and its attribute values
(numbers, vectors "x,y,z", orientations "yaw,pitch,roll" in degrees, booleans and colours),
each parsed strictly with an error naming file, line and XML path (:class:`Reader`).

The tree is built with expat directly (not ``xml.etree``) because expat reports the line of each
start tag, which every error message and every "not translated" line needs. Document type
declarations are refused: ARGoS files have none, and entity declarations are how a hostile file
makes a small file expand into gigabytes.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional
from xml.parsers import expat

from swarmstack.experiments.checks import one_line
from swarmstack.world.colors import NAMED

MAX_ARGOS_BYTES = 16 << 20   # as for an experiment file
MAX_ELEMENTS = 200_000       # far beyond any hand-written file; bounds memory and time
MAX_XML_DEPTH = 64


class ArgosError(Exception):
    """A problem in an ``.argos`` file: ``problems`` are one-line messages
    ``FILE:LINE: XML-PATH: what was expected``."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass(eq=False)
class Node:
    """An XML element. ``used`` marks it translated (or deliberately covered by a note);
    ``read`` holds the attributes the translation looked at."""

    tag: str
    attrs: dict[str, str]
    line: int
    parent: Optional["Node"] = None
    children: list["Node"] = field(default_factory=list)
    used: bool = False
    read: set[str] = field(default_factory=set)

    @property
    def path(self) -> str:
        """``/argos-configuration/arena/box[@id='w']``: an id names an element, else its
        position among siblings of the same tag when there are several."""
        if self.parent is None:
            return f"/{self.tag}"
        if "id" in self.attrs:
            step = f"{self.tag}[@id={_quoted(self.attrs['id'])}]"
        else:
            same = [c for c in self.parent.children if c.tag == self.tag]
            step = self.tag if len(same) == 1 else f"{self.tag}[{same.index(self) + 1}]"
        return f"{self.parent.path}/{step}"

    def attr_path(self, name: str) -> str:
        return f"{self.path}@{name}"

    def child(self, tag: str) -> Optional["Node"]:
        """The first child element named ``tag`` (ARGoS reads the first too)."""
        return next((c for c in self.children if c.tag == tag), None)

    def get(self, name: str) -> Optional[str]:
        """The attribute's text, or None; marks it read."""
        self.read.add(name)
        return self.attrs.get(name)

    def mark(self, *names: str) -> "Node":
        """Marks this element translated and ``names`` read (attributes that change nothing
        here, such as ``implementation`` or ``show_rays``)."""
        self.used = True
        self.read.update(names)
        return self

    def mark_all(self) -> None:
        """This element and everything inside it are accounted for (translated or noted)."""
        stack = [self]
        while stack:
            n = stack.pop()
            n.used = True
            n.read.update(n.attrs)
            stack.extend(n.children)


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "&apos;") + "'" if "'" in text else f"'{text}'"


def parse_argos(source: str, data: bytes) -> Node:
    """The element tree of ``data`` (the bytes of the file named ``source``); raises
    :class:`ArgosError` naming the line for malformed XML."""
    parser = expat.ParserCreate()
    root: list[Node] = []
    stack: list[Node] = []
    count = [0]

    def fail(message: str):
        raise ArgosError([f"{source}:{parser.CurrentLineNumber}: {one_line(message)}"])

    def start(tag, attrs):
        count[0] += 1
        if count[0] > MAX_ELEMENTS:
            fail(f"more than {MAX_ELEMENTS} XML elements")
        if len(stack) >= MAX_XML_DEPTH:
            fail(f"XML elements nested more than {MAX_XML_DEPTH} deep")
        node = Node(tag, dict(attrs), parser.CurrentLineNumber, stack[-1] if stack else None)
        if stack:
            stack[-1].children.append(node)
        else:
            root.append(node)
        stack.append(node)

    def end(tag):
        stack.pop()

    def doctype(*_):
        fail("a document type declaration (<!DOCTYPE …>) is not accepted in an .argos file")

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.StartDoctypeDeclHandler = doctype
    parser.EntityDeclHandler = doctype
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise ArgosError([f"{source}:{exc.lineno}: not well-formed XML: "
                          f"{one_line(expat.ErrorString(exc.code))} (column {exc.offset + 1})"]) \
            from None
    if not root:
        raise ArgosError([f"{source}:1: no XML element"])
    top = root[0]
    if top.tag != "argos-configuration":
        raise ArgosError([f"{source}:{top.line}: /{top.tag}: expected the root element "
                          "<argos-configuration>"])
    return top


def read_argos(path: Path) -> Node:
    """Read and parse an ``.argos`` file; raises :class:`ArgosError` for any problem."""
    from swarmstack.experiments.files import read_limited

    try:
        data = read_limited(Path(path), MAX_ARGOS_BYTES, "the .argos file")
    except FileNotFoundError:
        raise ArgosError([f"{path}: file not found"]) from None
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise ArgosError([f"{path}: cannot read file ({one_line(reason)})"]) from None
    return parse_argos(str(path), data)


# ------------------------------------------------------------------------ attribute values
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"\+?\d+")
MAX_MAGNITUDE = 1e9   # well past the experiment schema's own bounds, which report the rest


class Reader:
    """Reads attributes of one file's elements; ``source`` names the file in messages."""

    def __init__(self, source: str):
        self.source = source

    def error(self, node: Node, message: str, attr: Optional[str] = None) -> ArgosError:
        where = node.attr_path(attr) if attr else node.path
        return ArgosError([f"{self.source}:{node.line}: {where}: {one_line(message)}"])

    def _text(self, node: Node, attr: str, required: bool) -> Optional[str]:
        text = node.get(attr)
        if text is None and required:
            raise self.error(node, f"required attribute {attr!r} is missing")
        return text

    def _number(self, node: Node, attr: str, part: str) -> float:
        part = part.strip()
        if not _NUMBER.fullmatch(part):
            raise self.error(node, f"expected a number, found {_short(part)}", attr)
        value = float(part)
        if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
            raise self.error(node, f"number out of range: {_short(part)}", attr)
        return value

    def number(self, node: Node, attr: str, default: Optional[float] = None) -> Optional[float]:
        text = self._text(node, attr, default is None)
        return default if text is None else self._number(node, attr, text)

    def integer(self, node: Node, attr: str, default: Optional[int] = None,
                maximum: int = 10 ** 12) -> Optional[int]:
        text = self._text(node, attr, default is None)
        if text is None:
            return default
        if not _INTEGER.fullmatch(text.strip()) or int(text) > maximum:
            raise self.error(node, f"expected a whole number 0 … {maximum}, found "
                             f"{_short(text)}", attr)
        return int(text)

    def vector(self, node: Node, attr: str, size: int = 3,
               default: Optional[tuple] = None) -> Optional[tuple]:
        """``"x,y,z"`` (ARGoS writes vectors comma-separated)."""
        text = self._text(node, attr, default is None)
        if text is None:
            return default
        parts = text.split(",")
        if len(parts) != size:
            names = ",".join("xyz"[:size]) if size <= 3 else f"{size} numbers"
            raise self.error(node, f"expected {size} numbers \"{names}\", found "
                             f"{_short(text)}", attr)
        return tuple(self._number(node, attr, p) for p in parts)

    def orientation(self, node: Node, attr: str = "orientation") -> tuple[float, float, float]:
        """``"yaw,pitch,roll"`` in degrees (ARGoS's Z,Y,X order) → radians."""
        yaw, pitch, roll = self.vector(node, attr, 3, (0.0, 0.0, 0.0))
        return math.radians(yaw), math.radians(pitch), math.radians(roll)

    def boolean(self, node: Node, attr: str, default: Optional[bool] = None) -> Optional[bool]:
        text = self._text(node, attr, default is None)
        if text is None:
            return default
        value = text.strip().lower()
        if value in ("true", "false"):
            return value == "true"
        raise self.error(node, f"expected true or false, found {_short(text)}", attr)

    def color(self, node: Node, attr: str, default: Optional[str] = None):
        """A colour name or ``"r,g,b"`` / ``"r,g,b,a"`` (0–255) → a name or [r, g, b]."""
        text = self._text(node, attr, default is None)
        if text is None:
            return default
        value = text.strip().lower()
        if value in NAMED:
            return value
        parts = value.split(",")
        if len(parts) in (3, 4) and all(_INTEGER.fullmatch(p.strip()) and int(p) <= 255
                                        for p in parts):
            return [int(p) for p in parts[:3]]
        raise self.error(node, f"expected a colour name ({', '.join(sorted(NAMED)[:8])}, …) or "
                         f"\"r,g,b\" with 0–255 integers, found {_short(text)}", attr)

    def choice(self, node: Node, attr: str, options: tuple[str, ...],
               default: Optional[str] = None) -> Optional[str]:
        text = self._text(node, attr, default is None)
        if text is None:
            return default
        if text not in options:
            raise self.error(node, f"expected one of {', '.join(options)}, found "
                             f"{_short(text)}", attr)
        return text

    def text(self, node: Node, attr: str, default: Optional[str] = None) -> Optional[str]:
        value = self._text(node, attr, default is None)
        if value is not None and ("\0" in value or len(value) > 4096):
            raise self.error(node, "expected a file path (no NUL character, at most 4096 "
                             "characters)", attr)
        return value


def _short(text: str, limit: int = 40) -> str:
    text = one_line(text)
    return repr(text if len(text) <= limit else text[:limit] + "…")
