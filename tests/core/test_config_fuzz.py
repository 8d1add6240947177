"""Mutated experiment files never crash `validate` or `run`: they are valid, or every line of
the output is ``FILE: key.path: what was expected`` (``FILE: …`` for the file as a whole).

Each example is read, mutated at random (keys dropped, values replaced by values of other types,
NaN and infinities, huge and negative numbers, odd strings, deep nesting, unknown keys), written
back as TOML next to links to the examples' controllers and scripts, and checked in-process.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from swarmstack.argos import toml_text
from swarmstack.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BASES = {p.name: tomllib.loads(p.read_text(encoding="utf-8"))
         for p in sorted(EXAMPLES.glob("*.toml"))}
# one more with the keys the examples leave out
BASES["everything.toml"] = {
    "simulation": {"ticks_per_second": 10, "ticks": 20, "seed": 5},
    "arena": {"size": ["2 m", 2.0], "center": [0.1, 0.0],
              "walls": {"thickness": "2 cm", "height": 0.1}},
    "boxes": [{"center": [0.5, 0.5], "size": [0.1, 0.2, 0.1], "yaw": "30 deg"}],
    "cylinders": [{"center": [-0.5, 0.5], "radius": 0.05, "height": 0.1}],
    "lights": [{"position": [0.0, 0.0, 0.1], "intensity": 2.0, "color": [255, 128, 0]}],
    "floor": {"background": "gray50", "resolution": "5 mm",
              "regions": [{"color": "black", "rect": [-0.2, -0.2, 0.2, 0.2]},
                          {"color": 0.3, "circle": [0.5, -0.5, 0.1]},
                          {"color": "red", "ring": [0, 0, 0.3, "35 cm"]}]},
    "radio": {"occlusion": True, "robots_occlude": True},
    "robots": [
        {"name": "a", "count": 4,
         "placement": {"kind": "gaussian", "mean": [0, 0], "std": 0.3, "yaw": "45 deg",
                       "yaw_std": 0.1, "clearance": "1 cm"},
         "controller": {"python": "controllers/diffusion.py:Diffusion",
                        "params": {"speed": 0.1, "threshold": 200}},
         "sensors": {"proximity": {"noise": "gaussian", "level": 0.05}, "light": True,
                     "ground": True, "tof": True, "encoders": True,
                     "camera": {"max_blobs": 8}, "positioning": {"position_noise": 0.01},
                     "battery": {"model": "cubic", "start_charge": 0.9}},
         "wheels": {"noise": "uniform", "level": 0.05},
         "radio": {"range": "50 cm", "payload_bytes": 8, "drop": 0.1, "range_noise": 0.01,
                   "bearing_noise": "1 deg", "capacity": 3}},
        {"name": "b", "type": "epuck2",
         "placement": {"kind": "explicit", "poses": [[-0.7, -0.7, 0], [0.7, -0.7, "90 deg"]]},
         "controller": {"buzz": "buzz/robots/beacon.bzz", "distance_unit": "cm",
                        "profile": "buzz"},
         "radio": True},
    ],
    "output": {"trajectories": True, "velocities": True, "sensors": ["proximity", "light"],
               "every": 2, "chunk_ticks": 10},
}


# ---------------------------------------------------------------------------------------------
# A small TOML writer: every value inline, every key quoted.

_string = toml_text.string   # every string quoted and escaped


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        text = repr(v)
        return text if any(c in text for c in ".en") else text + ".0"
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, (dt.datetime, dt.date, dt.time)):
        return v.isoformat()
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_string(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def to_toml(doc: dict) -> str:
    return "".join(f"{_string(k)} = {_value(v)}\n" for k, v in doc.items())


def test_the_writer_round_trips_every_base():
    for name, doc in BASES.items():
        assert tomllib.loads(to_toml(doc)) == doc, name


# ---------------------------------------------------------------------------------------------
# Mutations

def _deep(depth: int, leaf):
    for k in range(depth):
        leaf = [leaf] if k % 2 else {"k": leaf}
    return leaf


numbers = st.one_of(
    st.sampled_from([0, 1, -1, 2, 3, 10, 1000, 200_001, 2 ** 31, 2 ** 63, -(2 ** 63), 10 ** 30,
                     0.0, -0.0, 0.5, -0.5, 1e-300, 5e-324, 1e20, -1e20, 1e300,
                     math.nan, math.inf, -math.inf]),
    st.integers(-1000, 1000),
    st.floats(allow_nan=True, allow_infinity=True),
)
quantity_strings = st.sampled_from([
    "inf m", "nan m", "1e400 m", "-1e400 cm", "٥ cm", "१ m", "30 cm", "90 deg", "2 h", "5 s",
    "1e9 km", "0 m", "-1 m", "1e-300 mm", "5 kg", " 3 ", "", "uniform", "gaussian", "explicit",
    "black", "red", "gray50", "tests.core.controllers:Spin", "controllers/diffusion.py:Diffusion",
    ":Diffusion", ".:X", "x.py:", "os:path", "a\0b.py:X", "a" * 300 + ".py:X", "/dev/zero",
    "buzz/flocking.bzz", "no.bzz", "proximity", "battery", "\n", "a\nb", "\u2028", "é" * 50,
])
scalars = st.one_of(
    numbers, st.booleans(), quantity_strings,
    st.text(max_size=20),
    st.datetimes(), st.dates(), st.times(),
)
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=4),
    st.dictionaries(st.text(max_size=8), scalars, max_size=3),
    st.builds(_deep, st.sampled_from([5, 33, 70, 300]), scalars),
)


def _paths(doc, prefix=()):
    """Every (container path, key) below ``doc``."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc)
    for k, v in items:
        yield prefix, k
        if isinstance(v, (dict, list)):
            yield from _paths(v, prefix + (k,))


