"""Many files: skip those that cannot hold a device bug, reuse cached findings, analyse the rest.

Large trees are analysed in worker processes (devlint.cli.workers), biggest files
first; a file that crashes or hangs its worker costs only its own findings.
"""

from __future__ import annotations

import gc
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence, Union

from devlint.cli.cache import Cache, cache_key, file_stat
from devlint.cli.discovery import real_paths
from devlint.core.digests import digest_of
from devlint.core.deep_stack import DEEP_STACK
from devlint.core.findings import (
    DECODE_ERROR, INTERNAL_ERROR, TOO_COMPLEX, Finding, answer_guesses, file_error, file_too_big, placement,
)
from devlint.core.limits import DEFAULT_MAX_FILE_SIZE, MAX_FILE_SECONDS, NOTEBOOK_SIZE_FACTOR
from devlint.static.relevance import may_hold_device_bug
from devlint.static.rule_index import merge_findings

_PARALLEL_FROM = 24  # below this many files, starting processes costs more than it saves
_SCAN_BLOCK = 1 << 20


@dataclass
class RunStats:
    """What a run did with the files it was given."""

    analysed: int = 0
    cached: int = 0
    skipped: int = 0  # no mention of torch, CUDA or a device: not parsed


def check_files(files: Sequence[str], codes: Sequence[str], jobs: int = 0, use_cache: bool = True,
                cache_root: Optional[Path] = None, progress: Optional[Callable[[int], None]] = None,
                max_file_size: int = DEFAULT_MAX_FILE_SIZE, stats: Optional[RunStats] = None,
                isolated: bool = False, cache_dir: Optional[Path] = None,
                checked: Optional[dict] = None) -> list[Finding]:
    """Findings for `files`, in the order given. Never raises for a bad file.

    `progress(n)` is told each time n more files are done; `stats` counts what was analysed, cached, skipped.
    Each file sees the project's modules it imports, unless `isolated` (each file alone); `checked`
    (real path -> path as reported) names the files of the whole run, where a finding may be reported.
    """
    progress = progress or (lambda done: None)
    if checked is None:
        checked = {} if isolated else real_paths(files)
    stats = stats if stats is not None else RunStats()
    cache = Cache(cache_root or Path.cwd(), codes, folder=cache_dir) if use_cache else None
    results: dict[str, list[Finding]] = {}
    live_keys: set[str] = set()
    todo: list[str] = []
    sizes: list[int] = []
    for path in files:
        kind, found = _look_up(path, cache, max_file_size, live_keys, checked)
        if kind == _SKIPPED:
            stats.skipped += 1
        elif kind == _TO_CHECK:
            todo.append(path)
            sizes.append(found)
        else:
            results[path] = found
            stats.cached += kind == _CACHED
    stats.analysed = len(todo)
    progress(len(files) - len(todo))
    salt = cache.salt if cache is not None else None

    def store(path: str, key: Optional[str], findings: list[Finding], used: Optional[dict] = None) -> None:
        results[path] = findings
        progress(1)
        if cache is not None and key is not None:
            cache.put(_remember(live_keys, key), findings, used, checked)

    if jobs <= 0:
        jobs = min(_usable_cpus(), 8) if len(todo) >= _PARALLEL_FROM else 1
    if jobs > 1 and len(todo) > 1:
        _check_in_workers(todo, sizes, jobs, (list(codes), salt, max_file_size, isolated, checked), store)
    elif todo:  # every file a cache hit: the analysis (and libcst) is not even imported
        check = _file_checker(list(codes), salt, max_file_size, isolated, checked)
        for path in todo:
            store(path, *check(path))
    if cache is not None:
        cache.save(live_keys)
    return merge_findings(answer_guesses([f for path in files if path in results for f in results[path]]))


_SKIPPED, _TO_CHECK, _CACHED, _UNREADABLE = "skipped", "to check", "cached", "unreadable"


def _look_up(path: str, cache: Optional[Cache], max_file_size: int, live_keys: set[str],
             checked: dict) -> tuple[str, Any]:
    """What the run does with a file: (_SKIPPED, None), (_TO_CHECK, its size), (_CACHED, its findings) or
    (_UNREADABLE, [the finding that says so]). A file whose stat the cache recorded is not read."""
    if cache is not None:
        digest = cache.stored_digest(path)
        if digest is not None:
            known = _known(cache, _remember(live_keys, cache.key_of(path, digest)), path, checked)
            if known is not None:
                return known
    info = file_stat(path) if cache is not None else None  # taken before the read: a change after it is seen
    read = _read_bytes(path, max_file_size)
    if isinstance(read, Finding):
        return _UNREADABLE, [read]
    if read is None:
        return _SKIPPED, None
    source, relevant = read
    if cache is None:
        return (_TO_CHECK, len(source)) if relevant else (_SKIPPED, None)
    digest = digest_of(source)
    cache.saw(path, info, digest)
    key = _remember(live_keys, cache.key_of(path, digest))
    if not relevant:
        cache.put_skipped(key)
        return _SKIPPED, None
    return _known(cache, key, path, checked) or (_TO_CHECK, len(source))


