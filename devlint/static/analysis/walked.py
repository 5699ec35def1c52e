"""A project module's top level is walked once per process, not once per file that imports it.

Walking an imported module adds to the walk's tables (its functions, classes, their scopes and the
names each function sees); what one walk added is kept with the parsed module (a `PerSource` of devlint.
static.project.sources) and replayed into the next checked file's walk, after the modules it imported.
A walk that met an import cycle or the nesting bound depended on the walk around it: it is kept with what
it met (`Seen`: the modules loading around it that it saw as unknown, the depth it began at if the bound
cut an import) and replayed only where that holds again, its deps looked up at its depth, its own module
loading, so what they meet is met again. One that met the module bound or the checked file is not kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional, TypeVar, cast

from devlint.core.digests import CLOSURE_PREFIX, closure_current, file_digest
from devlint.static.analysis.project_imports import Seen
from devlint.static.project.sources import PerSource, read_module

if TYPE_CHECKING:
    from devlint.core.values import Value
    from devlint.static.analysis.project_imports import ProjectImports
    from devlint.static.analysis.walker import Walker
    from devlint.static.project.layout import Target
    from devlint.static.project.sources import Source

# The walk's tables a module's top level adds to: (owner, attribute) pairs, dicts then sets.
_DICTS = (("tables", "functions"), ("tables", "classes"), ("tables", "closures"), ("tables", "enclosing"),
          ("prepass", "scopes"), ("prepass", "consumers"), ("project", "module_file"), ("project", "targets"))
_SETS = (("tables", "guarded_classes"), ("tables", "defined_guarded"), ("project", "foreign_functions"))


@dataclass
class Walked:
    env: Optional[dict[str, Value]]  # the names the module binds
    deps: tuple[Target, ...]  # the project modules it imported, replayed first
    used: dict[str, str]  # path -> digest of every module its walk read: valid while they are unchanged
    envs: dict[str, Optional[dict[str, Value]]]  # Target.key -> names, of the modules walked inside its walk
    # per table of _DICTS: the entries added; per table of _SETS: the members added (each table holds its own
    # kinds, read back into it only: object)
    dicts: tuple[dict[object, object], ...]
    sets: tuple[set[object], ...]
    seen: Optional[Seen] = None  # None: it met nothing of the walk around it, and holds where its reach fits
    # its reach: how much deeper than its module its imports went, and how many modules it walked (itself too):
    # a walk that met nothing holds where the bounds leave that much room
    height: int = 0
    size: int = 0


# per project module read: what walking its top level gave, replayed for the next importer
_WALKED: PerSource[Walked] = PerSource()
# per project module read: walks of it that met their context (`Seen`), the latest last
_SEEN: PerSource[list[Walked]] = PerSource()
_MOST_SEEN = 16  # such walks kept per module (Lightning: 1,335 walks with 4 kept, 870 with 16; 7% more memory)

K = TypeVar("K")
V = TypeVar("V")


def met_cycle(project: ProjectImports, key: str) -> None:
    """A walk saw module `key` as unknown: loading (a cycle), or left unknown by its walk."""
    if key not in project.loading:
        met(project, opaque=True)
        return
    index = project.loading.index(key)
    for seen in project.seen:
        if seen.depth > index:  # walks inside `key`'s own walk saw it from outside
            seen.assumed.add(key)


def met(project: ProjectImports, cut: bool = False, counted: bool = False, opaque: bool = False) -> None:
    """A bound (or the checked file) left an import unknown, in every walk in progress."""
    for seen in project.seen:
        seen.cut = seen.cut or cut
        seen.counted = seen.counted or counted
        seen.opaque = seen.opaque or opaque


def _tables(interp: Walker, project: ProjectImports) -> dict[str, object]:
    return {"tables": interp.tables, "prepass": interp.tables.prepass, "project": project}


def record(interp: Walker, project: ProjectImports, target: Target, source: Source,
           walk: Callable[[], dict[str, Value]]) -> Optional[dict[str, Value]]:
    """Walk `target`'s top level (`walk`), keeping what it added to the tables with `source` for later files."""
    owners = _tables(interp, project)
    sizes = [len(getattr(owners[o], a)) for o, a in _DICTS]
    before = [set(getattr(owners[o], a)) for o, a in _SETS]
    envs_before, used_before, tainted = len(project.envs), dict(project.used), project.tainted
    project.deps.append([])
    project.seen.append(Seen(depth=len(project.loading), count=envs_before))
    project.tainted = False
    try:
        env = walk()
    finally:
        deps = project.deps.pop()
        seen = project.seen.pop()
        if project.seen:  # what it reached, the walk around it reached
            project.seen[-1].deepest = max(project.seen[-1].deepest, seen.deepest)
        kept = not project.tainted
        project.tainted = project.tainted or tainted
    if kept or not seen.opaque:
        walked = Walked(
            env=env, deps=tuple(deps),
            used={p: d for p, d in project.used.items() if p not in used_before or p == str(target.file)},
            envs=dict(islice(project.envs.items(), envs_before, None)),
            dicts=tuple(dict(islice(getattr(owners[o], a).items(), n, None)) for (o, a), n in zip(_DICTS, sizes)),
            sets=tuple(getattr(owners[o], a) - b for (o, a), b in zip(_SETS, before)),
            seen=None if kept else seen, height=max(seen.deepest - seen.depth, 0),
            size=len(project.envs) - envs_before)
        if kept:
            _WALKED.keep(source, walked)
        else:
            _SEEN.keep(source, ((_SEEN.get(source) or [])[-_MOST_SEEN + 1:]) + [walked])
    return env