def _at(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def _copy(v):
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


@st.composite
def mutated(draw, keep_params: bool = False):
    name = draw(st.sampled_from(sorted(BASES)))
    doc = _copy(BASES[name])
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(doc) if not (keep_params and "params" in p[0] + (p[1],))]
        if not paths:
            break
        parent_path, k = draw(st.sampled_from(paths))
        parent = _at(doc, parent_path)
        action = draw(st.sampled_from(["drop", "replace", "replace", "unknown", "number",
                                       "scale", "scale"]))
        if action == "scale":  # a number of the right type, off by a factor: often still valid
            v = parent[k]
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                factor = draw(st.sampled_from([0, -1, 0.5, 2, 10, 1000, 1e6]))
                parent[k] = type(v)(v * factor)
            else:
                parent[k] = draw(numbers)
        elif action == "drop":
            del parent[k]
        elif action == "replace":
            parent[k] = draw(values)
        elif action == "number":
            parent[k] = draw(numbers)
        elif isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(values)
        else:
            parent.append(draw(values))
    return name, doc


# ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    d = tmp_path_factory.mktemp("fuzz")
    for sub in ("controllers", "buzz"):
        (d / sub).symlink_to(EXAMPLES / sub, target_is_directory=True)
    return d


runner = CliRunner()
_counter = iter(range(10 ** 9))


def _write(folder: Path, doc: dict) -> Path:
    path = folder / f"m{next(_counter)}.toml"
    path.write_text(to_toml(doc), encoding="utf-8")
    return path


def _check_problems(path: Path, result) -> None:
    prefix = re.compile(re.escape(str(path)) + r": \S")
    lines = [l for l in result.output.splitlines() if l.strip()]
    assert lines, "exit 1 without a word"
    # warnings (an object outside the arena …) may come with the problems, in the same form
    bad = [l for l in lines if not prefix.match(l.removeprefix("warning: "))]
    assert not bad, f"lines not of the form FILE: key.path: …\n{result.output}"


def _controller_failed(output: str) -> bool:
    """A controller raised during the run: reported with its traceback, not a file problem."""
    return re.search(r"^error: .*controller of ", output, re.M) is not None


def _no_crash(result) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{type(result.exception).__name__}: {result.exception}\n{result.output}"


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(case=mutated())
def test_validate_never_crashes(folder, case):
    name, doc = case
    path = _write(folder, doc)
    result = runner.invoke(app, ["validate", str(path)])
    _no_crash(result)
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 0:
        lines = [l for l in result.output.splitlines() if l.strip()]
        assert [l for l in lines if not l.startswith("warning: ")] == [f"{path}: valid"], \
            result.output
        assert all(l.startswith(f"warning: {path}: ") for l in lines if l != f"{path}: valid"), \
            result.output
    else:
        _check_problems(path, result)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.data_too_large])
@given(case=mutated(keep_params=True))
def test_run_never_crashes(folder, case):
    name, doc = case
    path = _write(folder, doc)
    out = path.with_suffix("")
    result = runner.invoke(app, ["run", str(path), "--ticks", "3", "--quiet", "--out", str(out)])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        f"{type(result.exception).__name__}: {result.exception}\n{result.output}"
    assert result.exit_code in (0, 1), result.output
    if result.exit_code == 1 and not _controller_failed(result.output):
        # not a controller that raised (reported with its own traceback): a file problem
        _check_problems(path, result)
        assert "Traceback" not in result.output, result.output
