"""What a valid experiment file may still get wrong, and where a problem sits in the file.

``warnings_for`` lists things that run but are probably not what the author meant (an object
outside the arena, a logged sensor that no group carries); ``suggest`` offers the nearest known
key for a misspelt one; ``key_line`` finds the TOML line of a key path, so messages can point
an editor at it. ``excerpt``, ``report`` and ``bounded_error`` bound what a message or a
summary quotes of a file, a value or an error (a file of any size, a script's error of
megabytes).
"""

from __future__ import annotations

import difflib
import re
import typing
from typing import Optional

from pydantic import BaseModel


MAX_EXCERPT = 200     # characters of a file's or a value's text quoted in a one-line message
MAX_REPORT = 4000     # characters of a multi-line report (a traceback) kept in a summary
REPORT_KEYS = ("traceback", "report")   # the multi-line fields of an error in a summary


def excerpt(text, limit: int = MAX_EXCERPT) -> str:
    """``text`` as a one-line message may quote it: runs of white space folded to one space,
    other control characters escaped (``\\x1b``), at most ``limit`` characters (a longer text:
    its start, then how long it is)."""
    raw = str(text)
    head = " ".join(raw[:4 * limit + 16].split())
    head = "".join(c if c.isprintable() else repr(c)[1:-1] for c in head)
    return head if len(head) <= limit and len(raw) <= 4 * limit + 16 else \
        f"{head[:limit].rstrip()}… ({len(raw)} characters)"


def one_line(text) -> str:
    """``text`` (or an exception) with line breaks and runs of spaces folded: one problem,
    one line."""
    return " ".join(str(text).split())


def report(text, limit: int = MAX_REPORT) -> str:
    """A multi-line ``text`` (a traceback, a script's error report) kept whole up to ``limit``
    characters; a longer one keeps its start and its end (where the error is said) and how
    much was left out between them."""
    raw = str(text)
    if len(raw) <= limit:
        return raw
    half = limit // 2
    return (f"{raw[:half]}\n… ({len(raw) - 2 * half} characters left out) …\n"
            f"{raw[len(raw) - half:]}")


def bounded_error(error):
    """An error entry of a summary (a dict of strings and numbers) with every string bounded:
    the multi-line fields (:data:`REPORT_KEYS`) by :func:`report`, the others by
    :func:`excerpt` at :data:`MAX_REPORT` characters. Anything else is returned as it is."""
    if not isinstance(error, dict):
        return error
    out = {}
    for key, value in error.items():
        if isinstance(value, str):
            value = report(value) if key in REPORT_KEYS else \
                (value if len(value) <= MAX_REPORT and "\n" not in value
                 else excerpt(value, MAX_REPORT))
        out[key] = value
    return out


def suggest(word: str, choices) -> Optional[str]:
    """The closest of ``choices`` to ``word`` (a typo, a singular for a plural), or None."""
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1, cutoff=0.6)
    return close[0] if close else None


def _models_in(annotation) -> list[type[BaseModel]]:
    """The pydantic models an annotation may hold (through Optional, Union, list, tuple,
    Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models_in(arg)]


def keys_at(root: type[BaseModel], loc: tuple) -> list[str]:
    """The keys a table at key path ``loc`` (a pydantic error location) accepts."""
    models = [root]
    for part in loc:
        if isinstance(part, int):
            continue
        nxt = [sub for m in models if part in m.model_fields
               for sub in _models_in(m.model_fields[part].annotation)]
        if not nxt:
            break   # an internal part of the location (union tags …): stay where we are
        models = nxt
    return list(dict.fromkeys(f.alias or n for m in models for n, f in m.model_fields.items()))


# ---------------------------------------------------------------------------------------------
_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r"^\s*([A-Za-z0-9_\-\"'. ]+?)\s*=")


def _dotted(text: str) -> tuple[str, ...]:
    return tuple(p.strip().strip("\"'") for p in text.split("."))


def key_line(text: str, path: tuple) -> Optional[int]:
    """The 1-based line of ``text`` (a TOML document) where key path ``path`` (strings and
    array indices, as in an error location) is written, or where its nearest written parent
    is; None when no part of it is found. A heuristic over headers and ``key =`` lines: it does
    not parse values, which is enough to point at the key of a problem."""
    counters: dict[tuple, int] = {}
    table: tuple = ()
    best, best_len = None, 0
    for n, line in enumerate(text.splitlines(), start=1):
        h = _HEADER.match(line)
        if h:
            names = _dotted(h.group(2))
            if h.group(1) == "[[":
                counters[names] = counters.get(names, -1) + 1
                table = names + (counters[names],)
            else:
                table = names
            here = table
        else:
            k = _KEY.match(line)
            if not k:
                continue
            here = table + _dotted(k.group(1))
        # the longest written prefix of the path wins (a table's header, then its key)
        common = 0
        for a, b in zip(here, path):
            if a != b:
                break
            common += 1
        if common == len(here) and common > best_len:
            best, best_len = n, common
    return best


# ---------------------------------------------------------------------------------------------
def warnings_for(cfg, source: str) -> list[str]:
    """``SOURCE: key.path: warning`` lines for a validated experiment."""
    from swarmstack.robots import base as robot_types

    out = []
    x0, y0, x1, y1 = cfg.arena.bounds

    def outside(x, y, r=0.0):
        return x + r < x0 or x - r > x1 or y + r < y0 or y - r > y1

    for kind, items in (("boxes", cfg.boxes), ("cylinders", cfg.cylinders)):
        for i, item in enumerate(items):
            cx, cy = item.center
            r = getattr(item, "radius", None) or 0.5 * min(item.size[0], item.size[1])
            if outside(cx, cy, r):
                out.append(f"{source}: {kind}[{i}].center: ({cx:g}, {cy:g}) m is outside the "
                           f"arena (x {x0:g}…{x1:g} m, y {y0:g}…{y1:g} m): no robot can reach it")
    for i, light in enumerate(cfg.lights):
        lx, ly, _ = light.position
        if outside(lx, ly):
            out.append(f"{source}: lights[{i}].position: ({lx:g}, {ly:g}) m is outside the arena "
                       f"(x {x0:g}…{x1:g} m, y {y0:g}…{y1:g} m); walls may hide it")
    for k, name in enumerate(cfg.output.sensors):
        on = [g.name for g in cfg.robots if name in g.sensors]
        lacking = [g.name for g in cfg.robots if g.type in robot_types.ROBOT_TYPES
                   and name not in robot_types.ROBOT_TYPES[g.type].devices]
        if not on:
            out.append(f"{source}: output.sensors[{k}]: no group has {name!r} on, so nothing "
                       "of it is logged (turn it on under the sensors of a group)")
        elif lacking:
            out.append(f"{source}: output.sensors[{k}]: {name!r} is logged for "
                       f"{', '.join(repr(g) for g in on)} only: "
                       f"{', '.join(repr(g) for g in lacking)} "
                       f"{'has' if len(lacking) == 1 else 'have'} no such sensor")
    return out


__all__ = ["suggest", "keys_at", "key_line", "warnings_for", "excerpt", "report",
           "bounded_error", "one_line"]
