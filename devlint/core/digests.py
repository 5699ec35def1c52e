"""The digest of a file's bytes: how the project's sources know a tree is current, and how the cache
knows an entry's imported modules are unchanged (kept apart from both, so the cache needs no parser)."""

from __future__ import annotations

import hashlib
from typing import Callable, Optional


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def file_digest(path: str) -> Optional[str]:
    """The digest of the file now (None if unreadable): a cache entry is stale when one it used differs."""
    try:
        with open(path, "rb") as stream:
            return digest_of(stream.read())
    except OSError:
        return None


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
    files = {}
    for line in text.splitlines():
        digest, _, path = line.partition(" ")
        if path:
            files[path] = digest
    return files


def closure_current(text: str, digest_now: Callable[[str], Optional[str]]) -> bool:
    """Is every file a closure entry names as it was (`digest_now(path)`: its digest now, None if unreadable)?"""
    return all(digest_now(path) == recorded for path, recorded in closure_files(text).items())
