"""Which parameters a function uses only as slice bounds: read as Python ints, on any device.

`feat[:, :, box[1]:box[3], box[0]:box[2]]` reads each bound with `__index__`: a cpu tensor bounds a cuda
feature map as well as an int does. A `forward` that takes part locations or boxes only to crop with them
(BasicSR's DFDNet, whose `swap_feat` crops the VGG features by the cpu part locations) takes them on any
device: the module's caller is right to leave them on the cpu.
"""

from __future__ import annotations

from typing import Callable, Optional, cast

import libcst as cst

from devlint.static.analysis.definitions import bound_to, derived_names, positional_names
from devlint.static.syntax import children

# A method of the function's class, by name (None: not one of its methods)
MethodOf = Callable[[str], Optional[cst.FunctionDef]]

MAX_DEPTH = 2  # methods handed a bound, followed this deep
_COUNTS = frozenset({"len"})  # what reads only a container's length


def bound_only_params(fdef: cst.FunctionDef, method_of: MethodOf, depth: int = 0) -> set[str]:
    """A method's parameters (its first, the object, left out) used only as slice bounds, as they are or
    through names computed from them (`location = (parts[i][0] // 2).int()`, `for box in boxes:`), or handed to
    a method of the class (`self.swap(feat, location)`) that uses its parameter so."""
    params = positional_names(fdef)
    derived, binding = derived_names(fdef, set(params))
    bad: set[str] = set()
    stack: list[tuple[cst.CSTNode, bool]] = [(fdef.body, False)]
    while stack:
        node, in_bound = stack.pop()
        kind = type(node)
        if kind is cst.FunctionDef or kind is cst.ClassDef or kind is cst.Lambda:
            continue
        if kind is cst.Name:
            source = derived.get(cast(cst.Name, node).value)
            if source is not None and not in_bound and id(node) not in binding:
                bad.add(source)
            continue
        if kind is cst.Slice:
            stack.extend((child, True) for child in children(node))
            continue
        if kind is cst.Return and not in_bound:
            # `return self.proj(x), lengths`: handed back as it came, not used here
            returned = _returned_parts(cast(cst.Return, node))
            stack.extend((part, False) for part in returned if type(part) is not cst.Name)
            continue
        if kind is cst.Call and not in_bound:
            handed = _handed(cast(cst.Call, node), derived, method_of, depth)
            if handed is not None:
                binding.update(handed)
        stack.extend((child, in_bound) for child in children(node))
    return {name for name in params if name not in bad and name in derived.values()} - {params[0]} \
        if params else set()


def _returned_parts(node: cst.Return) -> list[cst.BaseExpression]:
    """The expressions a return gives back: each element of a returned tuple, or the value."""
    value = node.value
    if value is None:
        return []
    if type(value) is cst.Tuple:
        return [element.value for element in value.elements]
    return [value]


def _handed(call: cst.Call, derived: dict[str, str], method_of: MethodOf, depth: int) -> Optional[set[int]]:
    """id() of the derived names a call takes only as bounds: `len(boxes)`, or arguments of a method of the
    class (`self.swap(feat, location)`) that uses that parameter only as a slice bound."""
    func = call.func
    if type(func) is cst.Name and func.value in _COUNTS:
        return {id(arg.value) for arg in call.args if type(arg.value) is cst.Name}
    if type(func) is not cst.Attribute or type(func.value) is not cst.Name or func.value.value != "self" \
            or depth >= MAX_DEPTH:
        return None
    handed = [(i, arg) for i, arg in enumerate(call.args)
              if not arg.star and type(arg.value) is cst.Name and arg.value.value in derived]
    method = method_of(func.attr.value) if handed else None
    if method is None:
        return None
    names, bounds = positional_names(method)[1:], bound_only_params(method, method_of, depth + 1)
    return {id(arg.value) for i, arg in handed if bound_to(arg, i, names) in bounds}
