"""Mutated .argos files never crash the importer: each either translates into TOML that reads
back as the same experiment, or is refused with one-line problems naming the file and line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swarmstack.argos import ArgosError, import_argos
from swarmstack.experiments.config import load_experiment
from swarmstack.experiments.config import ConfigError
from tests.argos.test_translate import _plain

ROOT = Path(__file__).resolve().parents[2]
BASES = [p.read_text(encoding="utf-8") for p in
         sorted((ROOT / "examples" / "argos").glob("*.argos"))
         + sorted((Path(__file__).parent / "anchors").glob("*.argos"))]
ATTRIBUTE = re.compile(r'="[^"]*"')
NASTY = ["", " ", "nan", "inf", "-inf", "1e400", "-1", "0", "1,2", "a,b,c", "1,2,3,4", "1,,2",
         "99999999999999999999", "0.5,-0.5,0", "-0.5,0.5,0", "3,3,0", "360,0,0", "1e-300",
         "true", "maybe", "grid", "gaussian", "constant", "uniform", "image", "0,0,0",
         "../../nowhere.lua", "x.bo", "+5", "1_000", "٣", "𝟙,2,3", "&amp;", "&lt;tag&gt;",
         "lua", "bench", "255,0,0,9", "red", "1" * 400]
TEXT = st.text(alphabet=st.sampled_from(list("<>/=\"' ,.-+e0123456789abcxyz_&;\n\t\x7fé")),
               max_size=12)


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["value", "value", "delete", "insert"]))
        spots = list(ATTRIBUTE.finditer(text))
        if kind == "value" and spots:
            m = spots[draw(st.integers(0, len(spots) - 1))]
            value = draw(st.one_of(st.sampled_from(NASTY), TEXT.filter(
                lambda s: '"' not in s and "<" not in s and "&" not in s)))
            text = text[:m.start()] + f'="{value}"' + text[m.end():]
        elif kind == "delete" and text:
            a = draw(st.integers(0, len(text) - 1))
            text = text[:a] + text[a + draw(st.integers(1, 80)):]
        else:
            a = draw(st.integers(0, len(text)))
            text = text[:a] + draw(TEXT) + text[a:]
    return text


def _tmp_tree(tmp: Path) -> Path:
    """A folder laid out like examples/: the files the examples name resolve."""
    (tmp / "argos").mkdir(exist_ok=True)
    for name in ("buzz", "rvr_floor.png"):
        if not (tmp / name).exists():
            (tmp / name).symlink_to(ROOT / "examples" / name)
    lua = tmp / "argos" / "diffusion.lua"
    if not lua.exists():
        lua.write_text((ROOT / "examples" / "argos" / "diffusion.lua").read_text())
    return tmp / "argos" / "fuzzed.argos"


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(text=mutated())
def test_mutated_files_translate_or_are_refused_in_one_line(tmp_path, text):
    path = _tmp_tree(tmp_path)
    path.write_text(text, encoding="utf-8")
    try:
        im = import_argos(path)
    except ArgosError as exc:
        assert exc.problems
        for p in exc.problems:
            assert "\n" not in p and p.startswith(f"{path}:"), p
        return
    data = tomllib.loads(im.toml())
    assert data == _plain(im.data())
    try:
        load_experiment(path)
    except ConfigError as exc:
        for p in exc.problems:
            assert "\n" not in p and p.startswith(f"{path}"), p
