"""Which files of a run import which: the importers of a changed module are checked again.

The imports are read with Python's own parser (never run) and resolved as the analysis resolves
them (devlint.static.project.layout). Used where a change must reach the files that depend on it:
`--watch`, and the language server's other open documents.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Optional, Sequence

from devlint.core.limits import DEFAULT_MAX_FILE_SIZE
from devlint.static.project.layout import layout_for, run_root


def imported_files(path: str, root_of_run: Optional[str] = None) -> set[str]:
    """The real paths of the project modules `path` imports (directly); `root_of_run` as for layout_for."""
    source = _read(path)
    if source is None:
        return set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    importer = Path(os.path.realpath(path))
    layout = layout_for(str(importer), root_of_run)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [(alias.name, 0) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [(module, node.level)] + [(f"{module}.{a.name}" if module else a.name, node.level)
                                              for a in node.names if a.name != "*"]
        else:
            continue
        for module, level in names:
            target = layout.resolve(importer, module, level)
            if target is not None and target.file is not None:
                found.add(os.path.realpath(target.file))
    return found


def dependents(changed: Sequence[str], files: Sequence[str]) -> list[str]:
    """The files among `files` that import one of `changed`, directly or through each other."""
    reached = {os.path.realpath(path) for path in changed}
    root = run_root(files)
    imports = {path: imported_files(path, root) for path in files}
    found: list[str] = []
    grew = True
    while grew:  # to a fixed point: an importer of an importer is a dependent too
        grew = False
        for path, imported in imports.items():
            if path not in found and os.path.realpath(path) not in reached and imported & reached:
                found.append(path)
                reached.add(os.path.realpath(path))
                grew = True
    return found


def _read(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as stream:
            data = stream.read(DEFAULT_MAX_FILE_SIZE + 1)
    except OSError:
        return None
    return data if len(data) <= DEFAULT_MAX_FILE_SIZE else None


__all__: Sequence[str] = ["dependents", "imported_files"]
