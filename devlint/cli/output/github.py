"""GitHub Actions workflow commands: findings become annotations on the pull request.

GitHub places an annotation by its path relative to the root of the repository that holds the
file, wherever devlint ran from (a `working-directory`, a checkout under `path:`): paths are made
so; a file in no repository keeps its path as given."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from devlint.cli.output.report import Report

_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


class _RepositoryPaths:
    def __init__(self) -> None:
        self.roots: dict[Path, Optional[Path]] = {}

    def __call__(self, path: str) -> str:
        absolute = Path(os.path.abspath(path))
        root = self._root(absolute.parent)
        return absolute.relative_to(root).as_posix() if root is not None else path

    def _root(self, folder: Path) -> Optional[Path]:
        if folder not in self.roots:
            self.roots[folder] = folder if (folder / ".git").exists() else (
                None if folder.parent == folder else self._root(folder.parent))
        return self.roots[folder]


def render(report: Report) -> str:
    relative = _RepositoryPaths()
    lines = []
    for f in report.sorted():
        props = [f"file={_escape_property(relative(f.path))}"]
        title = f"{f.code} {f.name}".strip()
        if f.cell is None:
            props += [f"line={f.line}", f"col={f.column}", f"endLine={f.end_line}", f"endColumn={f.end_column}"]
        else:  # a notebook's lines are not the file's: say where in the title instead
            title += f" (cell {f.cell}, line {f.line})"
        props.append(f"title={_escape_property(title)}")
        body = "\n".join([f.message, *f.why] + ([f"fix: {f.fix}"] if f.fix else []))
        lines.append(f"::{_COMMANDS.get(f.severity, 'warning')} {','.join(props)}::{_escape_data(body)}")
    return "\n".join(lines) + ("\n" if lines else "")
