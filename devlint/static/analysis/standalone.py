"""Functions walked on their own: nobody in the file calls them (or a `forward`), so their parameters are
symbolic, and a method's `self` is what its class's `__init__` made, with what the class's setter methods add.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional, cast

import libcst as cst

from devlint.static.analysis.callers import from_callers, run_sites
from devlint.static.analysis.definitions import (
    decorator_name, find_method, is_classmethod, is_static, parametrized, positional_names, pytest_defaults,
)
from devlint.static.analysis.functions import (
    analyse_body, bind_arguments, class_summary, summarise, symbolic_param,
)
from devlint.static.analysis.shared_self import self_attributes
from devlint.static.analysis.state import State
from devlint.static.semantics.callsite import Args
from devlint.static.syntax import dotted
from devlint.core.torch_catalogue import views as api
from devlint.core.values import (
    INTEGER, UNKNOWN, Attributes, Class, Function, Instance, Located, Module, Ref, Tensor, Value, join, replace,
)

if TYPE_CHECKING:
    from devlint.static.analysis.tables import FileTables
    from devlint.static.analysis.walker import Walker

# setter methods walked per class: a pix2pix model has one (`set_input`), a restoration model one or two
SETTERS_WALKED = 3
# a test's parametrize rows read for its parameters' values (more: a generated table, left unknown)
MAX_PARAMETRIZE_ROWS = 32


def analyse_standalone(interp: Walker, fn: Function) -> None:
    """A function nobody in the file calls (or any `forward`): symbolic parameters."""
    fdef = cast(cst.FunctionDef, fn.node)  # (as in analyse_body)
    if str(id(fdef)) in interp.tables.syntax(_inside_tests, interp.tables.module):
        return  # a test's own double (`class FakeModel` in `def test_...`): it sees the test's data, nothing else
    cls = interp.tables.classes.get(fn.owner) if fn.owner else None
    bound = class_summary(interp, cls) if cls is not None and not (is_static(fdef) or is_classmethod(fdef)) \
        else cls if cls is not None and is_classmethod(fdef) else None  # `cls(...)` builds one
    scope = interp.tables.scope_of(fdef)
    step = cls is not None and cls.is_module and _lightning_step(cls, fdef)
    is_forward = step or cls is not None and cls.is_module and fdef.name.value == "forward"
    batch_name = positional_names(fdef)[1:2] if step else []
    caller: Optional[State] = None
    if cls is not None and bound is not None and fdef.name.value.startswith("test"):
        bound, caller = _after_set_up(interp, cls, bound)
    elif cls is not None and isinstance(bound, (Module, Instance)) and fdef.name.value != "__init__":
        bound = with_late_attributes(interp, cls, bound)  # (`__init__` runs before any setter)
    constructor = cls.name if cls is not None and fdef.name.value == "__init__" else None
    passed = from_callers(interp, fdef, fn.owner is not None, bound is not None, constructor=constructor)
    defaults = interp.tables.syntax(pytest_defaults, fdef)

    def symbolic(param: cst.Param) -> Value:
        if param.name.value in defaults:  # pytest passes a test nothing for a parameter with a default
            return interp.eval(cast(cst.BaseExpression, param.default), State())
        if step and param.name.value not in batch_name:
            return INTEGER  # `batch_idx`, `dataloader_idx`
        fixture = _fixture(interp, fdef, param.name.value)
        if fixture is not None:  # `def test_noise(device)` of a `@pytest.fixture def device(): return "cpu"`
            return interp.invoke(fixture, Args(), param, State(), None)
        listed = _parametrized(interp, fdef, param.name.value)
        if listed is not None:
            return listed
        return passed(param, symbolic_param(interp, param, scope, is_forward))
    facts, answers = interp.facts, list[bool]()

    def called_in_run() -> bool:  # (asked only where a placement would be told: the run's text is read then)
        if not answers:
            project = interp.tables.project
            answers.append(project is not None and run_sites(project, constructor or fdef.name.value,
                                                             fn.owner is not None, constructor) is not None)
        return answers[0]
    facts.called_in_run = called_in_run
    try:
        analyse_body(interp, fn, bind_arguments(interp, fdef, bound, None, symbolic=symbolic), caller, None)
    finally:
        facts.called_in_run = None


def _inside_tests(module: cst.Module) -> frozenset[str]:
    """id() (as text) of the functions and methods defined inside a test function (`def test_...`, or a test
    method of a class)."""
    tests = [s for s in module.body if type(s) is cst.FunctionDef and s.name.value.startswith("test_")]
    for cls in (s for s in module.body if type(s) is cst.ClassDef):
        tests += [s for s in cls.body.body if type(s) is cst.FunctionDef and s.name.value.startswith("test_")]
    found: set[str] = set()
    stack: list[cst.CSTNode] = [node for test in tests for node in test.body.children]
    while stack:
        node = stack.pop()
        if type(node) is cst.FunctionDef:
            found.add(str(id(node)))
        stack.extend(node.children)
    return frozenset(found)


def _fixture(interp: Walker, test: cst.FunctionDef, name: str) -> Optional[Function]:
    """The file's `@pytest.fixture` named `name` that returns its value (not one that yields), for a test."""
    if not test.name.value.startswith("test"):
        return None
    for fn in interp.tables.functions.values():
        fdef = cast(cst.FunctionDef, fn.node)
        if fdef.name.value == name and fn.owner is None and not interp.tables.scope_of(fdef).generator \
                and any(decorator_name(d).rsplit(".", 1)[-1] == "fixture" for d in fdef.decorators):
            return fn
    return None


