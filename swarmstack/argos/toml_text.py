"""Writing the imported experiment as TOML text: the sections in order, each array item with
the ARGoS element it came from as a comment, and the list of what was not translated on top."""

from __future__ import annotations

import math
import re

_BARE = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPED = re.compile(r'["\\\x00-\x1f\x7f]')   # quotes, backslashes and control characters


def string(text: str) -> str:
    return '"' + _ESCAPED.sub(lambda m: "\\" + m.group() if m.group() in '"\\'
                              else f"\\u{ord(m.group()):04x}", text) + '"'


def key(name: str) -> str:
    return name if _BARE.fullmatch(name) else string(name)


def value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"not a finite number: {v!r}")
        return repr(v)
    if isinstance(v, str):
        return string(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{key(k)} = {value(x)}" for k, x in v.items()) + " }" \
            if v else "{}"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def comment(text: str) -> str:
    """``text`` as comment lines (one per line of text; control characters, which TOML
    refuses in comments, shown as ``\\xNN``)."""
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\r", " "))
    return "\n".join("# " + line.rstrip() if line.strip() else "#"
                     for line in text.split("\n"))


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def table(header: str, items: dict, note: str = "") -> str:
    """``header`` and its keys; a table value too long for one line becomes a sub-table
    (``[robots.placement]``, which TOML attaches to the last ``[[robots]]``), where long
    arrays take one item per line."""
    lines = [comment(note)] if note else []
    lines.append(header)
    name = header.strip("[]")
    subs = []
    for k, v in items.items():
        text = f"{key(k)} = {value(v)}"
        if isinstance(v, dict) and len(text) > WIDTH:
            subs.append((k, v))
        else:
            lines.append(text)
    for k, v in subs:
        lines.append(f"[{name}.{key(k)}]")
        for kk, vv in v.items():
            text = f"{key(kk)} = {value(vv)}"
            if isinstance(vv, list) and len(text) > WIDTH:
                text = f"{key(kk)} = [\n" + "".join(f"  {value(x)},\n" for x in vv) + "]"
            lines.append(text)
    return "\n".join(lines)


WIDTH = 100
