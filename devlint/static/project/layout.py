"""Where a project's modules are: its root, its import roots, and the file an import names.

Like mypy and pyright, devlint reads the project's own modules (never runs them) so that
`from model import Net` means the `Net` of `model.py` beside the script. The root is the
nearest folder above a file holding `pyproject.toml`, `setup.cfg`, `setup.py` or `.git`
(else the file's own folder). Imports resolve against, in order: the root, `root/src`,
the folders named by `[tool.devlint] import-roots`, and the importing file's own folder
(a script's imports resolve there, as Python puts the script's folder on `sys.path`).
"""

from __future__ import annotations

import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Union

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python < 3.11
    import tomli as tomllib

ROOT_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
# where installed packages live: a package there (torch itself, checked as `devlint .../torch/nn`) is its own root,
# never the folder of every installed package
INSTALLED_FOLDERS = ("site-packages", "dist-packages")
# In a package (a folder with `__init__.py`), `setup.py` is one of its modules (efficientvit's `apps/setup.py`
# sets up experiments), not the project's build script: the root is further up.
PACKAGE_MODULE_MARKER = "setup.py"
MAX_MODULE_DEPTH = 12  # dotted names deeper than this are not looked for (a hostile `import a.a.a...`)


@dataclass(frozen=True)
class Target:
    """What an import names in the project: a module file, or a package folder (its `__init__.py`, if any)."""

    folder: Optional[Path]  # a package's folder (submodules live there); None for a plain module
    file: Optional[Path]  # the source to read: `x.py` or `pkg/__init__.py`; None for a namespace package

    @functools.cached_property  # asked at every import a walk meets (in its instance's dict: frozen allows it)
    def key(self) -> str:
        """A name for the module that no library path can equal (no dots: `a.b` is split on them)."""
        return "project:" + str(self.file or self.folder).replace(".", "\x00")


@dataclass(frozen=True)
class Layout:
    root: Path
    roots: tuple[Path, ...]  # the import roots, in the order they are searched

    def resolve(self, importer: Path, module: str, level: int = 0) -> Optional[Target]:
        """The project module `module` names when imported from `importer` (`level` dots before it)."""
        parts = [p for p in module.split(".") if p] if module else []
        if len(parts) > MAX_MODULE_DEPTH:
            return None
        if level:
            base = importer.parent
            for _ in range(level - 1):
                base = base.parent
            return _find(base, parts) if parts else _package(base)
        if not parts:
            return None
        beside = (importer.parent,)
        # a script's own folder comes first on sys.path (`python tools/run.py` imports tools/llama before a llama
        # at the root); a package's modules are imported from the roots, their folder is no search path
        for root in (beside + self.roots if _is_script_folder(importer.parent) else self.roots + beside):
            found = _find(root, parts)
            if found is not None:
                return found
        return None

    def submodule(self, package: Target, name: str) -> Optional[Target]:
        """`from pkg import name` where `name` is a module of the package, not a name it defines."""
        if package.folder is None or not name.isidentifier():
            return None
        return _find(package.folder, [name])


def _find(base: Path, parts: list[str]) -> Optional[Target]:
    folder = os.path.join(base, *parts[:-1])
    listing = _listing(folder)
    if listing is None:
        return None
    last = parts[-1]
    if listing.has_file(f"{last}.py"):
        return Target(folder=None, file=Path(folder, f"{last}.py"))
    return _package(Path(folder, last)) if listing.has_folder(last) else None


def _is_script_folder(folder: Path) -> bool:
    listing = _listing(str(folder))
    return listing is not None and not listing.has_file("__init__.py")


def _package(folder: Path) -> Optional[Target]:
    listing = _listing(str(folder))
    if listing is None:
        return None
    return Target(folder=folder, file=folder / "__init__.py" if listing.has_file("__init__.py") else None)


@dataclass(frozen=True)
class _Listing:
    """A folder's entries, read once."""

    files: frozenset[str]
    folders: frozenset[str]

    def has_file(self, name: str) -> bool:
        return name in self.files

    def has_folder(self, name: str) -> bool:
        return name in self.folders


@dataclass(frozen=True)
class _Asked:
    """A folder too big to keep: each name asked of the file system."""

    folder: str

    def has_file(self, name: str) -> bool:
        return _is_file(Path(self.folder, name))

    def has_folder(self, name: str) -> bool:
        return _is_dir(Path(self.folder, name))