def trusted(source: Source, project: ProjectImports, room: Callable[[Walked, bool, bool], bool]) -> Optional[Walked]:
    """What an earlier walk of the module at `source` added, if every module it read is unchanged and,
    for one that met the walk around it, this walk meets the same. A bound it did not meet, it must not meet
    here either: `room(walked, deep, wide)` says whether the nesting (`deep`) and module (`wide`) bounds leave
    its reach room from here."""
    walked = _WALKED.get(source)
    if walked is not None and room(walked, True, True) and _unchanged(walked, project):
        return walked
    loading = set(project.loading)
    kept = _SEEN.get(source) or []
    for index in range(len(kept) - 1, -1, -1):
        walked = kept[index]
        seen = cast(Seen, walked.seen)  # kept in _SEEN: it met something
        if seen.assumed <= loading and (seen.depth == len(project.loading) if seen.cut else True) \
                and loading.isdisjoint(walked.envs) and (not seen.counted or _counts_alike(project, walked)) \
                and room(walked, not seen.cut, not seen.counted) and _unchanged(walked, project):
            kept.append(kept.pop(index))  # the last one dropped is the one least recently met again
            return walked
    return None


def _counts_alike(project: ProjectImports, walked: Walked) -> bool:
    """Would the module bound cut this walk where it cut that one? From as many modules, none walked yet
    of those it walked, it walks them again one by one."""
    return len(project.envs) + 1 == cast(Seen, walked.seen).count and project.envs.keys().isdisjoint(walked.envs)


def replay(interp: Walker, project: ProjectImports, target: Target, walked: Walked) -> None:
    """Give this file's walk what an earlier walk of `target` added (`trusted`), after the modules it
    imported (`walked.deps`: the caller walks or replays them first)."""
    owners = _tables(interp, project)
    for (owner, attribute), added in zip(_DICTS, walked.dicts):
        _add_missing(getattr(owners[owner], attribute), added)  # this file's own (a class of the same name) wins
    for (owner, attribute), members in zip(_SETS, walked.sets):
        getattr(owners[owner], attribute).update(members)
    _add_missing(project.envs, walked.envs)
    project.envs[target.key] = walked.env
    project.used.update(walked.used)


def _add_missing(table: dict[K, V], added: dict[K, V]) -> None:
    """`added`'s entries whose keys `table` lacks, in their order (as `setdefault` one by one; most often
    none is there: one update)."""
    if table.keys().isdisjoint(added):
        table.update(added)
        return
    for key, value in added.items():
        if key not in table:
            table[key] = value


def _unchanged(walked: Walked, project: ProjectImports) -> bool:
    """Are the modules `walked` read as they were? Each module's digest is looked up once per checked file:
    a replay looks up its deps, whose walks read most of the same modules (a stat each, a parse where the
    tree was dropped)."""
    if id(walked) in project.verified:  # a later object may take a dropped one's id: made since, so current
        return True
    for path, digest in walked.used.items():
        if path.startswith(CLOSURE_PREFIX):  # files whose import lines were read, not parsed: their bytes
            if not _closure_now(project, path, digest):
                return False
        elif _digest_now(project, path) != digest:
            return False
    project.verified.add(id(walked))
    return True


def _closure_now(project: ProjectImports, key: str, text: str) -> bool:
    """Is every file of the closure `key` as it was? Asked once per checked file: many walks rest on one."""
    current = project.closures.get(key)
    if current is None:
        current = project.closures[key] = closure_current(text, lambda file: _digest_now(project, file, parse=False))
    return current


def _digest_now(project: ProjectImports, path: str, parse: bool = True) -> Optional[str]:
    digests = project.digests
    if path not in digests:
        if parse:
            source = read_module(Path(path))
            digests[path] = source.digest if source is not None else None
        else:
            digests[path] = file_digest(path)
    return digests[path]