def _parametrized(interp: Walker, test: cst.FunctionDef, name: str) -> Optional[Value]:
    """What `@pytest.mark.parametrize("expected, n", [(torch.tensor([1, 0]), 2), ...])` gives a test for `name`:
    its values, evaluated where the decorator is (at import), joined; None where it is not listed so."""
    for names, call in parametrized(test):
        listed = call.args[1].value if len(call.args) > 1 else None
        if name not in names or type(listed) not in (cst.List, cst.Tuple):
            continue
        rows = cast("cst.List | cst.Tuple", listed).elements
        if not rows or len(rows) > MAX_PARAMETRIZE_ROWS:
            continue
        values: list[Value] = []
        for row in rows:
            items = _row_items(row.value) if len(names) > 1 else [row.value]
            if items is None or len(items) != len(names):
                return None
            values.append(interp.eval(items[names.index(name)], State()))
        joined = values[0]
        for value in values[1:]:
            joined = join(joined, value)
        return joined
    return None


def _row_items(row: cst.BaseExpression) -> Optional[list[cst.BaseExpression]]:
    """The values of one row: `(a, b)`, `[a, b]`, `pytest.param(a, b, marks=...)`."""
    if type(row) in (cst.Tuple, cst.List):
        return [e.value for e in cast("cst.Tuple | cst.List", row).elements]
    if type(row) is cst.Call and (dotted(row.func) or "").endswith(".param"):
        return [a.value for a in row.args if a.keyword is None and not a.star]
    return None


def _lightning_step(cls: Class, fdef: cst.FunctionDef) -> bool:
    """`training_step(self, batch, batch_idx)` of a LightningModule: its Trainer moved the batch to the module."""
    return fdef.name.value in api.LIGHTNING_STEPS and any(
        isinstance(base, Ref) and base.path in api.LIGHTNING_MODULES for base in cls.bases)


def _after_set_up(interp: Walker, cls: Class, me: Value) -> tuple[Value, Optional[State]]:
    """A test method runs after its class's `setUp`: the object it built and the path it left (the default
    tensor type it set, the GPU it checked for), or (me, None) where the class has none."""
    tables = interp.tables
    set_up = find_method(cls, "setUp", tables.classes)
    if set_up is None or id(set_up) not in tables.functions or id(set_up) in interp.frames.stack:
        return me, None
    scope = tables.scope_of(set_up)
    params = bind_arguments(interp, set_up, me, None, symbolic=lambda p: symbolic_param(interp, p, scope, False))
    before = State()
    before.default_device = tables.module_default_device
    before.moved = dict(tables.moved_at_end)
    interp.facts.muted += 1  # reported where setUp itself is analysed
    try:
        summary = summarise(interp, replace(tables.functions[id(set_up)], bound=me), params, before, set_up)
    finally:
        interp.facts.muted -= 1
    summary.apply_moves(before)
    after = summary.final_self if isinstance(summary.final_self, (Module, Instance)) else me
    return after, before


