"""Findings of unchanged files, kept between runs, in a place the linted code cannot reach.

Where: the user's cache folder (`$XDG_CACHE_HOME/devlint`, `~/.cache/devlint`,
`~/Library/Caches/devlint`, `%LOCALAPPDATA%\\devlint\\Cache`; `DEVLINT_CACHE_DIR`
overrides it), one file per project root (the nearest folder above the working
directory with a pyproject.toml, setup.py, setup.cfg or .git). devlint writes
nothing inside the tree it lints, so a repository cannot plant a symlink where
the cache writes, and a read-only checkout is linted the same.

How, in that folder too: folders made with mode 0700 and refused when they are
symlinks or belong to another user; the cache file read without following a
symlink and only if it is a regular file of sane size; written to a fresh
private temporary file in the checked folder, then renamed over the old one
(atomic: a concurrent run or a crash never leaves half a file; the last writer
wins, after merging what the other wrote). Anything unexpected inside (not JSON,
not an object, entries of the wrong shape) is a miss, never an error.

What: an entry per file content, path and rule set (its findings, or that the file names no device and
is skipped), and beside the entries each file's stat (size, mtime, inode) with the digest of its bytes.
A file whose stat is as recorded is not read again (as mypy and Ruff trust a stat): a warm run of an
unchanged tree reads no source file. A stat is recorded only when the file has not changed for a
while (a write within the same timestamp tick as the recording could go unseen otherwise); any other
change of size, time or inode reads the file and hashes it, and a touched file whose bytes are the same
is still a hit.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from devlint import __version__
from devlint.core.digests import CLOSURE_PREFIX, closure_current, digest_of, file_digest
from devlint.core.findings import Finding

# 2: an entry names the project modules its file imported (their digests), and is stale when one changed;
# 3: keyed by the digest of the file's bytes, skipped files have an entry, and files' stats are kept
# 4: an entry's closures (many files one result rests on, `CLOSURE_PREFIX`) are kept once, in their own table
_FORMAT = 4
_SETTLED_NS = 2_000_000_000  # a file changed less than this long ago may change again unseen in the same tick
_MAX_CACHE_BYTES = 256 * 1024 * 1024
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def user_cache_dir() -> Path:
    """`DEVLINT_CACHE_DIR`, else the platform's cache folder for devlint (platformdirs)."""
    override = os.environ.get("DEVLINT_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("devlint", appauthor=False))


def project_root(start: Path) -> Path:
    start = start.resolve()
    for folder in (start, *start.parents):
        if any((folder / marker).exists() for marker in _ROOT_MARKERS):
            return folder
    return start


def code_fingerprint() -> str:
    """devlint's own files (sizes and times): an edited checkout never reads stale results."""
    package = Path(__file__).resolve().parent.parent
    stats = []
    for path in sorted(package.rglob("*.py")):
        try:
            st = path.stat()
        except OSError:
            continue
        stats.append(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.blake2b("|".join(stats).encode(), digest_size=8).hexdigest()


def cache_key(salt: str, path: str, source: bytes) -> str:
    return key_of(salt, path, digest_of(source))


def key_of(salt: str, path: str, digest: str) -> str:
    """The entry of the file at `path` whose bytes have `digest`, for the rules and devlint in `salt`."""
    key = hashlib.blake2b(digest.encode(), digest_size=16)
    key.update(salt.encode())
    key.update(path.encode("utf-8", "surrogateescape"))
    return key.hexdigest()


def file_stat(path: str) -> Optional[os.stat_result]:
    try:
        return os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None


class Cache:
    """Findings by file content, path and rule set: an unchanged file is not analysed again."""

    def __init__(self, root: Path, codes: Sequence[str], folder: Optional[Path] = None) -> None:
        root = project_root(root)
        tag = hashlib.blake2b(str(root).encode("utf-8", "surrogateescape"), digest_size=6).hexdigest()
        self.folder = (folder or user_cache_dir()) / f"{root.name or 'root'}-{tag}"
        self.file = self.folder / f"v{__version__}.json"
        self.salt = ",".join(codes) + "|" + code_fingerprint()
        self.entries, self.stats, self.closures = _read_entries(self.file)
        self.new_closures: dict[str, str] = {}
        self._closures_current: dict[str, bool] = {}
        self.new: dict[str, dict] = {}
        self.new_stats: dict[str, list] = {}
        self.seen: set[str] = set()  # the paths whose stat this run looked at
        self._digests: dict[str, Optional[str]] = {}

    def key_of(self, path: str, digest: str) -> str:
        return key_of(self.salt, path, digest)

    def stored_digest(self, path: str) -> Optional[str]:
        """The digest of the file's bytes as recorded, if its stat is still the one recorded; else None."""
        self.seen.add(path)
        record = self.stats.get(path)
        if not isinstance(record, list) or len(record) != 4 or not isinstance(record[3], str):
            return None
        info = file_stat(path)
        if info is None or [info.st_size, info.st_mtime_ns, info.st_ino] != record[:3]:
            return None
        return record[3]

    def saw(self, path: str, info: Optional[os.stat_result], digest: str) -> None:
        """The file had this stat (taken before its bytes were read) and its bytes this digest."""
        self.seen.add(path)
        if info is None or info.st_mtime_ns > time.time_ns() - _SETTLED_NS:
            return  # unknown, or changed so recently that a change in the same tick would keep this stat
        record = [info.st_size, info.st_mtime_ns, info.st_ino, digest]
        if self.stats.get(path) != record:
            self.new_stats[path] = self.stats[path] = record

    def skipped(self, key: str) -> bool:
        """The file with this key names no device: the run skips it without reading it."""
        entry = self.entries.get(key)
        return isinstance(entry, dict) and entry.get("skipped") is True

    def put_skipped(self, key: str) -> None:
        if not self.skipped(key):
            self.new[key] = self.entries[key] = {"skipped": True}

    def get(self, key: str, path: str, checked: Optional[dict] = None) -> Optional[list[Finding]]:
        """The findings stored for `key`, or None: a miss for anything not exactly as this version writes it.
        `checked`: the run's files (real paths), some of which the stored findings may be about."""
        entry = self.entries.get(key)
        if not isinstance(entry, dict) or not isinstance(entry.get("findings"), list) \
                or not isinstance(entry.get("used"), dict):
            return None
        if any(not isinstance(used, str) or not self._current(used, digest) for used, digest in entry["used"].items()):
            return None  # a module it imported has changed: what it found there may have too
        if sorted(used for used in entry["used"] if used in (checked or {})) != entry.get("reported"):
            return None  # the modules checked beside it are others: findings in them come and go
        try:
            findings = [Finding.from_dict(item) for item in entry["findings"]]
        except (TypeError, KeyError, ValueError, AttributeError):
            return None
        if not all(_well_formed(f, path) for f in findings):
            return None
        return findings

    def _current(self, used: str, digest: object) -> bool:
        """Is the file (or every file of the closure) an entry used as it was?"""
        if not used.startswith(CLOSURE_PREFIX):
            return self._digest(used) == digest
        if used not in self._closures_current:
            text = self.closures.get(used)
            self._closures_current[used] = isinstance(text, str) and closure_current(text, self._digest)
        return self._closures_current[used]

    def _digest(self, path: str) -> Optional[str]:
        """The digest of an imported module now, found once per run (many files import the same modules):
        as recorded when its stat is, else read."""
        if path not in self._digests:
            digest = self.stored_digest(path)
            if digest is None:
                info = file_stat(path)
                digest = file_digest(path)
                if digest is not None:
                    self.saw(path, info, digest)
            self._digests[path] = digest
        return self._digests[path]

    def put(self, key: str, findings: list[Finding], used: Optional[dict] = None,
            checked: Optional[dict] = None) -> None:
        used = dict(used or {})
        for name in [name for name in used if name.startswith(CLOSURE_PREFIX)]:
            self.new_closures[name] = self.closures[name] = used[name]  # kept once, named by its id
            used[name] = ""
        self.new[key] = {"findings": [f.to_record() for f in findings], "used": used,
                         "reported": sorted(path for path in used if path in (checked or {}))}

    def save(self, live_keys: set[str]) -> None:
        if not self.new and not self.new_stats:
            return
        if not _private_folder(self.folder):
            return  # no safe place to write: no cache, no complaint
        on_disk, stats_on_disk, closures_on_disk = _read_entries(self.file)
        entries = {**on_disk, **self.entries, **self.new}  # a concurrent run's entries survive
        if len(entries) > 4 * len(live_keys) + 1000:
            entries = {k: v for k, v in entries.items() if k in live_keys}
        stats = {**stats_on_disk, **self.stats, **self.new_stats}
        if len(stats) > 4 * len(self.seen) + 1000:
            stats = {k: v for k, v in stats.items() if k in self.seen}
        closures = {**closures_on_disk, **self.closures, **self.new_closures}
        named = {name for entry in entries.values() if isinstance(entry, dict) and isinstance(entry.get("used"), dict)
                 for name in entry["used"] if name.startswith(CLOSURE_PREFIX)}
        closures = {name: text for name, text in closures.items() if name in named}  # none an entry no longer names
        data = json.dumps({"format": _FORMAT, "entries": entries, "stats": stats, "closures": closures}).encode("utf-8")
        try:
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=".json")
        except OSError:
            return
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, self.file)  # replaces a symlink itself, never writes through it
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _well_formed(finding: Finding, path: str) -> bool:
    # a finding may be on another file of the run: a helper of the project given this file's GPU tensor
    return (isinstance(finding.path, str) and isinstance(finding.code, str) and isinstance(finding.message, str)
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                    for n in (finding.line, finding.column, finding.end_line, finding.end_column))
            and finding.severity in ("error", "warning", "info") and isinstance(finding.name, str)
            and (finding.fix is None or isinstance(finding.fix, str))
            and all(isinstance(step, str) for step in finding.why)
            and (not finding.places or len(finding.places) == len(finding.why))
            and all(len(place) == 3 and isinstance(place[0], str) and type(place[1]) is int
                    and (place[2] is None or type(place[2]) is int) for entry in finding.places for place in entry))


