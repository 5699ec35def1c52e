"""How a project writes its models' weights, read from the syntax of its files: each `torch.save` of a module's
`state_dict()` is a write from the cpu where the function moves every tensor there first (BasicSR's and KAIR's
`save_network`: `for k, v in state_dict.items(): state_dict[k] = v.cpu()`; `{k: v.cpu() for ...}`;
`model.cpu().state_dict()`), else a write from the module's device. An optimizer's, a scheduler's or a grad
scaler's state is not a module's weights: it is not counted either way.
"""

from __future__ import annotations

from typing import Callable, Optional, cast

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.syntax import children, dotted


def weights_writes(tree: cst.Module) -> tuple[int, int]:
    """(from the cpu, from their device): how many `torch.save` calls of the module write a module's weights
    each way."""
    cpu = device = 0
    for body, saves in _saves_by_function(tree):
        for save in saves:
            from_cpu = _written_from_cpu(body, save)
            cpu += from_cpu is True
            device += from_cpu is False
    return cpu, device


def _saves_by_function(tree: cst.Module) -> list[tuple[cst.CSTNode, list[cst.Call]]]:
    """Each function (and the module's own statements) with the `torch.save` calls written in its body."""
    found: list[tuple[cst.CSTNode, list[cst.Call]]] = []
    pending: list[cst.CSTNode] = [tree]
    while pending:
        body = pending.pop()
        saves: list[cst.Call] = []
        stack = list(children(body))
        while stack:
            node = stack.pop()
            if type(node) in (cst.FunctionDef, cst.Lambda):
                pending.append(node)
                continue
            if type(node) is cst.Call and _is_save(node):
                saves.append(node)
            stack.extend(children(node))
        if saves:
            found.append((body, saves))
    return found


def _is_save(call: cst.Call) -> bool:
    name = dotted(call.func) or ""
    return name.rsplit(".", 1)[-1] == api.SAVE_NAME and name.rsplit(".", 1)[0] in api.TORCH_ALIASES


def _written_from_cpu(body: cst.CSTNode, save: cst.Call) -> Optional[bool]:
    """Does the save write a module's weights from the cpu (True) or from their device (False)? None: no module's
    weights, or a value this function did not make (a state dict whose entries it replaced with loaded ones is a
    conversion, on whatever device those were)."""
    if not save.args or save.args[0].keyword is not None:
        return None
    assigned, items = _assignments(body)
    parts, names = _parts(save.args[0].value, assigned, items)
    states = [part for part in parts if _state_of(part) is not None]
    if not states:
        return None
    if any(_to_cpu(value) for name in names for value in items.get(name, ())):
        return True  # `state_dict[key] = param.cpu()`
    if any(items.get(name) and any(_state_of(value) is not None for value in assigned.get(name, ()))
           for name in names):
        return None  # `state_dict[key2] = param` of a loaded checkpoint's param: a conversion
    return all(_moved_first(part) for part in states)


def _assignments(body: cst.CSTNode) -> tuple[dict[str, list[cst.BaseExpression]], dict[str, list[cst.BaseExpression]]]:
    """A name -> what the function assigns it (`state_dict = network.state_dict()`), and a name -> what it
    assigns its items (`state_dict[key] = param.cpu()`)."""
    assigned: dict[str, list[cst.BaseExpression]] = {}
    items: dict[str, list[cst.BaseExpression]] = {}
    stack = list(children(body))
    while stack:
        node = stack.pop()
        if type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        if type(node) is cst.Assign:
            for target in node.targets:
                if type(target.target) is cst.Name:
                    assigned.setdefault(target.target.value, []).append(node.value)
                elif type(target.target) is cst.Subscript and type(target.target.value) is cst.Name:
                    items.setdefault(target.target.value.value, []).append(node.value)
        stack.extend(children(node))
    return assigned, items


def _parts(saved: cst.BaseExpression, assigned: dict[str, list[cst.BaseExpression]],
           items: dict[str, list[cst.BaseExpression]]) -> tuple[list[cst.BaseExpression], set[str]]:
    """What the saved value is made of (a dict's values, a name's assigned values and items), and the names
    followed to them (each once, so a cycle of names ends)."""
    parts: list[cst.BaseExpression] = []
    seen: set[str] = set()
    pending = [saved]
    while pending and len(parts) < 64:
        part = pending.pop()
        if type(part) is cst.Name:
            if part.value not in seen:
                seen.add(part.value)
                pending.extend(assigned.get(part.value, ()))
                pending.extend(items.get(part.value, ()))
        elif type(part) is cst.Dict:
            pending.extend(element.value for element in part.elements if type(element) is cst.DictElement)
        else:
            parts.append(part)
    return parts, seen


