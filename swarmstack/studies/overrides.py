"""Overrides by key path: ``--param robots.0.count=10,20,50`` and the ``[sweep]`` table.

A key path names a place in the experiment file with dots; a number indexes an array
(``robots.0`` is the first robot group). Its values are

* a range ``start:stop:count`` — ``count`` evenly spaced values from ``start`` to ``stop``
  inclusive (integers when both ends are integers and the step is whole);
* a list ``a,b,c`` (each item read as a TOML value: ``10``, ``0.5``, ``true``, ``"x"``,
  ``[1, 2]``; anything else is a plain string);
* one value.

Every problem is a :class:`~swarmstack.experiments.config.ConfigError` line naming the key path,
found before anything runs.
"""

from __future__ import annotations

import copy
import datetime
import math
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from swarmstack.experiments.config import ConfigError
from swarmstack.experiments.quantities import _short

MAX_VALUES = 100_000        # values of one key path
MAX_POINTS = 1_000_000      # runs of a study (points × seeds)
MAX_PATH_PARTS = 32
_PATH_TEXT = re.compile(r"[A-Za-z0-9_.-]{1,200}")
_SEGMENT = re.compile(r"[A-Za-z0-9_-]+")
_NUMBER = r"[-+]?(?:[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|\.[0-9]+(?:[eE][-+]?[0-9]+)?)"
_RANGE = re.compile(rf"\s*({_NUMBER})\s*:\s*({_NUMBER})\s*:\s*([^:]*?)\s*")


@dataclass(frozen=True)
class Override:
    """One swept key path and its values, in order."""

    path: str
    values: tuple

    @property
    def parts(self) -> tuple[str, ...]:
        return tuple(self.path.split("."))


def check_path(path: Any, where: str) -> str:
    if not isinstance(path, str) or not path:
        raise ConfigError([f"{where}: expected a key path such as robots.0.count, found "
                           f"{_short(path)}"])
    parts = path.split(".")
    if len(parts) > MAX_PATH_PARTS:
        raise ConfigError([f"{where}: {_short(path)}: at most {MAX_PATH_PARTS} parts"])
    for p in parts:
        if not _SEGMENT.fullmatch(p):
            raise ConfigError([f"{where}: {_short(path)}: expected keys and indices separated "
                               f"by dots (letters, digits, _ and -), found part {_short(p)}"])
    return path


