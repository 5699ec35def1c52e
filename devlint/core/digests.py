"""The digest of a file's bytes: how the project's sources know a tree is current, and how the cache
knows an entry's imported modules are unchanged (kept apart from both, so the cache needs no parser)."""

from __future__ import annotations

import hashlib
from typing import Optional


def digest_of(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def file_digest(path: str) -> Optional[str]:
    """The digest of the file now (None if unreadable): a cache entry is stale when one it used differs."""
    try:
        with open(path, "rb") as stream:
            return digest_of(stream.read())
    except OSError:
        return None
