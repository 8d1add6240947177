"""Named colours (the ARGoS palette) and conversion of user colour values to RGB bytes."""

from __future__ import annotations

NAMED = {
    "black": (0, 0, 0), "white": (255, 255, 255), "red": (255, 0, 0), "green": (0, 255, 0),
    "blue": (0, 0, 255), "magenta": (255, 0, 255), "cyan": (0, 255, 255),
    "yellow": (255, 255, 0), "orange": (255, 140, 0), "brown": (165, 42, 42),
    "purple": (160, 32, 240), "off": (0, 0, 0),
}
NAMED.update({f"gray{k}": (round(2.55 * k),) * 3 for k in range(10, 100, 10)})
NAMED.update({f"grey{k}": NAMED[f"gray{k}"] for k in range(10, 100, 10)})


def to_rgb(value) -> tuple[int, int, int]:
    """A colour name, ``[r, g, b]`` bytes, or a grey level in [0, 1] → an (r, g, b) tuple."""
    if isinstance(value, str):
        key = value.strip().lower()
        if key in NAMED:
            return NAMED[key]
        raise ValueError(f"expected a colour name ({', '.join(sorted(NAMED)[:12])}, …) or "
                         f"[r, g, b]; found {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        v = round(255 * float(value))
        return (v, v, v)
    if isinstance(value, (list, tuple)) and len(value) == 3 and all(
            isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= 255 for c in value):
        return tuple(int(c) for c in value)
    raise ValueError(f"expected a colour name, [r, g, b] with 0–255 integers or a grey level "
                     f"0–1; found {value!r}")