def _finite(value, path: str, where: str):
    """Numbers in values must be finite, and no value a TOML date or time, which no key of an
    experiment takes (lists and tables are checked through)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float) and not math.isfinite(v):
            raise ConfigError([f"{where}: expected finite numbers, found {v!r}"])
        if isinstance(v, (datetime.date, datetime.time)):
            raise ConfigError([f"{where}: {v.isoformat()} is a TOML date or time, which no "
                               "key of an experiment takes (a string is written in quotes: "
                               f"\"{v.isoformat()}\")"])
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return value


def _number(text: str):
    return int(text) if re.fullmatch(r"[-+]?[0-9]+", text) else float(text)


def range_values(start, stop, count, path: str, where: str) -> tuple:
    """``count`` values from ``start`` to ``stop`` inclusive."""
    if isinstance(count, bool) or not isinstance(count, int):
        raise ConfigError([f"{where}: a range is start:stop:count with a whole count, "
                           f"found count {_short(count)}"])
    if count < 1:
        raise ConfigError([f"{where}: empty range (count {count}); at least 1 value"])
    if count > MAX_VALUES:
        raise ConfigError([f"{where}: {count} values; at most {MAX_VALUES}"])
    for v in (start, stop):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
            raise ConfigError([f"{where}: range ends must be finite numbers, found "
                               f"{_short(v)}"])
    if count == 1:
        return (start,)
    span = stop - start
    if isinstance(start, int) and isinstance(stop, int) and span % (count - 1) == 0:
        step = span // (count - 1)
        return tuple(start + k * step for k in range(count))
    # 12 significant digits: 0.01:0.11:11 gives 0.03, not 0.030000000000000002
    return tuple(float(f"{start + k * span / (count - 1):.12g}") for k in range(count))


def _split_items(text: str) -> list[str]:
    """Split on commas outside brackets, braces and quotes."""
    items, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            cur.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            items.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    items.append("".join(cur))
    return items


def _item(text: str):
    """A TOML value (``10``, ``0.5``, ``true``, ``"x"``, ``[1, 2]``), else the plain string."""
    text = text.strip()
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except (tomllib.TOMLDecodeError, RecursionError, ValueError, KeyError):
        return text


def parse_values(path: str, text: str, where: str) -> tuple:
    m = _RANGE.fullmatch(text)
    if m:
        count_text = m.group(3)
        try:
            count = int(count_text)
        except ValueError:
            raise ConfigError([f"{where}: a range is start:stop:count with a whole "
                               f"count, found count {_short(count_text)}"]) from None
        return range_values(_number(m.group(1)), _number(m.group(2)), count, path, where)
    if not text.strip():
        raise ConfigError([f"{where}: no values (give a value, a list a,b,c or a "
                           "range start:stop:count)"])
    items = _split_items(text)
    if len(items) > MAX_VALUES:
        raise ConfigError([f"{where}: {len(items)} values; at most {MAX_VALUES}"])
    if any(not i.strip() for i in items):
        raise ConfigError([f"{where}: an empty item in the list {_short(text)}"])
    return tuple(_finite(_item(i), path, where) for i in items)


def parse_param(text: Any) -> Override:
    """``--param PATH=VALUES`` as an :class:`Override`; raises ConfigError."""
    if not isinstance(text, str) or "=" not in text:
        raise ConfigError([f"--param {_short(text)}: expected KEY.PATH=VALUES, e.g. "
                           "robots.0.count=10,20,50 or robots.0.controller.params.speed="
                           "0.01:0.11:11"])
    path, _, values = text.partition("=")
    path = path.strip()
    where = f"--param {path if _PATH_TEXT.fullmatch(path) else _short(path)}"
    check_path(path, where)
    return Override(path, parse_values(path, values, where))


def sweep_override(path: Any, value: Any, source: str) -> Override:
    """One entry of the file's ``[sweep.params]``: a range string, an array or one value."""
    check_path(path, f"{source}: sweep.params")
    where = f"{source}: sweep.params.{_short(path)}"
    if isinstance(value, str) and _RANGE.fullmatch(value):
        return Override(path, parse_values(path, value, where))
    if isinstance(value, list):
        if not value:
            raise ConfigError([f"{where}: empty array; at least 1 value"])
        if len(value) > MAX_VALUES:
            raise ConfigError([f"{where}: {len(value)} values; at most {MAX_VALUES}"])
        return Override(path, tuple(_finite(v, path, where) for v in value))
    if isinstance(value, dict):
        raise ConfigError([f"{where}: expected a range \"start:stop:count\", an array "
                           "of values or one value, found a table"])
    return Override(path, (_finite(value, path, where),))


def check_compatible(overrides: list[Override]) -> None:
    """No key path given twice, and none inside another (``robots.0`` with ``robots.0.count``)."""
    problems = []
    for i, a in enumerate(overrides):
        for b in overrides[i + 1:]:
            if a.path == b.path:
                problems.append(f"{a.path}: given twice")
            elif b.parts[:len(a.parts)] == a.parts or a.parts[:len(b.parts)] == b.parts:
                problems.append(f"{a.path} and {b.path}: one is inside the other; sweep one "
                                "of them")
    if problems:
        raise ConfigError(problems)


def set_path(data: dict, path: str, value, source: str = "--param") -> None:
    """Set ``value`` at ``path`` in ``data`` (tables are made as needed; array indices must
    exist)."""
    parts = path.split(".")
    node: Any = data
    walked = []
    for k, part in enumerate(parts):
        last = k == len(parts) - 1
        here = ".".join(walked) or "(top level)"
        if isinstance(node, list):
            if not part.isdigit():
                raise ConfigError([f"{source} {path}: {here} is an array; expected an index "
                                   f"0…{len(node) - 1}, found {_short(part)}"])
            idx = int(part)
            if idx >= len(node):
                raise ConfigError([f"{source} {path}: {here} has {len(node)} item(s); no index "
                                   f"{idx}"])
            if last:
                node[idx] = copy.deepcopy(value)
                return
            node = node[idx]
        elif isinstance(node, dict):
            if last:
                node[part] = copy.deepcopy(value)
                return
            if part not in node:
                node[part] = {}
            node = node[part]
        else:
            raise ConfigError([f"{source} {path}: {here} is a value ({_short(node)}), not a "
                               "table or an array"])
        walked.append(part)


def is_run_param(path: str) -> bool:
    """A controller parameter (``robots.N.controller.params.…``): it varies per run inside one
    batched simulation; every other key path makes a separate simulation."""
    p = path.split(".")
    return len(p) >= 5 and p[0] == "robots" and p[1].isdigit() and p[2] == "controller" \
        and p[3] == "params"

