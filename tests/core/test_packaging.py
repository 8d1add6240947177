"""Packaging a user meets at `make`: no extra that installs something nothing uses, metadata
in the form current setuptools accepts without deprecation warnings."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# distribution name -> the module it provides, where they differ
IMPORT_NAME = {"imageio-ffmpeg": "imageio_ffmpeg", "eclipse-zenoh": "zenoh",
               "mcap-ros2-support": "mcap_ros2"}
# plugins and tools used from the command line rather than imported: what the Makefile says
USED_BY_MAKEFILE = {"pytest-xdist": r"pytest -n \d"}


def _name(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].strip()


def test_every_extra_installs_something_the_package_or_its_tests_use():
    sources = "\n".join(p.read_text(errors="replace")
                        for folder in ("swarmstack", "tests", "benchmarks")
                        for p in (ROOT / folder).rglob("*.py"))
    for extra, requirements in PYPROJECT["project"]["optional-dependencies"].items():
        assert requirements, f"extra {extra!r} installs nothing"
        for req in requirements:
            name = _name(req)
            if name == "swarmstack":      # an extra made of other extras
                continue
            if name in USED_BY_MAKEFILE:
                assert re.search(USED_BY_MAKEFILE[name], (ROOT / "Makefile").read_text())
                continue
            module = IMPORT_NAME.get(name, name.replace("-", "_"))
            assert re.search(rf"^\s*(import|from)\s+{module}\b|importorskip\(\"{module}\"",
                             sources, re.M), f"extra {extra!r}: nothing imports {module}"


def test_metadata_uses_current_setuptools_forms():
    build = PYPROJECT["build-system"]["requires"]
    setuptools = next(r for r in build if _name(r) == "setuptools")
    assert int(re.search(r">=\s*(\d+)", setuptools).group(1)) >= 77
    # a license table is deprecated (warned about at every install): an SPDX string
    assert isinstance(PYPROJECT["project"]["license"], str)
