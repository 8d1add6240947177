"""Reading the files an experiment names: regular files only, of a bounded size, so that a
device, a pipe or a huge file is refused with a reason before anything reads it; and importing
the Python files it names (controllers, robot types)."""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
from pathlib import Path


def regular_file(path: Path, limit: int, what: str) -> int:
    """The size of ``path``, a regular file of at most ``limit`` bytes; ``OSError`` (or
    ``ValueError`` for a NUL in the name) otherwise, saying why. Devices, pipes and folders
    are refused before anything opens them (``/dev/zero`` would be read forever)."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"{what} is not a regular file")
    if st.st_size > limit:
        raise OSError(f"{what} is larger than {limit >> 20} MiB")
    return st.st_size


def read_limited(path: Path, limit: int, what: str) -> bytes:
    """The bytes of ``path`` (see :func:`regular_file`), read no further than ``limit``."""
    regular_file(path, limit, what)
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise OSError(f"{what} is larger than {limit >> 20} MiB")
    return data


def import_file(path: Path, prefix: str):
    """The module of the Python file ``path`` (resolved), imported once per process under the
    name ``prefix`` + a number of the path. What its import raises (a SystemExit too)
    propagates and leaves nothing in ``sys.modules``."""
    name = f"{prefix}{abs(hash(str(path)))}"
    module = sys.modules.get(name)
    if module is None:
        module = import_spec(name, importlib.util.spec_from_file_location(name, path))
    return module


def failure(exc: BaseException) -> str:
    """What an exception says, on one line (a user's module calling ``sys.exit`` included)."""
    return f"it called sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else \
        " ".join(f"{type(exc).__name__}: {exc}".split())


def import_user_file(path: Path, prefix: str, error: type[Exception], what: str, used: str,
                     shown=repr):
    """The module of a Python file an experiment names (:func:`import_file`), or ``error``
    saying why not: ``path`` cannot be used (``used`` names it then), does not exist, is not a
    file, or its import raised. ``what`` names such a file, ``shown`` quotes a path."""
    try:
        path = path.resolve()
        is_file = path.is_file()
    except (OSError, ValueError, RuntimeError) as exc:   # RuntimeError: a symlink loop
        raise error(f"cannot use {used}: {failure(exc)}") from None
    if not is_file:
        raise error(f"{what} {shown(str(path))} "
                    + ("does not exist" if not path.exists() else "is not a file"))
    try:
        return import_file(path, prefix)
    except (Exception, SystemExit) as exc:
        raise error(f"importing {shown(str(path))} failed: {failure(exc)}") from None


def import_spec(name: str, spec):
    """Import the module of ``spec`` (``importlib.machinery.ModuleSpec``) as ``name``; what its
    import raises propagates and leaves nothing in ``sys.modules``."""
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module
