"""Which project modules run with a GPU or not at all, from their top-level imports alone.

A module whose top level imports a CUDA-only library (`import triton`), a compiled CUDA extension
(`import fused_adam_cuda`, `from . import fused_dense_cuda`) or a project module that does, cannot be
imported without a GPU: what imports it runs with one. This is read from the import lines at column 0 of
each file (unconditional: an import under `try:` or `if` is indented), over the whole import graph: the
same answer whatever order the files are checked in and however deep the walks went (a walk's bounds
once made it depend on what earlier files had walked, so `-j 2` could differ from `-j 1`).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, NamedTuple, Optional

from devlint.core.digests import closure_entry, digest_of
from devlint.core.limits import DEFAULT_MAX_FILE_SIZE
from devlint.core.torch_catalogue import views as api

if TYPE_CHECKING:
    from devlint.static.analysis.project_imports import ProjectImports
    from devlint.static.project.layout import Target

_FROM = re.compile(rb"^from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w \t,]*)", re.M)
_IMPORT = re.compile(rb"^import[ \t]+([\w., \t]+)", re.M)
# `fused = load("fused", sources=[..., "kernel.cu"])` at column 0 (torch.utils.cpp_extension): the statement runs
# up to the next line that starts at column 0 with a name
_JIT_LOAD = re.compile(rb"^[\w.]+[ \t]*=[ \t]*(?:[\w.]+\.)?load(?:_inline)?[ \t]*\(", re.M)
_STATEMENT_END = re.compile(rb"\n(?=[A-Za-z_@])")
_CUDA_SOURCE = re.compile(rb"\.cuh?['\"]|\b" + api.CUDA_SOURCES_KEYWORD.encode() + rb"[ \t]*=")
_MAX_MODULES = 5000  # a search visits at most this many modules (a hostile project cannot make it run long)
_MAX_SCANS = 20000


class _Scan(NamedTuple):
    digest: str
    froms: list[tuple[int, str, list[str]]]  # (dots, module, names) of each `from ... import ...` at column 0
    plain: list[str]  # the modules of each `import ...` at column 0
    jit_cuda: bool  # it builds an extension from CUDA sources at its top level


class _Answer(NamedTuple):
    gpu: bool
    read: tuple[str, ...]  # the files it rests on (a cache entry that took it depends on them)


# (path, size, mtime) -> its scan; and per run (the run's `checked` table) path -> answer
_SCANS: dict[tuple[str, int, int], Optional[_Scan]] = {}
_RUN: list[object] = [None, {}]
_CLOSURES: dict[int, tuple[tuple[str, ...], tuple[str, str]]] = {}  # id(answer.read) -> (it, its used entry)


def requires_gpu(project: ProjectImports, target: Target) -> bool:
    """Does importing `target` need a GPU: it, or a project module it imports at its top level (and so on),
    imports a CUDA-only library or extension? The files the answer rests on are recorded as read."""
    if target.file is None:
        return False
    answers = _answers(project)
    start = str(target.file)
    answer = answers.get(start) or _search(project, start, answers)
    key, text = _closure(answer)
    project.used[key] = text
    return answer.gpu


def _closure(answer: _Answer) -> tuple[str, str]:
    """The `used` entry that stands for the files an answer rests on (many answers share one search's)."""
    found = _CLOSURES.get(id(answer.read))
    if found is None or found[0] is not answer.read:
        files = {path: scan.digest for path, scan in ((p, _scan(p)) for p in answer.read) if scan is not None}
        found = _CLOSURES[id(answer.read)] = (answer.read, closure_entry(files))
    return found[1]


def _answers(project: ProjectImports) -> dict[str, _Answer]:
    if _RUN[0] is not project.checked:
        _RUN[:] = [project.checked, {}]
        _CLOSURES.clear()
    return _RUN[1]  # type: ignore[return-value]


def _search(project: ProjectImports, start: str, answers: dict[str, _Answer]) -> _Answer:
    """Depth first over the imports from `start`: the first module that needs a GPU answers for every module
    on the way to it; a search that finds none answers for every module it saw (what they reach, it saw)."""
    stack: list[tuple[str, Iterator[str]]] = [(start, _imported_files(project, start))]
    visited = {start}
    behind: set[str] = set()  # what the modules known not to need a GPU rest on
    while stack:
        path, deps = stack[-1]
        known = answers.get(path)
        if (known is not None and known.gpu) or _own_gpu_import(project, path):
            way = tuple(p for p, _ in stack) + (known.read if known is not None else ())
            for on_way, _ in stack:
                answers[on_way] = _Answer(True, way)
            return answers[start]
        following = next(deps, None)
        if following is None:
            stack.pop()
        elif following not in visited and len(visited) < _MAX_MODULES:
            visited.add(following)
            known = answers.get(following)
            if known is None or known.gpu:
                stack.append((following, _imported_files(project, following)))
            else:
                behind.update(known.read)
    seen = tuple(sorted(visited | behind))
    answer = _Answer(False, seen)
    if len(visited) < _MAX_MODULES:
        for path in visited:
            answers[path] = answer
    return answer


def _scan(path: str) -> Optional[_Scan]:
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None  # a FIFO named `m.py` would block the read
    stamp = (path, info.st_size, info.st_mtime_ns)
    if stamp not in _SCANS:
        if len(_SCANS) >= _MAX_SCANS:
            _SCANS.clear()
        try:
            with open(path, "rb") as stream:
                data = stream.read(DEFAULT_MAX_FILE_SIZE + 1)
        except OSError:
            return None
        froms = [(len(m.group(1)), m.group(2).decode(errors="replace"),
                  [n.split()[0] for n in m.group(3).decode(errors="replace").split(",") if n.split()])
                 for m in _FROM.finditer(data)]
        plain = [part.split()[0] for m in _IMPORT.finditer(data)
                 for part in m.group(1).decode(errors="replace").split(",") if part.split()]
        _SCANS[stamp] = _Scan(digest_of(data), froms, plain, _builds_cuda_extension(data))
    return _SCANS[stamp]


def _builds_cuda_extension(data: bytes) -> bool:
    """Does the module's top level build an extension from CUDA sources when imported (stylegan2's `op`
    package: `fused = load("fused", sources=[..."fused_bias_act_kernel.cu"])`)? Without a CUDA toolkit the
    import fails, as an import of a compiled CUDA extension does."""
    if b"cpp_extension" not in data:
        return False
    for match in _JIT_LOAD.finditer(data):
        end = _STATEMENT_END.search(data, match.end())
        if _CUDA_SOURCE.search(data, match.end(), end.start() if end is not None else len(data)):
            return True
    return False


def _own_gpu_import(project: ProjectImports, path: str) -> bool:
    scan = _scan(path)
    if scan is None:
        return False
    if scan.jit_cuda or project.builds_cuda_kernels(Path(path)):
        return True  # (a module of a package whose setup.py builds CUDA kernels only: Pointcept's `libs/`)
    where = Path(path)
    for module in scan.plain:
        if module.split(".")[0] in api.CUDA_ONLY_LIBRARIES or (
                api.is_cuda_extension(module) and project.resolve(module, 0, where) is None) \
                or _project_cuda_package(project, module, where):
            return True
    for level, module, names in scan.froms:
        if not level and (module.split(".")[0] in api.CUDA_ONLY_LIBRARIES
                          or _project_cuda_package(project, module, where)):
            return True
        if level and not module and any(api.is_cuda_extension(name) and project.resolve(name, level, where) is None
                                        for name in names):
            return True  # `from . import fused_dense_cuda`: no Python module there, the compiled one
    return False


def _project_cuda_package(project: ProjectImports, module: str, where: Path) -> bool:
    """`import pointops`: a package no import root holds, built by a setup.py of the project with CUDA kernels."""
    top = module.split(".")[0]
    return project.resolve(top, 0, where) is None and project.cuda_only_package(top)


def _imported_files(project: ProjectImports, path: str) -> Iterator[str]:
    """The files of the project modules `path` imports at its top level."""
    scan = _scan(path)
    if scan is None:
        return
    where = Path(path)
    for level, module, names in scan.froms:
        target = project.resolve(module, level, where)
        if target is not None and target.file is not None:
            yield str(target.file)
        for name in names:  # `from pkg import kernels`: a submodule
            sub = project.resolve(f"{module}.{name}" if module else name, level, where)
            if sub is not None and sub.file is not None:
                yield str(sub.file)
    for module in scan.plain:
        found = project.resolve(module, 0, where)
        if found is not None and found.file is not None:
            yield str(found.file)
