"""Many files: a content-hash cache, and worker processes for large trees."""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Optional, Sequence

from devlint import __version__
from devlint.engine import check_source
from devlint.findings import DECODE_ERROR, Finding, file_error
from devlint.rules import RULES_BY_CODE

CACHE_DIR = ".devlint_cache"
_PARALLEL_FROM = 24  # below this many files, starting processes costs more than it saves


def _rules_for(codes: Sequence[str]):
    return [RULES_BY_CODE[code]() for code in codes]


_worker_rules: Optional[list] = None


def _init_worker(codes: Sequence[str]) -> None:
    global _worker_rules
    _worker_rules = _rules_for(codes)


def _check_one(item: tuple[str, bytes]) -> list[dict]:
    path, source = item
    return [f.to_dict() for f in check_source(source, path, _worker_rules)]


def _code_fingerprint() -> str:
    """devlint's own files (sizes and times): an edited checkout never reads stale results."""
    package = Path(__file__).resolve().parent
    stats = []
    for path in sorted(package.rglob("*.py")):
        try:
            st = path.stat()
        except OSError:
            continue
        stats.append(f"{path.relative_to(package)}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.blake2b("|".join(stats).encode(), digest_size=8).hexdigest()


class Cache:
    """Findings by file content and rule set: an unchanged file is not analysed again."""

    def __init__(self, root: Path, codes: Sequence[str]) -> None:
        self.file = root / CACHE_DIR / f"v{__version__}.json"
        self.salt = ",".join(codes) + _code_fingerprint()
        self.entries: dict[str, list] = {}
        self.dirty = False
        try:
            self.entries = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.entries = {}

    def key(self, path: str, source: bytes) -> str:
        digest = hashlib.blake2b(source, digest_size=16)
        digest.update(self.salt.encode())
        digest.update(path.encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def get(self, key: str) -> Optional[list]:
        return self.entries.get(key)

    def put(self, key: str, findings: list) -> None:
        self.entries[key] = findings
        self.dirty = True

    def save(self, live_keys: set) -> None:
        if not self.dirty:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.file.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by devlint\n*\n", encoding="utf-8")
            kept = {k: v for k, v in self.entries.items() if k in live_keys} if len(self.entries) > 4 * len(
                live_keys) + 1000 else self.entries
            tmp = self.file.with_suffix(".tmp")
            tmp.write_text(json.dumps(kept), encoding="utf-8")
            os.replace(tmp, self.file)
        except OSError:
            pass  # a read-only tree: no cache, no complaint


def check_files(files: Sequence[str], codes: Sequence[str], jobs: int = 0, use_cache: bool = True,
                cache_root: Optional[Path] = None, progress: Optional[Callable[[int], None]] = None) -> list[Finding]:
    """Findings of every file; `progress(n)` is told each time n more files are done."""
    progress = progress or (lambda done: None)
    cache = Cache(cache_root or Path.cwd(), codes) if use_cache else None
    results: dict[str, list] = {}
    todo: list[tuple[str, bytes]] = []
    keys: dict[str, str] = {}
    read_errors: list[Finding] = []
    for path in files:
        try:
            source = Path(path).read_bytes()
        except OSError as exc:
            read_errors.append(file_error(DECODE_ERROR, path, 1, 1, f"cannot read file: {exc.strerror or exc}"))
            continue
        if cache is not None:
            key = keys[path] = cache.key(path, source)
            hit = cache.get(key)
            if hit is not None:
                results[path] = hit
                continue
        todo.append((path, source))
    progress(len(files) - len(todo))
    if jobs <= 0:
        jobs = min(os.cpu_count() or 1, 8) if len(todo) >= _PARALLEL_FROM else 1
    if jobs > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker, initargs=(list(codes),)) as pool:
            chunk = max(1, min(32, len(todo) // (jobs * 8) or 1))
            for (path, _), found in zip(todo, pool.map(_check_one, todo, chunksize=chunk)):
                results[path] = found
                progress(1)
    else:
        _init_worker(codes)
        for item in todo:
            results[item[0]] = _check_one(item)
            progress(1)
    if cache is not None:
        for path, _ in todo:
            cache.put(keys[path], results[path])
        cache.save(set(keys.values()))
    findings = [Finding.from_dict(d) for path in files if path in results for d in results[path]]
    return read_errors + findings
