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
_PATTERN = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|[-+]?\.\d+)\s*([^\d\s].*?)?\s*$")


def _parser(dimension: str):
    units = _FACTORS[dimension]

    def parse(value):
        if isinstance(value, bool):
            raise ValueError(f"expected a {dimension}, found a boolean")
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            m = _PATTERN.match(value)
            if m:
                number, unit = float(m.group(1)), (m.group(2) or "").strip()
                if unit == "":
                    return number
                if unit in units:
                    return number * units[unit]
            raise ValueError(
                f"expected a {dimension} as a number in SI units or a string with one of the "
                f"units {', '.join(units)}; found {value!r}")
        raise ValueError(f"expected a {dimension}, found {type(value).__name__}")

    return parse


Length = Annotated[float, BeforeValidator(_parser("length"))]
Angle = Annotated[float, BeforeValidator(_parser("angle"))]
Duration = Annotated[float, BeforeValidator(_parser("time"))]
Speed = Annotated[float, BeforeValidator(_parser("speed"))]