MAX_LISTING = 20_000  # entries: a bigger folder is not kept (each name is asked of it instead)
MAX_FOLDERS = 4096  # folders kept per process
_LISTINGS: dict[str, tuple[int, _Listing]] = {}


def _listing(folder: str) -> Union[_Listing, _Asked, None]:
    """What the folder holds, None if it is no folder. An import resolves against the project's folders
    thousands of times (each checked file walks its imports): each folder is read once, and read again
    when its time of change says that an entry came or went."""
    try:
        stamp = os.stat(folder).st_mtime_ns
    except (OSError, ValueError):
        return None
    known = _LISTINGS.get(folder)
    if known is not None and known[0] == stamp:
        return known[1]
    files: set[str] = set()
    folders: set[str] = set()
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= MAX_LISTING:
                    return _Asked(folder)
                try:
                    if entry.is_dir():  # links followed, as an import follows them
                        folders.add(entry.name)
                    elif entry.is_file():
                        files.add(entry.name)
                except OSError:
                    continue
    except (OSError, ValueError):
        return None
    listing = _Listing(frozenset(files), frozenset(folders))
    if len(_LISTINGS) >= MAX_FOLDERS:
        _LISTINGS.clear()
    _LISTINGS[folder] = (stamp, listing)
    return listing


def _is_file(path: Path) -> bool:
    try:
        return path.is_file()
    except OSError:
        return False


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False


def layout_for(path: str, run_root: Optional[str] = None, real: bool = False) -> Layout:
    """The layout of the project that holds the file at `path`. Without a marker above it, the project is
    `run_root` (the folder that holds every file of the run: `devlint .` in a checkout with no
    pyproject.toml, whose scripts/ import the root's packages after `sys.path.append(".")`), when it holds
    the file, else the file's own folder. `real`: `path` is a real path already."""
    folder = Path(path if real else os.path.realpath(path)).parent
    root = _root_above(folder)
    if root is None:
        top = Path(run_root) if run_root else None
        root = top if top is not None and (top == folder or top in folder.parents) else folder
        while _is_file(root / "__init__.py") and root.parent != root and root.parent.name not in INSTALLED_FOLDERS:
            root = root.parent  # a package's modules import it by its name (`from models.base import Base`)
    return _layout_of_root(root)


def run_root(paths: Iterable[str]) -> Optional[str]:
    """The folder that holds all of `paths` (real paths); None when that is a file system's root or the home
    folder (files from unrelated places: no project)."""
    folders = {os.path.dirname(os.path.realpath(path)) for path in paths}
    if not folders:
        return None
    try:
        common = os.path.commonpath(sorted(folders))
    except ValueError:  # different drives
        return None
    if os.path.dirname(common) == common or common == os.path.realpath(os.path.expanduser("~")):
        return None
    return common


@functools.lru_cache(maxsize=256)
def _root_above(folder: Path) -> Optional[Path]:
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in ROOT_MARKERS if marker != PACKAGE_MODULE_MARKER) or (
                (candidate / PACKAGE_MODULE_MARKER).exists() and not (candidate / "__init__.py").exists()):
            return candidate
    return None


@functools.lru_cache(maxsize=64)
def _layout_of_root(root: Path) -> Layout:
    roots = [root]
    if _is_dir(root / "src"):
        roots.append(root / "src")
    for extra in _configured_roots(root):
        if extra not in roots:
            roots.append(extra)
    return Layout(root=root, roots=tuple(roots))


def _configured_roots(root: Path) -> list[Path]:
    """`[tool.devlint] import-roots = ["lib", "third/pkg"]` in the root's pyproject.toml: folders inside the root."""
    try:
        with open(root / "pyproject.toml", "rb") as stream:
            data = tomllib.load(stream)
    except (OSError, ValueError):
        return []
    names = data.get("tool", {}).get("devlint", {}).get("import-roots", []) if isinstance(data, dict) else []
    if not isinstance(names, list):
        return []
    found = []
    for name in names:
        if isinstance(name, str):
            folder = (root / name).resolve()
            if _is_dir(folder) and (folder == root or root in folder.parents):
                found.append(folder)
    return found
