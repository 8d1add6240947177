"""Coefficient tables of the battery discharge models, read from user-replaceable CSV files.

The coefficients are measurements (fits to real robots by the plug-in authors), so they live in
data files rather than in code: a user with better data swaps the file, not the source. Every file
has ``#`` comment lines (the source), one header row naming the columns with their units, then one
row per speed (or per speed and segment). The loader checks everything the kernels rely on — a
contiguous speed grid, the right number of segments, negative slopes, a cubic that decreases on
``[0, tmax]`` — and says which file, which line and what it expected when something is off, because a
silently wrong battery table only shows up hours into a run as an odd autonomy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parent / "data"

SIMPLE_COLUMNS = ("condition", "slope_per_s")
LINEAR_COLUMNS = ("speed_cm_s", "slope_per_s")
CUBIC_COLUMNS = ("speed_cm_s", "p0", "p1_per_s", "p2_per_s2", "p3_per_s3", "tmax_s", "charge_at_tmax")
SEGMENT_COLUMNS = ("speed_cm_s", "segment", "intercept", "slope_per_s", "t_from_s", "t_to_s",
                   "charge_from", "charge_to")

N_SEGMENTS = 4
MAX_FILE_BYTES = 1 << 20  # the shipped tables are a few kB
# Published values are rounded to 4 decimals (charge) or 4 digits (times); consistency checks
# between redundant columns allow this much slack.
_CONSISTENCY_TOL = 2e-3


class BatteryTableError(ValueError):
    """A battery data file that cannot be used; the message names the file, the line and why."""


@dataclass(frozen=True, eq=False)
class SimpleTable:
    """Alg. 1: one slope for a robot that did not move, one for a robot that did (1/s)."""

    slope_static_per_s: float
    slope_moving_per_s: float
    source: str


@dataclass(frozen=True, eq=False)
class LinearTable:
    """Alg. 2: ``slope_per_s[s]`` for integer speed ``s`` cm/s, ``s = 0..n-1``."""

    slope_per_s: np.ndarray  # (n,)
    source: str

    @property
    def n_speeds(self) -> int:
        return int(self.slope_per_s.shape[0])


@dataclass(frozen=True, eq=False)
class CubicTable:
    """Alg. 3 / Crazyflie Alg. 1: ``P_s(t) = p0 + p1 t + p2 t² + p3 t³`` valid on ``[0, tmax_s[s]]``."""

    coeffs: np.ndarray  # (n, 4): p0, p1, p2, p3 (ascending powers of t in seconds)
    tmax_s: np.ndarray  # (n,)
    source: str

    @property
    def n_speeds(self) -> int:
        return int(self.coeffs.shape[0])


@dataclass(frozen=True, eq=False)
class SegmentTable:
    """Alg. 4: four straight segments per speed, each valid for a charge interval."""

    intercept: np.ndarray  # (n, 4)
    slope_per_s: np.ndarray  # (n, 4)
    t_from_s: np.ndarray  # (n, 4)
    t_to_s: np.ndarray  # (n, 4)
    charge_from: np.ndarray  # (n, 4) upper charge bound of the segment
    charge_to: np.ndarray  # (n, 4) lower charge bound of the segment
    source: str

    @property
    def n_speeds(self) -> int:
        return int(self.slope_per_s.shape[0])


def data_path(filename: str) -> Path:
    """Path of a data file shipped with swarmstack (``swarmstack/power/data/<filename>``)."""
    return DATA_DIR / filename


# --------------------------------------------------------------------------------------------
# CSV reading


def _read_rows(path: Path, columns: tuple[str, ...]) -> list[tuple[int, list[str]]]:
    """Return ``(line number, cells)`` for each data row, after checking the header."""
    path = Path(path)
    try:
        # only a regular file: a device (/dev/zero) or a pipe would be read forever
        regular = path.is_file() or not path.exists()  # a missing file: open() says so
        if regular:
            with open(path, "rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise BatteryTableError(f"{path}: cannot read battery data file "
                                f"({exc.strerror or exc})") from exc
    except ValueError as exc:  # a NUL in the name
        raise BatteryTableError(f"{str(path)!r}: cannot read battery data file ({exc})") from None
    if not regular:
        raise BatteryTableError(f"{path}: cannot read battery data file (not a regular file)")
    if len(data) > MAX_FILE_BYTES:
        raise BatteryTableError(f"{path}: battery data file larger than {MAX_FILE_BYTES >> 20} "
                                "MiB; expected a small CSV table")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise BatteryTableError(f"{path}:{line}: battery data file is not UTF-8 text (byte "
                                f"0x{data[exc.start]:02x})") from None
    header_seen = False
    rows: list[tuple[int, list[str]]] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cells = [c.strip() for c in line.split(",")]
        if not header_seen:
            if tuple(cells) != columns:
                raise BatteryTableError(
                    f"{path}:{lineno}: header is {','.join(cells)!r}; "
                    f"expected the columns {','.join(columns)!r}")
            header_seen = True
            continue
        if len(cells) != len(columns):
            raise BatteryTableError(
                f"{path}:{lineno}: {len(cells)} values; expected {len(columns)} "
                f"({','.join(columns)})")
        rows.append((lineno, cells))
    if not header_seen:
        raise BatteryTableError(f"{path}: no header row; expected {','.join(columns)!r}")
    if not rows:
        raise BatteryTableError(f"{path}: no data rows after the header")
    return rows


def _number(path: Path, lineno: int, column: str, cell: str) -> float:
    try:
        value = float(cell)
    except ValueError:
        raise BatteryTableError(
            f"{path}:{lineno}: column {column!r} is {cell!r}; expected a number") from None
    if not math.isfinite(value):
        raise BatteryTableError(f"{path}:{lineno}: column {column!r} is {cell!r}; expected a finite number")
    return value


def _integer(path: Path, lineno: int, column: str, cell: str) -> int:
    value = _number(path, lineno, column, cell)
    if value != int(value):
        raise BatteryTableError(f"{path}:{lineno}: column {column!r} is {cell!r}; expected an integer")
    return int(value)


def _check_speed_grid(path: Path, lineno: int, speed: int, expected: int) -> None:
    if speed != expected:
        raise BatteryTableError(
            f"{path}:{lineno}: speed_cm_s is {speed}; expected {expected} "
            "(rows must list the integer speeds 0, 1, 2, ... cm/s in order, no gaps)")


def _negative(path: Path, lineno: int, column: str, value: float) -> None:
    if not value < 0.0:
        raise BatteryTableError(
            f"{path}:{lineno}: {column} is {value!r}; expected a negative slope "
            "(charge must go down with time)")


# --------------------------------------------------------------------------------------------
# loaders


def load_simple(path: Path | str) -> SimpleTable:
    path = Path(path)
    slopes: dict[str, float] = {}
    for lineno, cells in _read_rows(path, SIMPLE_COLUMNS):
        cond = cells[0]
        if cond not in ("static", "moving"):
            raise BatteryTableError(
                f"{path}:{lineno}: condition is {cond!r}; expected 'static' or 'moving'")
        if cond in slopes:
            raise BatteryTableError(f"{path}:{lineno}: condition {cond!r} given twice")
        slopes[cond] = _number(path, lineno, "slope_per_s", cells[1])
        _negative(path, lineno, "slope_per_s", slopes[cond])
    for cond in ("static", "moving"):
        if cond not in slopes:
            raise BatteryTableError(f"{path}: no row for condition {cond!r}; expected 'static' and 'moving'")
    return SimpleTable(slopes["static"], slopes["moving"], str(path))


def load_linear(path: Path | str) -> LinearTable:
    path = Path(path)
    slopes = []
    for i, (lineno, cells) in enumerate(_read_rows(path, LINEAR_COLUMNS)):
        _check_speed_grid(path, lineno, _integer(path, lineno, "speed_cm_s", cells[0]), i)
        slope = _number(path, lineno, "slope_per_s", cells[1])
        _negative(path, lineno, "slope_per_s", slope)
        slopes.append(slope)
    return LinearTable(np.array(slopes, dtype=np.float64), str(path))


def _max_derivative(coeffs: np.ndarray, tmax: float) -> float:
    """Largest value of ``P'(t)`` on ``[0, tmax]`` (P' is a quadratic: check ends and vertex)."""
    _, p1, p2, p3 = coeffs
    candidates = [0.0, tmax]
    if p3 != 0.0:
        vertex = -p2 / (3.0 * p3)
        if 0.0 < vertex < tmax:
            candidates.append(vertex)
    return max(p1 + 2.0 * p2 * t + 3.0 * p3 * t * t for t in candidates)


def load_cubic(path: Path | str) -> CubicTable:
    path = Path(path)
    coeffs, tmax = [], []
    for i, (lineno, cells) in enumerate(_read_rows(path, CUBIC_COLUMNS)):
        _check_speed_grid(path, lineno, _integer(path, lineno, "speed_cm_s", cells[0]), i)
        c = np.array([_number(path, lineno, col, cells[k])
                      for k, col in enumerate(CUBIC_COLUMNS[1:5], start=1)])
        t_end = _number(path, lineno, "tmax_s", cells[5])
        at_end = _number(path, lineno, "charge_at_tmax", cells[6])
        if not t_end > 0.0:
            raise BatteryTableError(f"{path}:{lineno}: tmax_s is {t_end!r}; expected a positive time")
        if not c[0] > 0.0:
            raise BatteryTableError(f"{path}:{lineno}: p0 is {c[0]!r}; expected a positive charge at t = 0")
        slope = _max_derivative(c, t_end)
        if not slope < 0.0:
            raise BatteryTableError(
                f"{path}:{lineno}: the cubic is not decreasing on [0, tmax_s] (its slope reaches "
                f"{slope:.3g} /s); expected P'(t) < 0 there so that every charge maps to one time")
        p_end = float(c[0] + t_end * (c[1] + t_end * (c[2] + t_end * c[3])))
        if abs(p_end - at_end) > _CONSISTENCY_TOL:
            raise BatteryTableError(
                f"{path}:{lineno}: charge_at_tmax is {at_end!r} but the cubic gives "
                f"P(tmax_s) = {p_end:.6f}; expected them to agree within {_CONSISTENCY_TOL}")
        coeffs.append(c)
        tmax.append(t_end)
    return CubicTable(np.array(coeffs, dtype=np.float64), np.array(tmax, dtype=np.float64), str(path))


def load_segments(path: Path | str) -> SegmentTable:
    path = Path(path)
    rows = _read_rows(path, SEGMENT_COLUMNS)
    if len(rows) % N_SEGMENTS:
        raise BatteryTableError(
            f"{path}: {len(rows)} data rows; expected {N_SEGMENTS} segments for every speed")
    n = len(rows) // N_SEGMENTS
    arrays = {name: np.empty((n, N_SEGMENTS)) for name in SEGMENT_COLUMNS[2:]}
    for idx, (lineno, cells) in enumerate(rows):
        s, k = divmod(idx, N_SEGMENTS)
        _check_speed_grid(path, lineno, _integer(path, lineno, "speed_cm_s", cells[0]), s)
        seg = _integer(path, lineno, "segment", cells[1])
        if seg != k + 1:
            raise BatteryTableError(
                f"{path}:{lineno}: segment is {seg}; expected {k + 1} (segments 1..{N_SEGMENTS} in order)")
        for j, name in enumerate(SEGMENT_COLUMNS[2:], start=2):
            arrays[name][s, k] = _number(path, lineno, name, cells[j])
        slope = arrays["slope_per_s"][s, k]
        _negative(path, lineno, "slope_per_s", slope)
        hi, lo = arrays["charge_from"][s, k], arrays["charge_to"][s, k]
        if not hi > lo >= 0.0:
            raise BatteryTableError(
                f"{path}:{lineno}: charge_from {hi!r}, charge_to {lo!r}; expected charge_from > charge_to >= 0")
        h = arrays["intercept"][s, k]
        for tcol, q in (("t_from_s", hi), ("t_to_s", lo)):
            t = arrays[tcol][s, k]
            if abs(h + slope * t - q) > _CONSISTENCY_TOL:
                raise BatteryTableError(
                    f"{path}:{lineno}: intercept + slope_per_s * {tcol} = {h + slope * t:.6f}; "
                    f"expected the segment's charge {q!r} there (within {_CONSISTENCY_TOL})")
        if k == 0 and hi < 1.0:
            raise BatteryTableError(
                f"{path}:{lineno}: segment 1 starts at charge {hi!r}; expected >= 1.0 (a charge above "
                "every segment falls to the end-of-life segment 4)")
        if k > 0:
            prev = arrays["charge_to"][s, k - 1]
            if abs(prev - hi) > 1e-9 * max(1.0, abs(hi)):
                raise BatteryTableError(
                    f"{path}:{lineno}: charge_from {hi!r}; expected it to equal the previous segment's "
                    f"charge_to {prev!r} (segments must be contiguous)")
        if k == N_SEGMENTS - 1 and lo != 0.0:
            raise BatteryTableError(
                f"{path}:{lineno}: the last segment ends at charge {lo!r}; expected 0")
    return SegmentTable(arrays["intercept"], arrays["slope_per_s"], arrays["t_from_s"],
                        arrays["t_to_s"], arrays["charge_from"], arrays["charge_to"], str(path))