def _state_of(part: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The module of `module.state_dict()` (an optimizer's state is not a module's), inside a comprehension's
    source too; None for anything else."""
    if type(part) is cst.DictComp:
        source = part.for_in.iter
        if type(source) is cst.Call and type(source.func) is cst.Attribute:
            return _state_of(source.func.value)  # `{k: v.cpu() for k, v in model.state_dict().items()}`
        return None
    if type(part) is not cst.Call or type(part.func) is not cst.Attribute \
            or part.func.attr.value != api.STATE_DICT_METHOD:
        return None
    owner = (dotted(_strip_moves(part.func.value)) or "").lower()
    if any(word in owner for word in api.OPTIMIZER_STATE_WORDS):
        return None
    return part.func.value


def _moved_first(part: cst.BaseExpression) -> bool:
    """`model.cpu().state_dict()`, `{k: v.cpu() for k, v in ...}`: every tensor on the cpu."""
    if type(part) is cst.DictComp:
        return _to_cpu(part.value)
    owner = _state_of(part)
    return owner is not None and type(owner) is cst.Call and _to_cpu(owner)


def _to_cpu(expr: cst.BaseExpression) -> bool:
    """`v.cpu()`, `v.detach().cpu()`, `v.to("cpu")`, `v.cpu().clone()`: a host copy."""
    while type(expr) is cst.Call and type(expr.func) is cst.Attribute:
        method = expr.func.attr.value
        if method in api.MOVES_TO_CPU or method in api.MOVES_TO_ARGUMENT and expr.args and type(
                expr.args[0].value) is cst.SimpleString and expr.args[0].value.evaluated_value == api.CPU_TYPE:
            return True
        expr = expr.func.value
    return False


def _strip_moves(expr: cst.BaseExpression) -> cst.BaseExpression:
    """`model` of `model.cpu()` (the module whose weights are written)."""
    while type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in api.MOVE_METHODS:
        expr = expr.func.value
    return expr


def into_module_weights(body: cst.CSTNode, load: cst.CSTNode,
                        optimizer: Callable[[cst.BaseExpression], bool]) -> bool:
    """Does what `load` reads go into a module's `load_state_dict` in `body` (a function, or a module's own
    statements): `net.load_state_dict(torch.load(p))`, `torch.load(p)["params"]`, or a name it is assigned to
    (`sd = torch.load(p)` ... `sd = sd["params"]` ... `net.load_state_dict(sd)`)? Not an optimizer's (named so,
    or known to be one: `optimizer(receiver)`)."""
    names: set[str] = set()
    calls: list[cst.Call] = []
    stack = list(children(body))
    while stack:
        node = stack.pop()
        if type(node) in (cst.FunctionDef, cst.Lambda, cst.ClassDef):
            continue
        if type(node) is cst.Assign and any(source is load for source in _sources(node.value)):
            names.update(target.target.value for target in node.targets if type(target.target) is cst.Name)
        elif type(node) is cst.Call and type(node.func) is cst.Attribute \
                and node.func.attr.value == api.LOAD_STATE_DICT_METHOD and node.args:
            calls.append(node)
        stack.extend(children(node))
    for call in calls:
        receiver = cast(cst.Attribute, call.func).value
        owner = (dotted(receiver) or "").lower()
        if not any(word in owner for word in api.OPTIMIZER_STATE_WORDS) and not optimizer(receiver) and any(
                given is load or type(given) is cst.Name and given.value in names
                for given in _sources(call.args[0].value)):
            return True
    return False


def _sources(expr: cst.BaseExpression) -> list[cst.BaseExpression]:
    """`torch.load(p)` of `torch.load(p)["params"]`: what an item of a loaded checkpoint was read from; each
    branch's of `ckpt["params"] if "params" in ckpt else ckpt`."""
    while type(expr) is cst.Subscript:
        expr = expr.value
    if type(expr) is cst.IfExp:
        return _sources(expr.body) + _sources(expr.orelse)
    return [expr]
