"""ARGoS attribute values: numbers, vectors "x,y,z", orientations "yaw,pitch,roll" in degrees,
booleans and colours, each parsed strictly with an error naming file, line and XML path."""

from __future__ import annotations

import math
import re
from typing import Optional

from swarmstack.argos.xmltree import ArgosError, Node, one_line
from swarmstack.world.colors import NAMED

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