def _read_entries(file: Path) -> tuple[dict[str, dict], dict[str, list], dict[str, str]]:
    """The cache's entries, files' stats and closures, or empty for a missing, foreign, oversized or malformed
    file."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        if not _private_folder(file.parent, create=False):
            return {}, {}, {}
        handle = os.open(file, flags)
    except OSError:
        return {}, {}, {}
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_CACHE_BYTES:
            return {}, {}, {}
        with os.fdopen(handle, "rb") as stream:
            handle = -1
            data = json.loads(stream.read(_MAX_CACHE_BYTES + 1))
    except (OSError, ValueError, RecursionError, MemoryError):
        return {}, {}, {}
    finally:
        if handle >= 0:
            os.close(handle)
    if not isinstance(data, dict) or data.get("format") != _FORMAT or not isinstance(data.get("entries"), dict):
        return {}, {}, {}
    stats, closures = data.get("stats"), data.get("closures")
    return data["entries"], stats if isinstance(stats, dict) else {}, closures if isinstance(closures, dict) else {}


def _private_folder(folder: Path, create: bool = True) -> bool:
    """True when `folder` is a real folder of this user (made with mode 0700 if missing and `create`)."""
    if create:
        for part in reversed([folder, *folder.parents]):
            if part.exists() or part.is_symlink():
                continue
            try:
                part.mkdir(mode=0o700)
            except FileExistsError:
                pass
            except OSError:
                return False
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode):
        return False  # a symlink (or a file) where the cache folder should be
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()
