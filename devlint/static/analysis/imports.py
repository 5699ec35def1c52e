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
from devlint.static.analysis.prepass import PrePass
from devlint.static.analysis.state import State
from devlint.static.project.layout import Layout, Target, layout_for
from devlint.static.analysis.walked import record, replay
from devlint.static.project.sources import read_module
from devlint.core.torch_catalogue import views as api
from devlint.static.syntax import attr_path
from devlint.core.values import Ref, Value

if TYPE_CHECKING:
    from devlint.static.analysis.interpreter import Interpreter

MAX_MODULES = 48  # project modules loaded for one checked file
MAX_NESTING = 6  # a module imported by a module imported by ...

_LIBRARY_TOPS = frozenset(prefix.rstrip(".") for prefix in api.LIBRARY_PREFIXES)


class ProjectImports:
    """The project modules one checked file sees: their names, and what was read (for the cache)."""

    def __init__(self, path: str, layout: Optional[Layout] = None,
                 checked: Optional[dict[str, str]] = None) -> None:
        self.importer = Path(path).resolve() if path else Path.cwd()
        self.layout = layout or layout_for(str(self.importer))
        self.envs: dict[str, Optional[dict[str, Value]]] = {}  # Target.key -> the module's names (None: unknown)
        self.targets: dict[str, Target] = {}  # a Ref path that is a project module -> it
        self.loading: list[str] = []
        self.used: dict[str, str] = {}  # path of a module read -> digest of what was read
        self.foreign_functions: set[int] = set()  # id(FunctionDef) of functions of other modules
        # Target.key of the modules whose top level runs with a GPU or not at all (`import triton`, or a
        # project module that does): what imports them does too
        self.gpu_only: set[str] = set()
        # absolute path -> path as reported, of the other files of the run: findings may be reported there
        self.checked: dict[str, str] = checked or {}
        self.module_file: dict[int, Path] = {}  # id(FunctionDef) of such a function -> its module's file
        self.deps: list[list[Target]] = []  # per module being walked: the project modules it imported
        self.tainted = False  # the walk in progress met a cycle or a bound: its result is this file's alone
        # (how many modules were read, their trees) for trees()
        self._trees: Optional[tuple[int, dict[str, cst.Module]]] = None

    def trees(self) -> dict[str, cst.Module]:
        """path -> tree of each project module read so far (a why-chain may name their lines); made again
        only when more modules were read since it was last asked for."""
        if self._trees is None or self._trees[0] != len(self.used):
            found: dict[str, cst.Module] = {}
            for path in self.used:
                source = read_module(Path(path))
                if source is not None and source.tree is not None:
                    found[path] = source.tree
            self._trees = (len(self.used), found)
        return self._trees[1]

    def resolve(self, module: str, level: int, importer: Optional[Path] = None) -> Optional[Target]:
        if not level and module.split(".")[0] in _LIBRARY_TOPS:
            return None
        return self.layout.resolve(importer or self.importer, module, level)

    def names_of(self, interp: Interpreter, target: Target) -> Optional[dict[str, Value]]:
        """The names `target` binds at its top level, walked once (None while it loads: a cycle)."""
        key = target.key
        if self.deps:
            self.deps[-1].append(target)
        if key in self.envs:
            if self.envs[key] is None and self.loading:
                self.tainted = True  # a cycle: what the modules being walked see of it depends on the order
            return self.envs[key]
        if target.file is None:  # a namespace package: only submodules
            self.envs[key] = {}
            return self.envs[key]
        if len(self.envs) >= MAX_MODULES or len(self.loading) >= MAX_NESTING or target.file == self.importer:
            self.tainted = self.tainted or bool(self.loading)
            return None
        source = read_module(target.file)
        if source is None:
            return None
        if replay(interp, self, target, source):
            return self.envs[key]
        self.used[str(target.file)] = source.digest
        self.envs[key] = None
        if source.tree is None:
            return None
        if source.prepass is None:
            source.prepass = PrePass(source.tree)
        try:
            self.envs[key] = record(interp, self, target, source, _walk_module)
        except (AnalysisBudgetExceeded, RecursionError):
            raise
        except Exception:  # noqa: BLE001 - a module the walk cannot take is unknown; the checked file goes on
            self.envs[key] = None
        return self.envs[key]


def _walk_module(interp: Interpreter, project: ProjectImports, target: Target, tree: cst.Module,
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
    if end.guarded:
        project.gpu_only.add(target.key)
    env = end.env
    for key in scopes:
        if key:
            tables.closures.setdefault(key, env)  # a top-level function or a method sees its module's names
    return env


def exec_project_import(interp: Interpreter, node: cst.Import | cst.ImportFrom, state: State) -> set[str]:
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
    names = project.names_of(interp, target)
    if target.key in project.gpu_only:
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
    return bound


def _plain_import(interp: Interpreter, project: ProjectImports, node: cst.Import, state: State,
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


def _member(interp: Interpreter, project: ProjectImports, target: Target, names: Optional[dict[str, Value]],
            name: str) -> Optional[Value]:
    """`name` of a project module: a name it binds, or a submodule of the package."""
    if names is not None and name in names:
        return names[name]
    sub = project.layout.submodule(target, name)
    if sub is None:
        return None
    project.targets[sub.key] = sub
    return Ref(path=sub.key)


def project_attribute(interp: Interpreter, path: str, attr: str) -> Optional[Value]:
    """`M.attr` where the Ref `M` is a project module (None: not one, or not a name we know)."""
    project: Optional[ProjectImports] = interp.tables.project
    if project is None:
        return None
    target = project.targets.get(path)
    if target is None:
        return None
    names = project.names_of(interp, target)
    return _member(interp, project, target, names, attr)
