"""Find the controller class an experiment file names: ``file.py:Class`` or ``module:Class``."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path


class ControllerLoadError(ValueError):
    pass


def load_class(spec: str, base_dir: Path):
    if ":" not in spec:
        raise ControllerLoadError(f"expected 'file.py:Class' or 'package.module:Class', "
                                  f"found {spec!r}")
    target, cls_name = spec.rsplit(":", 1)
    if target.endswith(".py"):
        path = (base_dir / target).resolve()
        if not path.is_file():
            raise ControllerLoadError(f"controller file {path} does not exist")
        mod_name = f"swarmstack_user_{abs(hash(str(path)))}"
        module = sys.modules.get(mod_name)
        if module is None:
            loader_spec = importlib.util.spec_from_file_location(mod_name, path)
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[mod_name] = module
            try:
                loader_spec.loader.exec_module(module)
            except Exception as exc:  # the user's module failed to import
                del sys.modules[mod_name]
                raise ControllerLoadError(f"importing {path} failed: "
                                          f"{type(exc).__name__}: {exc}") from exc
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise ControllerLoadError(f"cannot import module {target!r}: {exc}") from exc
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ControllerLoadError(f"{target} has no class {cls_name!r}")
    if not callable(getattr(cls, "step", None)):
        raise ControllerLoadError(f"{spec} has no step() method")
    return cls
