"""Find the controller class an experiment file names: ``file.py:Class`` or ``module:Class``."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from swarmstack.controllers.api import BatchedController, Controller
from swarmstack.experiments.files import failure, import_user_file

MAX_PATH_CHARS = 4096   # PATH_MAX
MAX_NAME_CHARS = 255    # NAME_MAX: one component of a path


class ControllerLoadError(ValueError):
    pass


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 80 else repr(text[:60]) + f"… ({len(text)} characters)"


def check_path(path: str) -> None:
    """A file name the operating system can take: no NUL, components of at most 255
    characters, at most 4096 in all; raises :class:`ControllerLoadError` otherwise."""
    if "\0" in path:
        raise ControllerLoadError(f"a file name cannot contain a NUL character; found "
                                  f"{_shown(path)}")
    if len(path) > MAX_PATH_CHARS:
        raise ControllerLoadError(f"a file path has at most {MAX_PATH_CHARS} characters; found "
                                  f"{len(path)}")
    longest = max(path.replace("\\", "/").split("/"), key=len)
    if len(longest) > MAX_NAME_CHARS:
        raise ControllerLoadError(f"a file or folder name has at most {MAX_NAME_CHARS} "
                                  f"characters; found {_shown(longest)}")


def parse_spec(spec: str) -> tuple[str, str]:
    """``(target, class name)`` of ``"file.py:Class"`` or ``"package.module:Class"``."""
    expected = "expected 'file.py:Class' or 'package.module:Class'"
    if ":" not in spec:
        raise ControllerLoadError(f"{expected}, found {_shown(spec)}")
    target, cls_name = spec.rsplit(":", 1)
    if not cls_name.isidentifier():
        raise ControllerLoadError(f"{expected}: the class name must be a Python identifier; "
                                  f"found {_shown(spec)}")
    if target.endswith(".py"):
        check_path(target)
        if not target[:-3].replace("\\", "/").rsplit("/", 1)[-1]:
            raise ControllerLoadError(f"{expected}: the file needs a name; found {_shown(spec)}")
    elif not all(part.isidentifier() for part in target.split(".")):
        raise ControllerLoadError(f"{expected}: the module must be a dotted name "
                                  f"(package.module) or end in .py; found {_shown(spec)}")
    return target, cls_name


def load_class(spec: str, base_dir: Path):
    target, cls_name = parse_spec(spec)
    if target.endswith(".py"):
        module = import_user_file(base_dir / target, "swarmstack_user_", ControllerLoadError,
                                  "controller file", f"controller file {_shown(target)}",
                                  _shown)
    else:
        try:
            module = importlib.import_module(target)
        except (Exception, SystemExit) as exc:
            raise ControllerLoadError(f"cannot import module {target!r}: "
                                      f"{failure(exc)}") from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ControllerLoadError(f"{_shown(target)} has no class {cls_name!r}")
    if not isinstance(cls, type):
        raise ControllerLoadError(f"{_shown(spec)} is not a class (it is a "
                                  f"{type(cls).__name__})")
    if not callable(getattr(cls, "step", None)):
        raise ControllerLoadError(f"{_shown(spec)} has no step() method")
    for base in (Controller, BatchedController):
        if issubclass(cls, base) and cls.step is base.step:
            raise ControllerLoadError(
                f"{_shown(spec)} does not define step(): {base.__name__}'s own step() only "
                f"raises NotImplementedError (derive a class from {base.__name__} and write "
                "its step())")
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        raise ControllerLoadError(f"{_shown(spec)} is abstract: it does not define {missing}")
    try:
        # a class that keeps object's constructor takes no arguments: no signature to read
        # (reading object's parses its text signature, compiling the tokenizer's patterns)
        if (cls.__init__ is not object.__init__ or cls.__new__ is not object.__new__
                or type(cls).__call__ is not type.__call__):
            inspect.signature(cls).bind()
    except TypeError as exc:
        raise ControllerLoadError(f"{cls_name} cannot be created without arguments (one "
                                  f"instance is made per robot or group, as {cls_name}()): "
                                  f"{failure(exc)}") from None
    except ValueError:  # no signature to inspect (a class implemented in C): try it later
        pass
    return cls