def with_late_attributes(interp: Walker, cls: Class, me: Module | Instance) -> Module | Instance:
    """`self` with the tensors that one method of the class, not `__init__`, sets on it: pix2pix's
    `set_input(self, data)` sets `self.real_A`, which `backward_G` reads, as the training script calls
    `model.set_input(data)` and then `model.optimize_parameters()`. A name two methods set is left unknown."""
    tables = interp.tables
    found = tables.late_attributes.get(cls.name)
    if found is None:
        tables.late_attributes[cls.name] = ()  # recursion guard: a setter's walk asks again
        found = tables.late_attributes[cls.name] = _walk_setters(interp, cls, me)
    for name, value in found:
        if me.attr(name) is None:
            me = me.with_attr(name, value)
    for name, value in me.attrs:
        if isinstance(value, Tensor) and not value.parameter and name in tables.set_from_outside():
            # `self.drive = torch.zeros(width)`, a placeholder the owner replaces before each call
            # (`self.func.drive = x[:, i, :]`): what a method reads there is the owner's, not the cpu one
            me = me.with_attr(name, UNKNOWN)
        elif isinstance(value, (Module, Instance)):
            placed = _placed_from_outside(tables, name, value, 2)
            if placed is not value:
                me = me.with_attr(name, placed)
    me = _placeholders_reset(interp, cls, me)
    if isinstance(me, Instance):
        # a plain class's own `to(device)` that moves `self.features`: a method reads it wherever a caller sent it
        for name in tables.own_moves(cls):
            me = me.with_attr(name, UNKNOWN)
    return me


def _placed_from_outside(tables: FileTables, name: str, member: Module | Instance, depth: int) -> Value:
    """A member module that code outside its class sets (`t.inner.net = t.inner.net.to(device)` in the entry
    script, or in this file): where it is, that code decides, not the `__init__` that made it on the cpu."""
    if isinstance(member, Module) and member.where is not None and not member.moved and (
            name in tables.set_from_outside() or tables.project is not None and tables.project.sets_attribute(name)):
        return replace(member, where=None)
    if depth and isinstance(member, Instance):  # (a plain object's members: a trainer's fitter's net)
        for key, value in member.attrs:
            if isinstance(value, (Module, Instance)):
                placed = _placed_from_outside(tables, key, value, depth - 1)
                if placed is not value:
                    member = member.with_attr(key, placed)
    return member


def _placeholders_reset(interp: Walker, cls: Class, me: Module | Instance) -> Module | Instance:
    """`self.accum = torch.empty(0)` in `__init__`, set for real by another method (3DGS's `training_setup`
    puts it on the GPU, before any step): a method reads the real one, wherever that method put it."""
    empty = [name for name, value in me.attrs if isinstance(value, Tensor) and value.empty and not value.parameter]
    if not empty:
        return me
    tables = interp.tables
    reset = frozenset().union(*(tables.syntax(_assigned_on_self, method)
                                for method in methods_of(cls, tables.classes) if method.name.value != "__init__"))
    for name in empty:
        if name in reset:
            me = me.with_attr(name, UNKNOWN)
    return me


def _walk_setters(interp: Walker, cls: Class, me: Module | Instance) -> Attributes:
    tables = interp.tables
    setters = [(fdef, names) for fdef, names in late_setters(methods_of(cls, tables.classes),
                                                             lambda method: tables.syntax(_assigned_on_self, method))
               if id(fdef) in tables.functions and any(me.attr(n) is None for n in names)]
    late = frozenset(n for _, names in setters for n in names)
    # a setter that reads what another sets runs after it (`forward` reads `self.real_A` of `set_input`)
    setters.sort(key=lambda setter: len((_touched_on_self(interp, setter[0], late) - setter[1]) & late))
    found: list[tuple[str, Value]] = []
    for fdef, names in setters[:SETTERS_WALKED]:
        scope = tables.scope_of(fdef)
        params = bind_arguments(interp, fdef, me, None, symbolic=lambda p: symbolic_param(interp, p, scope, False))
        walked = id(fdef) in tables.analysed
        interp.facts.muted += 1  # reported where the setter itself is analysed
        try:
            _, final_self, _ = analyse_body(interp, replace(tables.functions[id(fdef)], bound=me), params, None, None)
        finally:
            interp.facts.muted -= 1
        if not walked:
            tables.analysed.discard(id(fdef))
        if isinstance(final_self, (Module, Instance)):
            kept = [(n, v) for n in names if me.attr(n) is None
                    for v in (final_self.attr(n),) if isinstance(v, (Tensor, Located)) and v.device is not None]
            found.extend(kept)
            for name, value in kept:  # (the next setter walked sees them)
                me = me.with_attr(name, value)
    return tuple(found)


