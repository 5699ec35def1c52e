"""Which files to check: the paths given, folders walked for `*.py`."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Iterable

SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", "__pycache__", "build", "dist", ".venv", "venv", ".tox", ".nox", ".eggs",
    "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".devlint_cache", "site-packages",
})


def _skip_dir(entry: os.DirEntry, excludes: tuple[str, ...]) -> bool:
    name = entry.name
    if name in SKIPPED_DIRS or name.endswith(".egg-info"):
        return True
    if os.path.exists(os.path.join(entry.path, "pyvenv.cfg")):  # a virtualenv under any name
        return True
    return any(fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(entry.path, pattern) for pattern in excludes)


def discover(paths: Iterable[str], excludes: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """(files to check, paths that do not exist). A file named explicitly is always checked."""
    files: list[str] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if path.is_file():
            files.append(str(path))
        elif path.is_dir():
            files.extend(_walk(str(path), excludes))
        else:
            missing.append(raw)
    seen: set[str] = set()
    unique = []
    for f in files:
        if f not in seen:
            seen.add(f)
            unique.append(f)
    return unique, missing


def _walk(root: str, excludes: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    stack = [root]
    while stack:
        current = stack.pop()
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        dirs = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if not _skip_dir(entry, excludes):
                        dirs.append(entry.path)
                elif entry.name.endswith(".py") and entry.is_file() and not any(
                        fnmatch.fnmatch(entry.path, p) or fnmatch.fnmatch(entry.name, p) for p in excludes):
                    out.append(entry.path)
            except OSError:
                continue
        stack.extend(reversed(dirs))
    return sorted(out)
