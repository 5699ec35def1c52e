"""A project module's top level is walked once per process, not once per file that imports it.

Walking an imported module adds to the walk's tables (its functions, classes, their scopes and the
names each function sees); what one walk added is kept with the parsed module (a `PerSource` of devlint.
static.project.sources) and replayed into the next checked file's walk, after the modules it imported.
A walk that met an import cycle or a bound depended on the file being checked, and is not kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

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
_SETS = (("tables", "guarded_classes"), ("tables", "defined_guarded"), ("project", "foreign_functions"),
         ("project", "gpu_only"))


@dataclass
class Walked:
    env: Optional[dict[str, Value]]  # the names the module binds
    deps: tuple[Target, ...]  # the project modules it imported, replayed first
    used: dict[str, str]  # path -> digest of every module its walk read: valid while they are unchanged
    envs: dict[str, Optional[dict[str, Value]]]  # Target.key -> names, of the modules walked inside its walk
    # per table of _DICTS: the (key, value) pairs added; per table of _SETS: the members added (each table
    # holds its own kinds, read back into it only: object)
    dicts: tuple[list[tuple[object, object]], ...]
    sets: tuple[set[object], ...]


# per project module read: what walking its top level gave, replayed for the next importer
_WALKED: PerSource[Walked] = PerSource()


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
    project.tainted = False
    try:
        env = walk()
    finally:
        deps = project.deps.pop()
        kept = not project.tainted
        project.tainted = project.tainted or tainted
    if kept:
        _WALKED.keep(source, Walked(
            env=env, deps=tuple(deps),
            used={p: d for p, d in project.used.items() if p not in used_before or p == str(target.file)},
            envs=dict(islice(project.envs.items(), envs_before, None)),
            dicts=tuple(list(islice(getattr(owners[o], a).items(), n, None)) for (o, a), n in zip(_DICTS, sizes)),
            sets=tuple(getattr(owners[o], a) - b for (o, a), b in zip(_SETS, before))))
    return env


def trusted(source: Source) -> Optional[Walked]:
    """What an earlier walk of the module at `source` added, if every module it read is unchanged."""
    walked = _WALKED.get(source)
    return walked if walked is not None and _unchanged(walked) else None


def replay(interp: Walker, project: ProjectImports, target: Target, walked: Walked) -> None:
    """Give this file's walk what an earlier walk of `target` added (`trusted`), after the modules it
    imported (`walked.deps`: the caller walks or replays them first)."""
    owners = _tables(interp, project)
    for (owner, attribute), pairs in zip(_DICTS, walked.dicts):
        table = getattr(owners[owner], attribute)
        for key, value in pairs:
            table.setdefault(key, value)  # this file's own (a class of the same name) wins
    for (owner, attribute), members in zip(_SETS, walked.sets):
        getattr(owners[owner], attribute).update(members)
    for key, env in walked.envs.items():
        project.envs.setdefault(key, env)
    project.envs[target.key] = walked.env
    project.used.update(walked.used)


def _unchanged(walked: Walked) -> bool:
    for path, digest in walked.used.items():
        source = read_module(Path(path))
        if source is None or source.digest != digest:
            return False
    return True