def methods_of(cls: Class, classes: dict[str, Class]) -> list[cst.FunctionDef]:
    """The plain methods an object of the class has (not `__init__` nor another special one), its own and those
    it inherits from base classes whose code is here (`BaseModel.set_input`)."""
    found: dict[str, cst.FunctionDef] = {}
    pending, seen = [cls], set[int]()
    while pending and len(seen) < 8:
        current = pending.pop(0)
        if current.node is None or id(current.node) in seen:
            continue
        seen.add(id(current.node))
        for node in current.node.body.body:
            if type(node) is cst.FunctionDef and not node.name.value.startswith("__") and not is_static(node) \
                    and not is_classmethod(node):
                found.setdefault(node.name.value, node)
        pending.extend(base for base in current.bases if isinstance(base, Class))
        pending.extend(classes[name] for name in (dotted(arg.value) for arg in current.node.bases)
                       if name in classes)
    return list(found.values())


def late_setters(methods: list[cst.FunctionDef], assigned_on_self: Callable[[cst.FunctionDef], frozenset[str]]
                 ) -> list[tuple[cst.FunctionDef, frozenset[str]]]:
    """The methods with the `self.<name>` each alone assigns directly in its body (`assigned_on_self`, asked once
    per method of the file's walk: a base class's methods are every subclass's)."""
    assigned = {id(m): assigned_on_self(m) for m in methods}
    counts: dict[str, int] = {}
    for names in assigned.values():
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    out = []
    for method in methods:
        alone = frozenset(n for n in assigned[id(method)] if counts[n] == 1)
        if alone:
            out.append((method, alone))
    return out


def _assigned_on_self(fdef: cst.FunctionDef) -> frozenset[str]:
    """`self.x = ...` and `self.x, self.y = ...` at any depth of the body (not in a nested def). Statements only:
    an assignment is one, so the walk never enters an expression (most of a method's nodes)."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = [fdef.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Assign:
            for target in cast(cst.Assign, node).targets:
                names.update(_self_names(target.target))
        elif kind is cst.AnnAssign:
            names.update(_self_names(cast(cst.AnnAssign, node).target))
        elif kind is cst.SimpleStatementLine:
            stack.extend(cast(cst.SimpleStatementLine, node).body)
        elif kind not in (cst.FunctionDef, cst.ClassDef):
            stack.extend(_statement_parts(node))
    return frozenset(names)


def _statement_parts(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The suites and statements inside a compound statement (or a suite), none of its expressions."""
    if type(node) in (cst.IndentedBlock, cst.SimpleStatementSuite):
        return list(cast(cst.IndentedBlock, node).body)
    parts = [getattr(node, name, None) for name in ("body", "orelse", "finalbody")]
    parts.extend(getattr(node, "handlers", ()))
    return [p for p in parts if isinstance(p, cst.CSTNode)]


def _touched_on_self(interp: Walker, fdef: cst.FunctionDef, late: frozenset[str]) -> frozenset[str]:
    """The `self.<name>` a method touches (`shared_self.self_attributes`; all of `late` where `self` escapes it)."""
    tables = interp.tables
    if id(fdef) not in tables.self_attributes:
        tables.self_attributes[id(fdef)] = self_attributes(fdef)
    touched = tables.self_attributes[id(fdef)]
    return touched if touched is not None else late


def _self_names(target: cst.BaseExpression) -> list[str]:
    if type(target) in (cst.Tuple, cst.List):
        return [n for e in cast(cst.Tuple, target).elements for n in _self_names(e.value)]
    if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == "self":
        return [target.attr.value]
    return []