def _known(cache: Cache, key: str, path: str, checked: dict) -> Optional[tuple[str, Any]]:
    if cache.skipped(key):
        return _SKIPPED, None
    hit = cache.get(key, path, checked)
    return (_CACHED, hit) if hit is not None else None


def _usable_cpus() -> int:
    """The CPUs this process may run on (a container's share, not the host's count)."""
    if hasattr(os, "process_cpu_count"):
        return os.process_cpu_count() or 1
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _remember(keys: set[str], key: str) -> str:
    keys.add(key)
    return key


def _check_in_workers(todo: list[str], sizes: list[int], jobs: int, setup_args: tuple,
                      store: Callable[[str, Optional[str], list[Finding]], None]) -> None:
    done: set[int] = set()

    def found(index: int, result: tuple) -> None:
        done.add(index)
        store(todo[index], *result)

    def lost(index: int, why: str, timed_out: bool) -> None:
        done.add(index)
        path = todo[index]
        code = TOO_COMPLEX if timed_out else INTERNAL_ERROR
        store(path, None, [file_error(code, path, 1, 1, f"not analysed: {why} (every other file was checked)")])

    from devlint.cli.workers import chunks_biggest_first, run_jobs  # multiprocessing: only where workers run

    DEEP_STACK.stop()  # no thread of ours in a process that forks its workers
    chunks = chunks_biggest_first([(i, path) for i, path in enumerate(todo)], sizes, jobs)
    try:
        run_jobs(chunks, jobs, _file_checker, setup_args, found, lost, file_timeout=MAX_FILE_SECONDS)
    except OSError:  # no process could be started (a process limit): the rest in this one
        check = _file_checker(*setup_args)
        for index in [i for i in range(len(todo)) if i not in done]:
            found(index, check(todo[index]))


def _file_checker(codes: list[str], salt: Optional[str], max_file_size: int, isolated: bool = False,
                  checked: Optional[dict] = None):
    """path -> (cache key of what was read, findings, the project's modules it read and their digests):
    the same in a worker and in this process."""
    from devlint.static.engine import check_source  # libcst and the analysis: only when a file is analysed
    from devlint.static.rules import RULES_BY_CODE

    rules = [RULES_BY_CODE[code]() for code in codes]

    def check(path: str) -> tuple[Optional[str], list[Finding], dict]:
        source = _read(path, max_file_size)
        if isinstance(source, Finding):
            return None, [source], {}
        if source is None:
            return None, [], {}
        key = cache_key(salt, path, source) if salt is not None else None
        # libcst's trees hold no cycles: a collection during the parse only rescans them (30% of the time).
        was_enabled = gc.isenabled()
        gc.disable()
        used: dict = {}
        placed: list[tuple[str, int, int, bool]] = []
        try:
            findings = check_source(source, path, rules, max_file_size=max_file_size, isolated=isolated, used=used,
                                    checked=checked, placements=placed)
            return key, findings + [placement(*where) for where in dict.fromkeys(placed)], used
        finally:
            if was_enabled:
                _collect_young()
                gc.enable()

    return check


def _collect_young() -> None:
    """After a file: its cyclic garbage is collected, and what outlives it (trees, walks kept for the next
    files) is frozen, never scanned again. A collection scanned them all, once per file or so: 15% of a
    whole-project run. They are kept, or dropped as trees are, by reference counts, which freezing leaves."""
    gc.collect(0)
    gc.freeze()


def _read(path: str, max_file_size: int) -> Union[bytes, Finding, None]:
    """The file's bytes; a finding if it cannot be read or is too big to parse; None if it cannot hold a device bug."""
    read = _read_bytes(path, max_file_size)
    if isinstance(read, tuple):
        return read[0] if read[1] else None
    return read


def _read_bytes(path: str, max_file_size: int) -> Union[tuple[bytes, bool], Finding, None]:
    """(the file's bytes, whether they may hold a device bug); a finding if it cannot be read or is too big to
    parse; None if it is too big and names no device."""
    limit = max_file_size * (NOTEBOOK_SIZE_FACTOR if path.endswith(".ipynb") else 1)
    try:
        with open(path, "rb") as stream:
            source = stream.read(limit + 1)
            if len(source) <= limit:
                return source, may_hold_device_bug(source)
            size = len(source)
            relevant = may_hold_device_bug(source)
            while block := stream.read(_SCAN_BLOCK):  # bounded memory: look for a device mention block by block
                relevant = relevant or may_hold_device_bug(source[-16:] + block)
                source, size = block, size + len(block)
            return file_too_big(path, size, limit) if relevant else None
    except OSError as exc:
        return file_error(DECODE_ERROR, path, 1, 1, f"cannot read file: {exc.strerror or exc}")
