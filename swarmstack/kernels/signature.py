"""The argument types of a kernel call, told without Numba.

Machine code built ahead of time takes exactly the types it was built for (Numba's wrapper does
not check them). A call may run it only when its arguments have those types as Numba would
type them: :func:`of_values` works that out from the values, :func:`of_numba_types` from the
signature of a compiled overload, and the two agree on every type either can name. Anything
else (objects, strings, records, None, integers beyond 64 bits) has no key: such a call goes
to Numba.

An array's key is its dtype (``'<f8'``), dimensions, layout (``'C'``, ``'F'``, ``'A'`` as Numba
decides it: C first), writability and alignment; a scalar's is the dtype Numba gives it
(Python ``float``: ``'<f8'``, ``int``: ``'<i8'``, ``bool``: ``'|b1'``); a tuple's is
``('tuple', keys of its items)``.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

_ndarray = np.ndarray
_generic = np.generic
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
# numpy's flag bits
_C, _F, _ALIGNED, _WRITEABLE = 0x1, 0x2, 0x100, 0x400
_FLOAT, _INT, _BOOL = np.dtype(np.float64).str, np.dtype(np.int64).str, np.dtype(np.bool_).str


_dtype_names: dict = {}  # dtype -> its key ('<f8'), or None for records and objects
_FLAG_MASK = _C | _F | _ALIGNED | _WRITEABLE
# what an array's layout, writability and alignment bits give (Numba's layout: C first)
_FLAG_KEYS = {c | f | w | a: ("C" if c else "F" if f else "A", bool(w), bool(a))
              for c in (0, _C) for f in (0, _F) for w in (0, _WRITEABLE) for a in (0, _ALIGNED)}


def _dtype_name(dtype) -> Optional[str]:
    try:
        return _dtype_names[dtype]
    except KeyError:
        pass
    name = None if dtype.fields is not None or dtype.hasobject else dtype.str
    _dtype_names[dtype] = name
    return name


def of_values(args) -> Optional[tuple]:
    """The key of the types Numba gives ``args`` (a sequence of call arguments), or None."""
    out = []
    append = out.append
    for a in args:
        t = type(a)
        if t is _ndarray:
            name = _dtype_name(a.dtype)
            if name is None:
                return None
            append((name, a.ndim) + _FLAG_KEYS[a.flags.num & _FLAG_MASK])
        elif t is float:
            append(_FLOAT)
        elif t is int:
            if not _INT64_MIN <= a <= _INT64_MAX:
                return None
            append(_INT)
        elif t is bool:
            append(_BOOL)
        elif t is tuple:
            inner = of_values(a)
            if inner is None:
                return None
            append(("tuple", inner))
        elif isinstance(a, _generic) and a.dtype.kind in "biufc":
            append(a.dtype.str)
        else:
            return None
    return tuple(out)


def of_numba_types(types_) -> Optional[tuple]:
    """The key of a compiled overload's argument types (Numba types), or None when one of them
    has no key."""
    from numba.core import types
    from numba.np.numpy_support import as_dtype

    out = []
    for ty in types_:
        if isinstance(ty, types.Array):
            try:
                dtype = as_dtype(ty.dtype)
            except NotImplementedError:
                return None
            if dtype.fields is not None or dtype.hasobject:
                return None
            out.append((dtype.str, ty.ndim, ty.layout, bool(ty.mutable), bool(ty.aligned)))
        elif isinstance(ty, (types.Integer, types.Float, types.Boolean, types.Complex)) \
                and not isinstance(ty, types.Literal):
            out.append(as_dtype(ty).str)
        elif isinstance(ty, types.BaseTuple) and not isinstance(ty, types.NamedTuple):
            inner = of_numba_types(ty.types)
            if inner is None:
                return None
            out.append(("tuple", inner))
        else:
            return None
    return tuple(out)


def from_json(value):
    """A key read back from JSON (lists where it had tuples)."""
    if isinstance(value, list):
        return tuple(from_json(v) for v in value)
    return value
