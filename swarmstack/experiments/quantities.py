"""Numbers with units in experiment files: ``0.3`` (SI) or ``"30 cm"``, ``"90 deg"``, ``"2 h"``.

A value of the wrong dimension (``"5 s"`` where a length is expected) is rejected with a message
naming the accepted units.
"""

from __future__ import annotations

import math
import re
from typing import Annotated

from pydantic import BeforeValidator

_FACTORS = {
    "length": {"m": 1.0, "cm": 0.01, "mm": 0.001, "km": 1000.0},
    "angle": {"rad": 1.0, "deg": math.pi / 180.0, "°": math.pi / 180.0},
    "time": {"s": 1.0, "ms": 0.001, "min": 60.0, "h": 3600.0},
    "speed": {"m/s": 1.0, "cm/s": 0.01, "mm/s": 0.001},
}
# ASCII digits only: float() would also read "٥" (Arabic-Indic five) as 5
_PATTERN = re.compile(r"^\s*([-+]?[0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?|[-+]?\.[0-9]+)\s*"
                      r"([^0-9\s].*?)?\s*$")
# Largest magnitude of any quantity, in SI units: far beyond any experiment (1000 km, 31 years,
# a million radians), small enough that grid indices and tick counts derived from it fit int64.
LIMITS = {"length": 1e6, "angle": 1e6, "time": 1e9, "speed": 1e6}
_UNIT_NAMES = {"length": "m", "angle": "rad", "time": "s", "speed": "m/s"}


def _short(value, width: int = 60) -> str:
    """``repr(value)``, cut to about ``width`` characters for a one-line message."""
    text = repr(value)
    return text if len(text) <= width else text[:width - 5] + "…" + text[-4:]


def finite(number, what: str, limit: float, unit: str = "", found=None) -> float:
    """``number`` as a float, refused when not finite or larger in magnitude than ``limit``
    (an int too large for a float included); ``found`` is what the file said, if not that."""
    shown = _short(number if found is None else found)
    try:
        value = float(number)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise ValueError(f"expected a finite {what}, found {shown}")
    if abs(value) > limit:
        raise ValueError(f"expected {'an' if what[0] in 'aeiou' else 'a'} {what} of at most "
                         f"{limit:g}{' ' + unit if unit else ''} "
                         f"in magnitude, found {shown}")
    return value


def _parser(dimension: str):
    units = _FACTORS[dimension]

    a = "an" if dimension[0] in "aeiou" else "a"

    def parse(value):
        if isinstance(value, bool):
            raise ValueError(f"expected {a} {dimension}, found a boolean")
        if isinstance(value, (int, float)):
            number = value
        elif isinstance(value, str):
            m = _PATTERN.match(value)
            unit = (m.group(2) or "").strip() if m else None
            if unit != "" and unit not in units:
                raise ValueError(
                    f"expected {a} {dimension} as a number in SI units or a string with one of "
                    f"the units {', '.join(units)}; found {_short(value)}")
            number = float(m.group(1)) * units[unit] if unit else float(m.group(1))
        else:
            raise ValueError(f"expected {a} {dimension}, found {type(value).__name__}")
        return finite(number, dimension, LIMITS[dimension], _UNIT_NAMES[dimension], value)

    return parse


Length = Annotated[float, BeforeValidator(_parser("length"))]
Angle = Annotated[float, BeforeValidator(_parser("angle"))]
Duration = Annotated[float, BeforeValidator(_parser("time"))]
Speed = Annotated[float, BeforeValidator(_parser("speed"))]


def quantity(text: str):
    """``(value in SI units, dimension)`` of a string such as ``"10 cm/s"`` or ``"90 deg"``;
    None when ``text`` is not a number followed by a known unit (it is then just a string).
    Raises ValueError for a quantity out of bounds."""
    m = _PATTERN.match(text)
    unit = (m.group(2) or "").strip() if m else ""
    if not unit:
        return None
    for dimension, units in _FACTORS.items():
        if unit in units:
            value = finite(float(m.group(1)) * units[unit], dimension, LIMITS[dimension],
                           _UNIT_NAMES[dimension], text)
            return value, dimension
    return None


def with_units_resolved(value, metres_per_unit: float = 1.0):
    """``value`` (controller parameters: numbers, strings, lists, tables) with every string
    that is a quantity replaced by its number: SI units, except that lengths and speeds are
    divided by ``metres_per_unit`` (a Buzz script counting distances in cm takes 0.01)."""
    if isinstance(value, str):
        q = quantity(value)
        if q is None:
            return value
        number, dimension = q
        return number / metres_per_unit if dimension in ("length", "speed") else number
    if isinstance(value, dict):
        return {k: with_units_resolved(v, metres_per_unit) for k, v in value.items()}
    return [with_units_resolved(v, metres_per_unit) for v in value] \
        if isinstance(value, list) else value
