"""ARGoS experiment files (``.argos``): reading them and translating them into swarmstack
experiments (``swarmstack import``, and ``swarmstack run FILE.argos``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from swarmstack.argos.translate import Imported, translate
from swarmstack.argos.xmltree import ArgosError, read_argos

__all__ = ["ArgosError", "Imported", "import_argos", "locate_problems",
           "untranslated"]


def import_argos(path: Path, out_dir: Optional[Path] = None) -> Imported:
    """The translation of the ``.argos`` file ``path``; files it names are written relative to
    ``out_dir`` (default: the file's own folder). Raises :class:`ArgosError`."""
    path = Path(path)
    root = read_argos(path)
    return translate(root, str(path), path.parent,
                     Path(out_dir) if out_dir is not None else path.parent)


def locate_problems(path: Path, problems: list[str]) -> list[str]:
    """Problems found later (building the world: robots that do not fit …) about an
    ``.argos`` file's experiment, told with the line and XML path they come from; the
    problems of any other file are returned as they are."""
    imported = _imported(path)
    return problems if imported is None else [imported.locate(p) for p in problems]


def untranslated(path: Path, limit: int = 10) -> list[str]:
    """What of an ``.argos`` file has no equivalent, as warnings for ``run`` and ``validate``
    (at most ``limit``, then a count); nothing for any other file."""
    imported = _imported(path)
    if imported is None:
        return []
    notes = imported.notes
    out = [f"{path}:{line}: not translated: {n}"
           for line, n in zip(imported.note_lines[:limit], notes)]
    if len(notes) > limit:
        out.append(f"{path}: … and {len(notes) - limit} more not translated (`swarmstack "
                   f"import {path}` lists them all)")
    return out


def _imported(path: Path) -> Optional[Imported]:
    """The translation of an ``.argos`` file; None for any other file or one that fails."""
    if Path(path).suffix != ".argos":
        return None
    try:
        return import_argos(path)
    except ArgosError:
        return None
