"""Another module's method that does the same to every object it is given: summarised once for all of them.

A base class's `__init__` (nn.Module's own, a project's `BaseModel`) runs on `self` for each subclass that
calls `super().__init__()`, and `functions.summarise` keys its memo on that `self`, a different object for each
subclass. Where the method uses `self` only through attributes (`self.training`, `self._buffers[name] = t`) that
no object it is given has of its own, and each resolves to the same method for every class asked, the walk of
its body is the same whichever object it is: the summary of one is the summary of all, with `self` left as each
caller's object. That holds only where the first walk said nothing (no fact to tell at another call), changed
nothing of `self` and returned no value made of it; only such summaries are shared.
"""

from __future__ import annotations

from dataclasses import replace as replace_summary
from typing import TYPE_CHECKING, Optional, cast

import libcst as cst

from devlint.static.analysis.definitions import find_method, positional_names
from devlint.static.syntax import children
from devlint.core.values import Const, Instance, Module, Unknown, Value, replace

if TYPE_CHECKING:
    from devlint.static.analysis.summary import Summary
    from devlint.static.analysis.walker import Walker

# `type(self).__name__`: the class's name, for a message; no device can follow from it
_NAME_OF_CLASS = "__name__"


def self_attributes(fdef: cst.FunctionDef) -> Optional[frozenset[str]]:
    """The attributes a method reads or writes on its first parameter, or None where it uses that parameter
    otherwise (hands it on, returns it, tests its class): then which object it is may matter."""
    names = positional_names(fdef)
    if not names:
        return None
    me = names[0]
    touched: set[str] = set()
    stack: list[cst.CSTNode] = [fdef.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.Attribute:
            attribute = cast(cst.Attribute, node)
            if _is_name(attribute.value, me):
                touched.add(attribute.attr.value)
                continue
            if attribute.attr.value == _NAME_OF_CLASS and _type_of(attribute.value, me):
                continue
        elif kind is cst.Call and _super_of(cast(cst.Call, node), me):
            continue  # `super(Net, self)`: the walk takes the base from the method's class, as for `super()`
        elif kind is cst.Name and cast(cst.Name, node).value == me:
            return None
        stack.extend(children(node))
    return frozenset(touched)


def _is_name(node: cst.BaseExpression, name: str) -> bool:
    return type(node) is cst.Name and node.value == name


def _super_of(call: cst.Call, me: str) -> bool:
    """`super(Cls, self)`."""
    return _is_name(call.func, "super") and len(call.args) == 2 and _is_name(call.args[1].value, me) \
        and type(call.args[0].value) is cst.Name


def _type_of(node: cst.BaseExpression, me: str) -> bool:
    """`type(self)`."""
    if type(node) is not cst.Call:
        return False
    return _is_name(node.func, "type") and len(node.args) == 1 and _is_name(node.args[0].value, me)


def shared_key(interp: Walker, fdef: cst.FunctionDef, params: dict[str, Value],
               key: tuple[object, ...]) -> Optional[tuple[object, ...]]:
    """The memo key of a walk of another module's method that any object of the same kind would share (its
    `self` as a kind, a device and what each attribute it touches resolves to), or None."""
    tables = interp.tables
    if tables.project is None or id(fdef) not in tables.project.foreign_functions or not params:
        return None
    me_name, me = next(iter(params.items()))
    if not isinstance(me, (Module, Instance)):
        return None
    if id(fdef) not in tables.self_attributes:
        tables.self_attributes[id(fdef)] = self_attributes(fdef)
    names = tables.self_attributes[id(fdef)]
    if names is None or any(me.attr(name) is not None for name in names):
        return None
    cls = tables.classes.get(me.cls or "")
    methods = tuple(id(find_method(cls, name, tables.classes)) if cls is not None else 0 for name in sorted(names))
    kind = replace(me, cls="" if isinstance(me, Instance) else None, attrs=())
    others = tuple((name, value) for name, value in params.items() if name != me_name)
    return (key[0], others, *key[2:], kind, cls is not None, methods)


def shared_summary(interp: Walker, shared: tuple[object, ...], me: Value) -> Optional[Summary]:
    """What a walk with another object of that kind gave, with `self` left as `me`."""
    found = interp.tables.shared_memo.get(shared)
    return replace_summary(found, final_self=me) if found is not None else None


def keep_shared(interp: Walker, shared: tuple[object, ...], summary: Summary, me: Value, said: bool) -> None:
    """Share the summary of a walk that said nothing (`said`: it told a fact), moved nothing, left `self` as
    it was given and returned nothing made of it."""
    if said or summary.moved or summary.final_self != me or not isinstance(summary.result, (Const, Unknown)):
        return
    interp.tables.shared_memo[shared] = summary
