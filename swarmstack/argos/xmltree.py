"""Reading an ``.argos`` file: a small element tree that knows, for every element, its line and
its XML path, and which of its attributes the translation has read.

The tree is built with expat directly (not ``xml.etree``) because expat reports the line of each
start tag, which every error message and every "not translated" line needs. Document type
declarations are refused: ARGoS files have none, and entity declarations are how a hostile file
makes a small file expand into gigabytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional
from xml.parsers import expat

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
        for c in self.children:
            if c.tag == tag:
                return c
        return None

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


def one_line(text) -> str:
    return " ".join(str(text).split())


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
