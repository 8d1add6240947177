"""Code run right after a module is imported, before anything else uses it.

Start-up adjustments to a library (``swarmstack.entry_points``, ``swarmstack.kernel_stamps``)
must be in place before the library's first use, yet the library should not be imported only
to adjust it: :func:`after_import` runs them at the end of the module's own import, or at once
if it is already imported.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types
from typing import Callable

_pending: dict[str, list[Callable[[types.ModuleType], None]]] = {}


def after_import(name: str, hook: Callable[[types.ModuleType], None]) -> None:
    """Call ``hook(module)`` once module ``name`` is imported. A hook that raises is dropped
    without a word: an adjustment that does not fit the library leaves it as it was."""
    module = sys.modules.get(name)
    if module is not None and not _initialising(module):
        _run(hook, module)
        return
    _pending.setdefault(name, []).append(hook)
    if _AfterImport not in sys.meta_path:
        sys.meta_path.insert(0, _AfterImport)


def _initialising(module) -> bool:
    return bool(getattr(getattr(module, "__spec__", None), "_initializing", False))


def _run(hook, module) -> None:
    try:
        hook(module)
    except Exception:
        pass


class _AfterImport:
    """Meta-path finder: a module with hooks waiting is found as usual (by the path finder),
    and its loader runs the hooks after the module's code."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name not in _pending:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        spec.loader = _HooksAfterExec(spec.loader)
        return spec


class _HooksAfterExec:
    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        module.__loader__ = self.loader
        hooks = _pending.pop(module.__name__, [])
        if not _pending:
            try:
                sys.meta_path.remove(_AfterImport)
            except ValueError:
                pass
        for hook in hooks:
            _run(hook, module)
