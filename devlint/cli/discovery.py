"""Which files to check: the paths given, folders walked for `*.py` and `*.ipynb`.

Patterns (`exclude`, `extend-exclude`, `per-file-ignores`) are gitignore patterns, anchored at
the project root (the config file's folder): `vendor/*` is the top-level vendor folder,
`vendor` any folder of that name. `.gitignore` files and `.git/info/exclude` are honoured while walking. A file named
on the command line is checked even if excluded, unless `force-exclude` is set (as with Ruff,
for pre-commit, which names every file).
"""

from __future__ import annotations

import os
import re
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


class _Patterns:
    """A gitignore spec with a quick refusal: one search of all its patterns at once tells that none
    matches (most files of a walk), and only a path some pattern matches is given to the spec to
    decide (the last matching pattern wins, `!` re-includes)."""

    __slots__ = ("spec", "_any")

    def __init__(self, spec: pathspec.GitIgnoreSpec) -> None:
        self.spec = spec
        regexes = [getattr(pattern, "regex", None) for pattern in spec.patterns
                   if getattr(pattern, "include", None) is not None]
        try:  # a group's name does not change what matches; repeated names are not allowed in one regex
            self._any = re.compile("|".join(f"(?:{_NAMED_GROUP.sub('(?:', regex.pattern)})" for regex in regexes)) \
                if regexes and all(isinstance(regex, re.Pattern) for regex in regexes) else None
        except re.error:
            self._any = None
        if regexes and self._any is None:
            self._any = _EVERYTHING  # patterns of another kind: the spec decides every path

    def decides(self, rel: str) -> Optional[bool]:
        """True: ignored; False: re-included; None: no pattern names `rel`. A folder (`rel` ends with `/`) is
        read against each pattern as written, the last that matches deciding: the spec's own check drops the
        slash, so `!*/` (git's "every folder is walked") would never re-include one."""
        if self._any is None or not self._any.search(rel):
            return None
        if not rel.endswith("/"):
            return self.spec.check_file(rel).include
        verdict = None
        for pattern in self.spec.patterns:
            regex = getattr(pattern, "regex", None)
            if pattern.include is not None and isinstance(regex, re.Pattern) and regex.search(rel):
                verdict = pattern.include
        return verdict


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")
_EVERYTHING = re.compile("")


