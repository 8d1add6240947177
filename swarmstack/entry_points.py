"""Plug-in entry points, looked up without importing ``importlib.metadata`` when none exist.

Numba and pydantic each look for plug-ins the first time they are used: Numba for
``numba_extensions`` (before its first compilation *or* cache load), pydantic for ``pydantic``
(before its first model class). Both ask ``importlib.metadata``, whose import (it brings the
``email`` package and ``socket``) and two scans of every installed distribution cost 15–20 ms of
a run's 0.3 s start, in an environment where neither group has a single entry.

:func:`defer_metadata`, run when ``swarmstack`` is imported, reads the installed
distributions' ``entry_points.txt`` files itself (one directory listing per ``sys.path`` entry)
to learn which groups exist. For a group with no entry, the library is told that its scan is
done and found nothing — the state its own scan would have left — and ``importlib.metadata``
stays unimported until something else asks for it: it is then imported on first use, as
always. Whenever the answer is not certain (a ``sys.path`` entry that is not a plain directory,
an ``.egg``, a custom finder that lists distributions, a file that cannot be read), nothing is
changed and both libraries scan as they always did.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import os
import sys
import types
from typing import Callable, Optional

from swarmstack.imports import after_import

_METADATA = "importlib.metadata"

# module → (entry-point group, what tells the module its scan found no entry)
_NO_PLUGINS: dict[str, tuple[str, Callable[[types.ModuleType], None]]] = {
    "numba.core.entrypoints": ("numba_extensions",
                               lambda m: setattr(m, "_already_initialized", True)),
    "pydantic.plugin._loader": ("pydantic",
                                lambda m: setattr(m, "_plugins", {}) if m._plugins is None
                                else None),
}

# finders that list no distributions of their own (besides the path-based one, which reads
# sys.path as installed_groups does)
_PLAIN_FINDERS = ("BuiltinImporter", "FrozenImporter", "PathFinder", "_EditableFinder",
                  "_NumbaStartup", "_AfterImport", "DistutilsMetaFinder")

_deferred = False


def installed_groups(path: Optional[list] = None) -> Optional[frozenset[str]]:
    """Every entry-point group some distribution on ``path`` (default ``sys.path``) declares,
    from the ``entry_points.txt`` of its ``.dist-info``/``.egg-info`` folder; None when that
    cannot be told for sure without ``importlib.metadata``."""
    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and \
                getattr(finder, "__name__", type(finder).__name__) not in _PLAIN_FINDERS:
            return None
    groups: set[str] = set()
    for entry in (sys.path if path is None else path):
        root = entry or "."
        try:
            names = os.listdir(root)
        except FileNotFoundError:
            continue  # importlib.metadata skips a missing entry too
        except (NotADirectoryError, OSError, TypeError):
            return None  # a zip file, an unreadable folder: not for us to tell
        for name in names:
            lower = name.lower()
            if lower.endswith(".egg"):
                return None
            if not lower.endswith((".dist-info", ".egg-info")):
                continue
            file = os.path.join(root, name, "entry_points.txt")
            try:
                with open(file, encoding="utf-8") as f:
                    text = f.read()
            except (FileNotFoundError, NotADirectoryError):
                continue  # no entry points, or an .egg-info file (metadata only)
            except (OSError, UnicodeDecodeError):
                return None
            group = None
            for line in text.splitlines():
                line = line.strip()
                if line.startswith("[") and line.endswith("]"):
                    group = line[1:-1].strip()
                elif group is not None and "=" in line and not line.startswith(("#", ";")):
                    groups.add(group)  # a group counts once it has an entry
    return frozenset(groups)


class _MetadataOnDemand(types.ModuleType):
    """Stands for ``importlib.metadata`` until a name of it is used: then imports it (and
    takes its place in ``sys.modules``). ``from importlib.metadata import entry_points`` gets a
    function that imports it when called, so a module can hold it without paying."""

    def __getattr__(self, name):
        if name == "entry_points":
            return _entry_points
        return getattr(_real_metadata(), name)

    def __dir__(self):
        return dir(_real_metadata())


def _real_metadata() -> types.ModuleType:
    module = sys.modules.get(_METADATA)
    if isinstance(module, _MetadataOnDemand) or module is None:
        sys.modules.pop(_METADATA, None)
        module = importlib.import_module(_METADATA)
    return module


def _entry_points(**params):
    return _real_metadata().entry_points(**params)


def defer_metadata() -> None:
    """Set the start-up described in the module's docstring up (once; nothing happens when
    ``importlib.metadata`` is already imported or the groups cannot be told)."""
    global _deferred
    if _METADATA in sys.modules or _deferred:
        return
    _deferred = True
    groups = installed_groups()
    if groups is None:
        return
    empty = [(module, mark) for module, (group, mark) in _NO_PLUGINS.items()
             if group not in groups]
    spec = importlib.machinery.PathFinder.find_spec(_METADATA, importlib.__path__)
    if not empty or spec is None or spec.submodule_search_locations is None:
        return
    for module, mark in empty:
        after_import(module, mark)
    stand_in = _MetadataOnDemand(_METADATA, "Imported on first use (swarmstack.entry_points)")
    # a package's spec and path: ``from importlib.metadata import x`` then looks the name up
    # on the stand-in instead of importing the package to search its folder
    stand_in.__spec__ = spec
    stand_in.__path__ = list(spec.submodule_search_locations)
    sys.modules[_METADATA] = stand_in
    importlib.metadata = stand_in
