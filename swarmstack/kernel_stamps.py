"""A cached kernel is compiled again when any module it uses changes, not only its own file.

Numba stamps a cached kernel with a hash of the file that defines it, and loads the machine
code while that file is unchanged. A swarmstack kernel also carries the code of the functions
it calls from other modules (``geometry.rays`` inside ``sensors.tof``, ``world.rng`` inside
every noisy sensor …): after an update that changed only such a module, Numba would go on
running the old code without a word. Here the stamp of a kernel written under one of
:data:`ROOTS` (the package, by default) also holds one digest of every module under those roots
that its module imports, directly or through others; the kernel is compiled again when any
of them changes. Kernels written elsewhere (a user's own) keep Numba's stamp.

The digest is worked out when Numba first compares or saves the stamp (by then the module and
what it imports are loaded), once per module and process, from the files' contents.
"""

from __future__ import annotations

import hashlib
import os
import sys
import types
from functools import lru_cache
from pathlib import Path
from typing import Optional

from swarmstack.imports import after_import

# folders whose kernels get the stamp (tests add their own)
ROOTS: list[str] = [str(Path(__file__).resolve().parent)]
# what declares kernels (``njit``, ``prange``) is not part of any kernel's code
_DECLARING = "swarmstack.kernels"


def install() -> None:
    """Stamp kernels as described above, from the moment Numba's cache module is imported."""
    after_import("numba.core.caching", _patch)


def _patch(caching: types.ModuleType) -> None:
    mixin = caching._SourceFileBackedLocatorMixin
    if getattr(mixin, "_stamps_imports", False):
        return
    own_stamp = mixin.get_source_stamp

    def get_source_stamp(self):
        stamp = own_stamp(self)
        path = getattr(self, "_py_file", None)
        if isinstance(path, str) and _under_roots(os.path.abspath(path)):
            return ImportsStamp(stamp, os.path.abspath(path))
        return stamp

    mixin.get_source_stamp = get_source_stamp
    mixin._stamps_imports = True


def _under_roots(path: str) -> bool:
    return any(path.startswith(root + os.sep) for root in ROOTS)


class ImportsStamp:
    """Numba's stamp of a kernel's file, with the digest of the modules it imports added when
    first compared or pickled (then it is the tuple ``(file stamp, digest)``)."""

    __slots__ = ("file_stamp", "path", "_full")

    def __init__(self, file_stamp, path: str):
        self.file_stamp = file_stamp
        self.path = path
        self._full: Optional[tuple] = None

    def full(self) -> tuple:
        if self._full is None:
            self._full = (self.file_stamp, imports_digest(self.path))
        return self._full

    def __eq__(self, other):
        return self.full() == (other.full() if isinstance(other, ImportsStamp) else other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.full())

    def __reduce__(self):
        return tuple, (self.full(),)

    def __repr__(self):
        return f"ImportsStamp({self.path!r})"


@lru_cache(maxsize=None)
def imports_digest(path: str) -> str:
    """SHA-256 over the names and contents of the files of every module under :data:`ROOTS`
    that the module of ``path`` imports, directly or not (itself included)."""
    module = _module_at(path)
    files = _imported_files(module) if module is not None else {path}
    h = hashlib.sha256()
    for file in sorted(files):
        h.update(os.path.relpath(file, os.path.dirname(path)).encode())
        h.update(b"\0")
        with open(file, "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def _module_at(path: str) -> Optional[types.ModuleType]:
    # a file under a root is most often the module its path names (swarmstack/world/rng.py:
    # swarmstack.world.rng): looked up by that name first, as going through every loaded
    # module (some 550, each path made absolute) cost 3 ms of a run's set-up
    for root in ROOTS:
        if path.startswith(root + os.sep) and path.endswith(".py"):
            name = os.path.relpath(path[:-3], os.path.dirname(root)).replace(os.sep, ".")
            module = sys.modules.get(name.removesuffix(".__init__"))
            file = _file_of(module) if module is not None else None
            if file is not None and os.path.abspath(file) == path:
                return module
    for module in list(sys.modules.values()):
        file = _file_of(module)
        if file is not None and os.path.abspath(file) == path:
            return module
    return None


def _file_of(module) -> Optional[str]:
    # read from the module's namespace: asking a module that loads itself on first use (a
    # stand-in of another library) for an attribute would import it
    try:
        file = vars(module).get("__file__")
    except TypeError:
        return None
    return file if isinstance(file, str) else None


def _imported_files(root: types.ModuleType) -> set[str]:
    """Files of ``root`` and of every module under :data:`ROOTS` its globals lead to: the
    modules it imports and those of the functions, kernels and classes it imports by name."""
    files: set[str] = set()
    seen = {id(root)}
    todo = [root]
    while todo:
        module = todo.pop()
        files.add(os.path.abspath(_file_of(module)))
        for value in list(vars(module).values()):
            dep = value if isinstance(value, types.ModuleType) else _defining_module(value)
            if dep is None or id(dep) in seen:
                continue
            file = _file_of(dep)
            if file is not None and _under_roots(os.path.abspath(file)) \
                    and not dep.__name__.startswith(_DECLARING):
                seen.add(id(dep))
                todo.append(dep)
    return files


def _defining_module(value) -> Optional[types.ModuleType]:
    try:
        name = getattr(getattr(value, "py_func", value), "__module__", None)
    except Exception:  # an object whose attributes do work: not a function or a kernel
        return None
    return sys.modules.get(name) if isinstance(name, str) else None
