"""The project's other modules, read and parsed once per process (never imported or run).

A module imported by many files is parsed once: the trees and their pre-passes are kept in a
small least-recently-used table, checked against the file's size and time on each use. What
was read is remembered as (path, digest) so that a cached result can say what it depended on.
What a layer above derives from a module (the analysis' pre-pass of its tree, what walking its top
level gave) it keeps in a `PerSource` of its own type: nothing here names the analysis.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, Optional, TypeVar
from weakref import WeakKeyDictionary

import libcst as cst

from devlint.core.digests import digest_of
from devlint.core.limits import DEFAULT_MAX_FILE_SIZE
from devlint.static.prescan import check_parsable
from devlint.static.syntax import parse_module

MAX_TREES = 512  # parsed modules kept per process


@dataclass(eq=False)  # one per module read: a PerSource keys on it
class Source:
    path: Path
    digest: str  # of the bytes read: a cache entry that used this module names it
    tree: Optional[cst.Module]  # None: unreadable, too big, not UTF-8 or not parsable (its names stay unknown)


T = TypeVar("T")


class PerSource(Generic[T]):
    """What a layer above keeps with each module read, typed by its owner: kept while the module's entry
    is (an entry dropped from the table, or read again after a change, has none)."""

    __slots__ = ("_kept",)

    def __init__(self) -> None:
        self._kept: WeakKeyDictionary[Source, T] = WeakKeyDictionary()

    def get(self, source: Source) -> Optional[T]:
        return self._kept.get(source)

    def keep(self, source: Source, value: T) -> None:
        self._kept[source] = value


_TABLE: "OrderedDict[tuple[str, int, int], Source]" = OrderedDict()


def read_module(path: Path, max_size: int = DEFAULT_MAX_FILE_SIZE) -> Optional[Source]:
    """The module at `path`, parsed; None when the file cannot be read at all."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    stamp = (str(path), info.st_size, info.st_mtime_ns)
    found = _TABLE.get(stamp)
    if found is not None:
        _TABLE.move_to_end(stamp)
        return found
    try:
        with open(path, "rb") as stream:
            data = stream.read(max_size + 1)
    except OSError:
        return None
    digest = digest_of(data)
    tree = _parse(data) if len(data) <= max_size else None
    source = Source(path=path, digest=digest, tree=tree)
    _TABLE[stamp] = source
    while len(_TABLE) > MAX_TREES:
        _TABLE.popitem(last=False)
    return source


def parsed_before(path: str, data: bytes, real: Optional[str] = None) -> Optional[cst.Module]:
    """The tree of the file at `path` if these very bytes were parsed in this process (as an import); `real`:
    its real path, where the caller has it."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    found = _TABLE.get((real or os.path.realpath(path), info.st_size, info.st_mtime_ns))
    if found is None or found.tree is None or found.digest != digest_of(data):
        return None
    return found.tree


def keep_parsed(path: str, data: bytes, tree: cst.Module, real: Optional[str] = None) -> None:
    """A checked file's tree, for the files that import it (when `data` is what the file holds); `real`: as
    for parsed_before."""
    try:
        info = os.stat(path)
    except OSError:
        return
    real_path = Path(real or os.path.realpath(path))
    if info.st_size != len(data):
        return  # stdin, an unsaved editor buffer: not the file's own bytes
    stamp = (str(real_path), info.st_size, info.st_mtime_ns)
    digest = digest_of(data)
    if stamp not in _TABLE and digest_of(_read_bytes(real_path, len(data))) == digest:
        _TABLE[stamp] = Source(path=real_path, digest=digest, tree=tree)
        while len(_TABLE) > MAX_TREES:
            _TABLE.popitem(last=False)


def _read_bytes(path: Path, size: int) -> bytes:
    try:
        with open(path, "rb") as stream:
            return stream.read(size + 1)
    except OSError:
        return b""


def _parse(data: bytes) -> Optional[cst.Module]:
    if check_parsable(data) is not None:
        return None
    try:
        data.decode("utf-8-sig")
        return parse_module(data)
    except Exception:  # noqa: BLE001 - a module we cannot read is unknown, as a library is
        return None
