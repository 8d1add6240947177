"""Where each number of a device's reading lands in a script's tables, found from the robot type.

A device's :class:`~swarmstack.robots.base.ScriptGlobal` turns one robot's reading into plain
values (``{0: {"value": 812, "angle": -0.26}, …}``). Calling it for every robot every tick and
handing the result to Lua would cost microseconds per robot; instead the function is called a
few times on marker readings, once, to learn its *shape*: which leaves copy which element of
the reading, which are constants (the angles), and whether the structure depends on the data
(a camera's blob list does). Readings with a fixed shape then travel as raw bytes, one string
per device per tick for the whole group, and generated Lua code unpacks them straight into
each robot's tables. The rest go the slow way (converted per robot per tick).

Integer keys move from 0-based (Buzz's convention) to 1-based, as ARGoS's Lua tables are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

# struct codes of string.unpack for the dtypes readings use (little-endian, as NumPy's here)
_CODES = {"i1": "b", "u1": "B", "i2": "h", "u2": "H", "i4": "i4", "u4": "I4", "i8": "i8",
          "u8": "I8", "f4": "f", "f8": "d"}
_MAX_ELEMENTS = 4096   # readings larger than this are not worth a generated unpacker


@dataclass(frozen=True)
class Shape:
    """A reading's fixed shape: ``template`` is the converted value with every copied leaf
    set to 0 (keys already 1-based), ``leaves`` the (key path, element index) pairs, ``code``
    the unpack code of one element and ``size`` the elements of one robot's reading."""

    template: Any
    leaves: tuple[tuple[tuple, int], ...]
    code: str
    size: int


def shift_keys(value):
    """Plain values with every int key of a dict (and every list index) made 1-based."""
    if isinstance(value, dict):
        return {(k + 1 if isinstance(k, int) and not isinstance(k, bool) else k): shift_keys(v)
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return {i + 1: shift_keys(v) for i, v in enumerate(value)}
    return value


def _number(v) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def probe(convert: Callable[[np.ndarray], Any], row_shape: tuple, dtype) -> Optional[Shape]:
    """The fixed shape of ``convert`` over readings of ``row_shape`` and ``dtype``, or None
    when it cannot be learnt (its structure or numbers depend on the data in ways a copy
    cannot express)."""
    dtype = np.dtype(dtype)
    size = int(np.prod(row_shape, dtype=np.int64))
    key = dtype.str[1:]
    if dtype.fields is not None or key not in _CODES or not 0 < size <= _MAX_ELEMENTS:
        return None
    idx = np.arange(size, dtype=np.int64)
    markers = [idx + 1, 2 * idx + 3, np.zeros(size, dtype=np.int64)]
    if dtype.kind in "if":
        markers.append(-(idx + 1))
    limit = np.iinfo(dtype).max if dtype.kind in "iu" else 2 ** 52
    if markers[1][-1] > limit:
        return None
    try:
        outs = [shift_keys(convert(m.astype(dtype).reshape(row_shape))) for m in markers]
    except Exception:  # a converter that needs real data (e.g. it indexes by a value)
        return None
    leaves: list[tuple[tuple, int]] = []

    def walk(values: list, path: tuple):
        first = values[0]
        if isinstance(first, dict):
            if not all(isinstance(v, dict) and v.keys() == first.keys() for v in values):
                raise _Unlearnable
            return {k: walk([v[k] for v in values], path + (k,)) for k in first}
        if _number(first):
            if not all(_number(v) for v in values):
                raise _Unlearnable
            hits = [j for j in _candidates(values[0], size)
                    if all(v == m[j] for v, m in zip(values, markers))]
            if hits:
                leaves.append((path, hits[0]))
                return 0
            if all(v == first for v in values):
                return first
            raise _Unlearnable
        if isinstance(first, (str, bool)) or first is None:
            if not all(v == first for v in values):
                raise _Unlearnable
            return first
        raise _Unlearnable

    try:
        template = walk(outs, ())
    except _Unlearnable:
        return None
    return Shape(template, tuple(leaves), _CODES[key], size)


def _candidates(v, size: int) -> list[int]:
    # marker 0 holds element j as j + 1
    j = int(v) - 1 if float(v).is_integer() else -1
    return [j] if 0 <= j < size else []


class _Unlearnable(Exception):
    pass
