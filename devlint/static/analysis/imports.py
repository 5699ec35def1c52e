"""The project's own imports: `from model import Net` is the `Net` that `model.py` defines.

An imported project module is read (never run), its top level walked once per checked file
with facts muted, and the names it binds handed to the importer: functions (analysed at each
call with the caller's arguments, as the file's own are), classes (bases, methods, `forward`),
constants (`DEVICE = "cuda"`). What its functions do inside stays quiet: a finding is reported
in the file being checked, with why-chains that may name lines of the other module. Import
cycles see the module being loaded as unknown; a bound on the number and nesting of loaded
modules keeps a huge project from costing more than its imports are worth.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence, cast

import libcst as cst

from devlint.core.limits import AnalysisBudgetExceeded
from devlint.static.analysis.definitions import forget_rebound_globals
from devlint.static.analysis.gpu_imports import requires_gpu
from devlint.static.analysis.prepass import PrePass
from devlint.static.analysis.state import State
from devlint.static.analysis.walked import met, met_cycle, record, replay, trusted
from devlint.static.project.sources import PerSource, read_module
from devlint.core.torch_catalogue import views as api
from devlint.static.syntax import attr_path
from devlint.core.values import Ref, Value

if TYPE_CHECKING:
    from devlint.static.analysis.project_imports import ProjectImports
    from devlint.static.analysis.walked import Walked
    from devlint.static.analysis.walker import Walker
    from devlint.static.project.layout import Target

MAX_MODULES = 48  # project modules loaded for one checked file
MAX_NESTING = 6  # a module imported by a module imported by ...

# the pre-pass of each project module read, made once (by the walk of its top level)
_PREPASSES: PerSource[PrePass] = PerSource()


def names_of(interp: Walker, project: ProjectImports, target: Target) -> Optional[dict[str, Value]]:
    """The names `target` binds at its top level, walked once (None while it loads: a cycle)."""
    key = target.key
    if project.deps:
        project.deps[-1].append(target)
    if key in project.envs:
        if project.envs[key] is None and project.loading:
            project.tainted = True  # a cycle: what the modules being walked see of it depends on the order
            met_cycle(project, key)
        return project.envs[key]
    if target.file is None:  # a namespace package: only submodules
        project.envs[key] = {}
        return project.envs[key]
    if project.seen:
        project.seen[-1].deepest = max(project.seen[-1].deepest, len(project.loading))
    if len(project.envs) >= MAX_MODULES or len(project.loading) >= MAX_NESTING or target.file == project.importer:
        project.tainted = project.tainted or bool(project.loading)
        counted = len(project.envs) >= MAX_MODULES
        met(project, counted=counted, cut=not counted and target.file != project.importer,
            opaque=not counted and target.file == project.importer)
        return None
    source = read_module(target.file)
    if source is None:
        return None
    project.digests.setdefault(str(target.file), source.digest)  # as looked up now: trusted() need not again
    # (a walk that met nothing may have gone deeper, or wider, than the bounds let a walk go from here)
    walked = trusted(source, project, lambda kept, deep, wide: _room_for(project, kept, deep, wide))
    if walked is not None and str(project.importer) in walked.used:
        walked = None  # that walk read the file being checked, which this file's walk does not read as a module
    if walked is not None:  # an earlier walk of it: the modules it imported first, then what it added
        _look_up_deps(interp, project, target, walked)
        replay(interp, project, target, walked)
        return project.envs[key]
    project.used[str(target.file)] = source.digest
    project.envs[key] = None
    tree = source.tree
    if tree is None:
        return None
    prepass = _PREPASSES.get(source)
    if prepass is None:
        prepass = PrePass(tree)
        _PREPASSES.keep(source, prepass)
    try:
        project.envs[key] = record(interp, project, target, source,
                                   lambda: _walk_module(interp, project, target, tree, prepass))
    except (AnalysisBudgetExceeded, RecursionError):
        raise
    except Exception:  # noqa: BLE001 - a module the walk cannot take is unknown; the checked file goes on
        project.envs[key] = None
    return project.envs[key]


def _room_for(project: ProjectImports, walked: Walked, deep: bool, wide: bool) -> bool:
    """Would a walk of that module from here meet neither the nesting bound (`deep`) nor the module bound
    (`wide`), as the kept walk met neither?"""
    return (not deep or len(project.loading) + walked.height < MAX_NESTING) and (
        not wide or len(project.envs) + walked.size <= MAX_MODULES)


def _look_up_deps(interp: Walker, project: ProjectImports, target: Target, walked: Walked) -> None:
    """The modules an earlier walk of `target` imported; for one that met the walk around it, as its walk
    looked them up (one level deeper, `target` loading), so that this walk meets what it met."""
    if walked.seen is None:
        for dep in walked.deps:
            names_of(interp, project, dep)
        return
    project.envs[target.key] = None
    project.loading.append(target.key)
    try:
        for dep in walked.deps:
            names_of(interp, project, dep)
    finally:
        project.loading.pop()


def _walk_module(interp: Walker, project: ProjectImports, target: Target, tree: cst.Module,
                 prepass: PrePass) -> dict[str, Value]:
    tables, frames, facts = interp.tables, interp.frames, interp.facts
    scopes = prepass.scopes
    for key, scope in scopes.items():
        if key:
            tables.prepass.scopes.setdefault(key, scope)
            project.foreign_functions.add(key)
            project.module_file[key] = cast(Path, target.file)  # a module walked has a file
    tables.prepass.consumers.update(prepass.consumers)
    saved = (frames.globals, frames.current_function, frames.context, frames.loops, frames.if_depth,
             facts.portable_uses, frames.importing)
    state = State()
    frames.globals = state.env
    frames.current_function, frames.loops, frames.if_depth = None, [], 0
    frames.importing = target.file
    facts.muted += 1
    project.loading.append(target.key)
    try:
        end = interp.exec_block(tree.body, state)
    finally:
        project.loading.pop()
        facts.muted -= 1
        (frames.globals, frames.current_function, frames.context, frames.loops, frames.if_depth,
         facts.portable_uses, frames.importing) = saved
    env = end.env
    forget_rebound_globals(env, prepass.rebound_globals)
    for key in scopes:
        if key:
            tables.closures.setdefault(key, env)  # a top-level function or a method sees its module's names
    return env


def project_cuda_package(interp: Walker, module: str) -> bool:
    """`import pointops` of a package no import root holds, which a setup.py of the project builds with CUDA kernels
    only (project_imports.cuda_only_package): what follows runs with a GPU or not at all."""
    project: Optional[ProjectImports] = interp.tables.project
    top = module.split(".")[0]
    return bool(top) and project is not None and project.resolve(top, 0) is None and project.cuda_only_package(top)


def exec_project_import(interp: Walker, node: cst.Import | cst.ImportFrom, state: State) -> set[str]:
    """Bind what an import of the project's own modules names: the names bound (a library's: none)."""
    project: Optional[ProjectImports] = interp.tables.project
    if project is None:
        return set()
    current = interp.frames.current_function
    importer = interp.frames.importing or (project.module_file.get(id(current)) if current is not None else None) \
        or project.importer
    if type(node) is cst.Import:
        return _plain_import(interp, project, node, state, importer)
    node = cast(cst.ImportFrom, node)  # not an Import: the other kind
    module = attr_path(node.module) if node.module is not None else ""
    target = project.resolve(module, len(node.relative), importer)
    if target is None:
        return set()
    names = names_of(interp, project, target)
    if requires_gpu(project, target):
        state.guarded = True  # `from kernels import fused_scan`, where kernels imports triton
    bound: set[str] = set()
    if type(node.names) is cst.ImportStar:
        for name, value in (names or {}).items():
            if not name.startswith("_"):
                state.env[name] = value
                bound.add(name)
        return bound if names else set()
    for alias in cast("Sequence[cst.ImportAlias]", node.names):  # not a star
        name = attr_path(alias.name)
        as_name = cast(cst.Name, alias.asname.name).value if alias.asname is not None else name
        member = _member(interp, project, target, names, name)
        if member is not None:
            state.env[as_name] = member
            bound.add(as_name)
            if isinstance(member, Ref) and api.is_cuda_extension(member.path):
                state.guarded = True  # `from .backend import _backend`, built there from CUDA sources
        elif names is not None and api.is_cuda_extension(f"{target.key}.{name}"):
            state.guarded = True  # `from . import fused_dense_cuda`: no Python module there, the compiled one
    return bound


def _plain_import(interp: Walker, project: ProjectImports, node: cst.Import, state: State,
                  importer: Path) -> set[str]:
    """`import app.models as M` / `import app.models`: a Ref whose attributes are the module's names."""
    bound: set[str] = set()
    for alias in node.names:
        full = attr_path(alias.name)
        target = project.resolve(full, 0, importer)
        if target is None:
            continue
        parts = full.split(".")
        for i in range(1, len(parts) + 1):  # `import a.b.c` binds `a`: a.b and a.b.c are reached from it
            prefix = ".".join(parts[:i])
            found = target if i == len(parts) else project.resolve(prefix, 0, importer)
            if found is not None:
                project.targets[prefix] = found
        if alias.asname is not None:
            project.targets[target.key] = target
            as_name = cast(cst.Name, alias.asname.name).value  # an import's `as` name is a Name
            state.env[as_name] = Ref(path=target.key)
            bound.add(as_name)
        else:
            state.env[parts[0]] = Ref(path=parts[0])
            bound.add(parts[0])
    return bound


def _member(interp: Walker, project: ProjectImports, target: Target, names: Optional[dict[str, Value]],
            name: str) -> Optional[Value]:
    """`name` of a project module: a name it binds, or a submodule of the package."""
    if names is not None and name in names:
        return names[name]
    sub = project.layout.submodule(target, name)
    if sub is None:
        return None
    project.targets[sub.key] = sub
    return Ref(path=sub.key)


def project_attribute(interp: Walker, path: str, attr: str) -> Optional[Value]:
    """`M.attr` where the Ref `M` is a project module (None: not one, or not a name we know)."""
    project: Optional[ProjectImports] = interp.tables.project
    if project is None:
        return None
    target = project.targets.get(path)
    if target is None:
        return None
    names = names_of(interp, project, target)
    return _member(interp, project, target, names, attr)
