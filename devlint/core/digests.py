"""The digest of a file's bytes: how the project's sources know a tree is current, and how the cache
knows an entry's imported modules are unchanged (kept apart from both, so the cache needs no parser)."""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from typing import Callable, Optional

# path -> (size, mtime_ns, digest) of the files digested in this process: a whole-project run asks for the
# same imported files' digests once per checked file (Lightning: 95,620 asks of a few hundred files), and a
# stat is a tenth of a read and a hash. Bounded: cleared when full.
_BY_STAMP: dict[str, tuple[int, int, Optional[str]]] = {}
_MOST_STAMPS = 1 << 16


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def file_digest(path: str) -> Optional[str]:
    """The digest of the file now (None if unreadable): a cache entry is stale when one it used differs."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    known = _BY_STAMP.get(path)
    if known is not None and known[:2] == (info.st_size, info.st_mtime_ns):
        return known[2]
    try:
        with open(path, "rb") as stream:
            digest = digest_of(stream.read())
    except OSError:
        return None
    if len(_BY_STAMP) >= _MOST_STAMPS:
        _BY_STAMP.clear()
    _BY_STAMP[path] = (info.st_size, info.st_mtime_ns, digest)
    return digest


# A `used` entry (path -> digest of each file a result rests on) may stand for many files at once: its key is
# this prefix and the closure's id, its value the files' digests and paths, one `DIGEST PATH` per line (a search
# over the whole import graph rests on every file it read; the cache keeps each closure once).
CLOSURE_PREFIX = "closure:"


def closure_entry(files: dict[str, str]) -> tuple[str, str]:
    """The `used` entry (key, value) that stands for `files` (path -> digest)."""
    text = "\n".join(f"{digest} {path}" for path, digest in sorted(files.items()))
    return CLOSURE_PREFIX + digest_of(text.encode("utf-8", "surrogateescape")), text


def closure_files(text: str) -> dict[str, str]:
    """The files (path -> digest) a closure entry's value names."""
    return dict(_closure_pairs(text))


@lru_cache(maxsize=1024)  # a whole-project run checks the same few closures once per checked file
def _closure_pairs(text: str) -> tuple[tuple[str, str], ...]:
    pairs = []
    for line in text.splitlines():
        digest, _, path = line.partition(" ")
        if path:
            pairs.append((path, digest))
    return tuple(pairs)


def closure_current(text: str, digest_now: Callable[[str], Optional[str]]) -> bool:
    """Is every file a closure entry names as it was (`digest_now(path)`: its digest now, None if unreadable)?"""
    return all(digest_now(path) == recorded for path, recorded in _closure_pairs(text))
