"""Which files to check: the paths given, folders walked for `*.py` and `*.ipynb`.

Patterns (`exclude`, `extend-exclude`, `per-file-ignores`) are gitignore patterns, anchored at
the project root (the config file's folder): `vendor/*` is the top-level vendor folder,
`vendor` any folder of that name. `.gitignore` files and `.git/info/exclude` are honoured while walking. A file named
on the command line is checked even if excluded, unless `force-exclude` is set (as with Ruff,
for pre-commit, which names every file).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

import pathspec

SOURCE_SUFFIXES = (".py", ".ipynb")
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", "__pycache__", "build", "dist", ".venv", "venv", ".tox", ".nox", ".eggs",
    "node_modules", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".devlint_cache", "site-packages",
    "*.egg-info", ".ipynb_checkpoints", ".direnv", "__pypackages__",
)


def _spec(patterns: Iterable[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(list(patterns))


@dataclass
class FileFilter:
    root: Path
    exclude: Sequence[str] = DEFAULT_EXCLUDES
    extend_exclude: Sequence[str] = ()
    respect_gitignore: bool = True
    force_exclude: bool = False
    _spec: pathspec.GitIgnoreSpec = field(init=False, repr=False)
    _gitignores: dict = field(init=False, repr=False, default_factory=dict)
    _git_root: Optional[Path] = field(init=False, repr=False, default=None)

    def __post_init__(self) -> None:
        self.root = Path(os.path.abspath(self.root))
        self._spec = _spec(list(self.exclude) + list(self.extend_exclude))
        self._git_root = _git_root(self.root)

    def relative(self, path: Union[str, Path]) -> str:
        """The path relative to the root, with `/` (as gitignore patterns see it); outside the root,
        its name (a pattern anchored at the root cannot name it)."""
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            return absolute.name

    def excluded(self, path: Union[str, Path], is_dir: bool) -> bool:
        return self._matches(path, is_dir)

    def under(self, folder: Union[str, Path]) -> "FileFilter":
        """The filter for walking a folder named on the command line. Inside excluded ground
        (`devlint .venv/lib/site-packages/torch`) only the name patterns and the .gitignore files
        from that folder down apply: what excludes its ancestors does not exclude what it holds."""
        if not self._matches(folder, True):
            return self
        names = [p for p in list(self.exclude) + list(self.extend_exclude) if _unanchored(p)]
        inner = FileFilter(Path(folder), names, (), self.respect_gitignore, self.force_exclude)
        inner._git_root = inner.root
        return inner

    def _matches(self, path: Union[str, Path], is_dir: bool) -> bool:
        rel = self.relative(path)
        if rel in ("", "."):
            return False
        if self._spec.match_file(rel + "/" if is_dir else rel):
            return True
        return self.respect_gitignore and self._gitignored(Path(os.path.abspath(path)), is_dir)

    def _gitignored(self, path: Path, is_dir: bool) -> bool:
        """The deepest `.gitignore` with a pattern for the path decides (a `!pattern` re-includes)."""
        top = self._git_root or self.root
        try:
            path.relative_to(top)
        except ValueError:
            return False
        verdict = None
        for folder in reversed(path.parents):
            if len(folder.parts) < len(top.parts):
                continue
            spec = self._gitignore(folder)
            if spec is None:
                continue
            rel = path.relative_to(folder).as_posix()
            result = spec.check_file(rel + "/" if is_dir else rel)
            if result.include is not None:
                verdict = result.include
        return bool(verdict)

    def _gitignore(self, folder: Path) -> Optional[pathspec.GitIgnoreSpec]:
        """The folder's .gitignore; at the repository's top, `.git/info/exclude` first (so that
        the .gitignore has the last word, as in git)."""
        if folder not in self._gitignores:
            lines: list[str] = []
            sources = [folder / ".gitignore"]
            if folder == self._git_root:
                sources.insert(0, folder / ".git" / "info" / "exclude")
            for ignore_file in sources:
                try:
                    if ignore_file.is_file():
                        lines += ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
                except OSError:
                    continue
            try:
                spec = pathspec.GitIgnoreSpec.from_lines(lines) if lines else None
            except ValueError:
                spec = None
            self._gitignores[folder] = spec
        return self._gitignores[folder]


def _unanchored(pattern: str) -> bool:
    """`build`, `*.egg-info`, `cache/`, `**/tmp`: patterns that name a file or folder anywhere."""
    body = pattern.lstrip("!")
    body = body[3:] if body.startswith("**/") else body
    return "/" not in body.rstrip("/")


def _git_root(start: Path) -> Optional[Path]:
    for folder in [start, *start.parents]:
        if (folder / ".git").exists():
            return folder
    return None


def default_filter(excludes: Sequence[str] = ()) -> FileFilter:
    return FileFilter(Path.cwd(), DEFAULT_EXCLUDES, tuple(excludes))


def discover(paths: Iterable[str], excludes: Union[Sequence[str], FileFilter] = ()) -> tuple[list[str], list[str]]:
    """(files to check, paths that do not exist)."""
    file_filter = excludes if isinstance(excludes, FileFilter) else default_filter(excludes)
    files: list[str] = []
    missing: list[str] = []
    for raw in paths:
        path = Path(raw)
        if file_filter.force_exclude and path.exists() and file_filter.excluded(path, path.is_dir()):
            continue
        if path.is_file():
            files.append(str(path))
        elif path.is_dir():
            files.extend(_walk(str(path), file_filter.under(path)))
        else:
            missing.append(raw)
    seen: set[str] = set()
    unique = []
    for f in files:
        if f not in seen:
            seen.add(f)
            unique.append(f)
    return unique, missing


def _walk(root: str, file_filter: FileFilter) -> list[str]:
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
                    if not os.path.exists(os.path.join(entry.path, "pyvenv.cfg")) \
                            and not file_filter.excluded(entry.path, True):  # a virtualenv under any name
                        dirs.append(entry.path)
                elif entry.name.endswith(SOURCE_SUFFIXES) and entry.is_file() \
                        and not file_filter.excluded(entry.path, False):
                    out.append(entry.path)
            except OSError:
                continue
        stack.extend(reversed(dirs))
    return sorted(out)


class PerFileIgnores:
    """`per-file-ignores`: codes to drop for files matching each pattern."""

    def __init__(self, table: dict[str, list[str]], file_filter: FileFilter) -> None:
        self.rules = [(_spec([pattern]), tuple(codes)) for pattern, codes in table.items()]
        self.file_filter = file_filter

    def ignored(self, path: str, code: str) -> bool:
        if not self.rules:
            return False
        rel = self.file_filter.relative(path)
        return any(code.startswith(codes) or "ALL" in codes for spec, codes in self.rules if spec.match_file(rel))
