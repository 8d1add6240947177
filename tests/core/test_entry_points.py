"""Plug-in entry points found without importlib.metadata (``swarmstack.entry_points``).

A run does not import ``importlib.metadata`` when no Numba extension and no pydantic plug-in is
installed; when one is, Numba and pydantic load it exactly as they always did; and the groups
read from the distributions' files are the ones ``importlib.metadata`` reports.
"""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmstack.entry_points import installed_groups

ROOT = Path(__file__).resolve().parents[2]


def test_the_groups_are_those_importlib_metadata_reports():
    assert installed_groups() == frozenset(importlib.metadata.entry_points().groups)


GROUP = st.from_regex(r"[a-z][a-z0-9_.]{0,12}", fullmatch=True)


def _write_dist(root: Path, name: str, sections: dict[str, int], suffix: str = ".dist-info"):
    folder = root / f"{name}-1.0{suffix}"
    folder.mkdir()
    (folder / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    text = ""
    for group, count in sections.items():
        text += f"[{group}]\n" + "".join(f"e{k} = {name}_mod:f{k}\n" for k in range(count))
        text += "\n"
    (folder / "entry_points.txt").write_text(text)


@settings(max_examples=25, deadline=None)
@given(dists=st.lists(st.dictionaries(GROUP, st.integers(0, 2), max_size=3), max_size=4),
       egg_info=st.booleans())
def test_any_layout_of_distributions_gives_the_same_groups(tmp_path_factory, dists, egg_info):
    root = tmp_path_factory.mktemp("site")
    for k, sections in enumerate(dists):
        _write_dist(root, f"pkg{k}", sections, ".egg-info" if egg_info and k % 2 else ".dist-info")
    expected = {ep.group for d in importlib.metadata.distributions(path=[str(root)])
                for ep in d.entry_points}
    assert installed_groups([str(root)]) == frozenset(expected)


def test_a_zip_or_an_egg_on_the_path_is_not_guessed(tmp_path):
    archive = tmp_path / "lib.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("m.py", "")
    assert installed_groups([str(archive)]) is None
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "old-1.0-py3.11.egg").mkdir()
    assert installed_groups([str(tmp_path / "site")]) is None
    assert installed_groups([str(tmp_path / "missing")]) == frozenset()


RUN = """
import json, sys
from swarmstack.experiments.simulation import Simulation
cfg = {"arena": {"size": [1.0, 1.0]},
       "robots": [{"name": "e", "type": "epuck2", "count": 2, "sensors": {"encoders": True},
                   "controller": {"python": "tests.core.controllers:RandomWheels"}}]}
sim = Simulation.from_dict(cfg, seed=5)
sim.run(3)
stand_in = type(sys.modules["importlib.metadata"]).__name__
email = "email" in sys.modules
import numba.core.entrypoints as numba_eps
import pydantic.plugin._loader as pydantic_plugins
plugins = sorted(type(p).__name__ for p in pydantic_plugins.get_plugins())
from importlib.metadata import version, entry_points
print(json.dumps({"stand_in": stand_in, "email": email,
                  "numba_version": version("numba"), "numba": __import__("numba").__version__,
                  "scripts": sorted(e.name for e in entry_points(group="console_scripts")),
                  "plugins": plugins, "extension": sys.modules.get("fake_plugin") is not None
                  and sys.modules["fake_plugin"].NUMBA_INIT,
                  "real": type(sys.modules["importlib.metadata"]).__name__}))
"""


def _run(tmp_path: Path, extra_path: str = "", **more_env) -> dict:
    env = {"PYTHONPATH": str(ROOT) + (f":{extra_path}" if extra_path else ""),
           "PATH": "/usr/bin:/bin", **more_env}
    out = subprocess.run([sys.executable, "-c", RUN], cwd=ROOT, capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_a_run_without_plug_ins_never_imports_importlib_metadata(tmp_path):
    r = _run(tmp_path)
    assert r["stand_in"] == "_MetadataOnDemand" and not r["email"]
    assert r["plugins"] == [] and r["extension"] is False
    # asked for afterwards, it is there and answers as always
    assert r["numba_version"] == r["numba"] and "swarmstack" in r["scripts"]
    assert r["real"] == "module"


PLUGIN = """
NUMBA_INIT = False

def numba_init():
    global NUMBA_INIT
    NUMBA_INIT = True

class Plugin:
    def new_schema_validator(self, *args, **kwargs):
        return None, None, None

plugin = Plugin()
"""


def test_installed_plug_ins_are_loaded_as_always(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "fake_plugin.py").write_text(PLUGIN)
    folder = site / "fake_plugin-1.0.dist-info"
    folder.mkdir()
    (folder / "METADATA").write_text("Metadata-Version: 2.1\nName: fake_plugin\nVersion: 1.0\n")
    (folder / "entry_points.txt").write_text(
        "[numba_extensions]\ninit = fake_plugin:numba_init\n\n"
        "[pydantic]\nfake = fake_plugin:plugin\n")
    # kernels through Numba (a run whose kernels were all built ahead of time never starts it,
    # nor its extensions)
    r = _run(tmp_path, str(site), SWARMSTACK_AHEAD="0")
    assert r["extension"] is True
    assert r["plugins"] == ["Plugin"]