@dataclass
class FileFilter:
    root: Path
    exclude: Sequence[str] = DEFAULT_EXCLUDES
    extend_exclude: Sequence[str] = ()
    respect_gitignore: bool = True
    force_exclude: bool = False
    _spec: _Patterns = field(init=False, repr=False)
    _gitignores: dict[str, Optional[_Patterns]] = field(init=False, repr=False, default_factory=dict)
    _git_root: Optional[Path] = field(init=False, repr=False, default=None)

    _chains: dict[str, list] = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.root = Path(os.path.abspath(self.root))
        self._spec = _Patterns(_spec(list(self.exclude) + list(self.extend_exclude)))
        self._git_root = _git_root(self.root)

    def relative(self, path: Union[str, Path]) -> str:
        """The path relative to the root, with `/` (as gitignore patterns see it); outside the root,
        its name (a pattern anchored at the root cannot name it)."""
        return self._relative(os.path.abspath(path))

    def _relative(self, absolute: str) -> str:
        # strings, not pathlib: this runs for every file and folder of a walk
        root = str(self.root)
        if os.path.normcase(absolute) == os.path.normcase(root):
            return "."
        prefix = root if root.endswith(os.sep) else root + os.sep
        if not os.path.normcase(absolute).startswith(os.path.normcase(prefix)):
            return os.path.basename(absolute)
        return absolute[len(prefix):].replace(os.sep, "/")

    def excluded(self, path: Union[str, Path], is_dir: bool) -> bool:
        return self._matches(path, is_dir)

    def excluded_absolute(self, absolute: str, is_dir: bool) -> bool:
        """`excluded` for a path already absolute and normal (a walk's: no abspath, no getcwd per entry)."""
        return self._matches_absolute(absolute, is_dir)

    def under(self, folder: Union[str, Path]) -> "FileFilter":
        """The filter for walking a folder named on the command line. Inside excluded ground
        (`devlint .venv/lib/site-packages/torch`) only the name patterns and the .gitignore files
        from that folder down apply: what excludes its ancestors does not exclude what it holds."""
        absolute = os.path.abspath(folder)
        outside = not os.path.normcase(absolute + os.sep).startswith(os.path.normcase(str(self.root).rstrip(os.sep)
                                                                                      + os.sep))
        if not outside and not self._matches(folder, True):
            return self
        names = [p for p in list(self.exclude) + list(self.extend_exclude) if _unanchored(p)]
        inner = FileFilter(Path(folder), names, (), self.respect_gitignore, self.force_exclude)
        # a folder outside the root (`devlint ~/src/proj` run elsewhere): its repository's .gitignore files
        # apply, as they do when it is run there (anchored patterns of the root's config cannot name it)
        inner._git_root = (_git_root(inner.root) or inner.root) if outside else inner.root
        if outside and inner._git_root != inner.root and inner._gitignored(str(inner.root), True):
            inner._git_root = inner.root  # (named though ignored: what it holds is walked, as inside the root)
        return inner

    def _matches(self, path: Union[str, Path], is_dir: bool) -> bool:
        return self._matches_absolute(os.path.abspath(path), is_dir)

    def _matches_absolute(self, absolute: str, is_dir: bool) -> bool:
        rel = self._relative(absolute)
        if rel in ("", "."):
            return False
        if self._spec.decides(rel + "/" if is_dir else rel):
            return True
        return self.respect_gitignore and self._gitignored(absolute, is_dir)

    def _gitignored(self, absolute: str, is_dir: bool) -> bool:
        """The deepest `.gitignore` with a pattern for the path decides (a `!pattern` re-includes)."""
        top = str(self._git_root or self.root)
        if not absolute.startswith(top.rstrip(os.sep) + os.sep):
            return False  # outside the repository, or the top itself
        parts = absolute[len(top):].strip(os.sep).split(os.sep)
        verdict = None
        for depth, patterns in self._ignore_files(top, parts[:-1], os.path.dirname(absolute)):
            rel = "/".join(parts[depth:])
            decided = patterns.decides(rel + "/" if is_dir else rel)
            if decided is not None:
                verdict = decided
        return bool(verdict)

    def _ignore_files(self, top: str, folders: list[str], key: str) -> list:
        """(depth, patterns) of each ignore file from the top down to the folder `key`, `folders` under the
        top (found once per folder: every file of a folder asks the same)."""
        if key not in self._chains:
            chain = []
            folder = top
            for depth in range(len(folders) + 1):  # the top, then each folder down to the path's own
                if depth:
                    folder = os.path.join(folder, folders[depth - 1])
                patterns = self._gitignore(folder)
                if patterns is not None:
                    chain.append((depth, patterns))
            self._chains[key] = chain
        return self._chains[key]

    def _gitignore(self, folder: str) -> Optional[_Patterns]:
        """The folder's .gitignore; at the repository's top, `.git/info/exclude` first (so that
        the .gitignore has the last word, as in git)."""
        if folder not in self._gitignores:
            lines: list[str] = []
            sources = [Path(folder) / ".gitignore"]
            if self._git_root is not None and folder == str(self._git_root):
                sources.insert(0, Path(folder) / ".git" / "info" / "exclude")
            for ignore_file in sources:
                try:
                    if ignore_file.is_file():
                        lines += ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
                except OSError:
                    continue
            try:
                spec = _Patterns(pathspec.GitIgnoreSpec.from_lines(lines)) if lines else None
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
    stack = [(root, os.path.abspath(root))]  # each folder as it is reported, and absolute (for the filter)
    while stack:
        current, absolute = stack.pop()
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        dirs = []
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    inside = os.path.join(absolute, entry.name)
                    if not os.path.exists(os.path.join(entry.path, "pyvenv.cfg")) \
                            and not file_filter.excluded_absolute(inside, True):  # a virtualenv under any name
                        dirs.append((entry.path, inside))
                elif entry.name.endswith(SOURCE_SUFFIXES) and entry.is_file() \
                        and not file_filter.excluded_absolute(os.path.join(absolute, entry.name), False):
                    out.append(entry.path)
            except OSError:
                continue
        stack.extend(reversed(dirs))
    return sorted(out)


def real_paths(paths: Iterable[str]) -> dict[str, str]:
    """os.path.realpath(path) -> path, for each: each folder is resolved once (a realpath checks every
    component of the path for a link, and a run's files share their folders); only the name is checked
    for each file. A path with `..` in it is resolved whole (`link/..` is not its lexical parent)."""
    folders: dict[str, str] = {}
    found: dict[str, str] = {}
    for path in paths:
        folder, name = os.path.split(path)
        if name in ("", ".", "..") or ".." in folder.split(os.sep) or os.path.islink(path):
            found[os.path.realpath(path)] = path
            continue
        if folder not in folders:
            folders[folder] = os.path.realpath(folder or os.curdir)
        found[os.path.join(folders[folder], name)] = path
    return found


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
