"""What the file's definitions say by their syntax alone: a class's methods (its bases' too), whether a
method is static or a classmethod, the parameters a function uses on the host. functions.py, the walk's
other parts and the tables' questions (`FileQuestions`) all ask them; they ask nothing of the walk."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.core.values import Class
from devlint.static.syntax import children, dotted


def find_method(cls: Optional[Class], name: str, classes: dict[str, Class],
                depth: int = 0) -> Optional[cst.FunctionDef]:
    """`name` defined in cls or a base class of this file."""
    if cls is None or cls.node is None or depth > 8:
        return None
    found = _methods_of(cls.node).get(name)
    if found is not None:
        return found
    for base in cls.bases:  # resolved where the class was defined: an alias, another module's class
        found = find_method(base, name, classes, depth + 1) \
            if isinstance(base, Class) and base.node is not cls.node else None
        if found is not None:
            return found
    for arg in cls.node.bases:
        base_name = dotted(arg.value)
        if base_name in classes and base_name != cls.name:
            found = find_method(classes[base_name], name, classes, depth + 1)
            if found is not None:
                return found
    return None


def _methods_of(node: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    """name -> the first `def` of that name in the class body: looked up once per class (a base class of
    many, like torch's `Module`, is asked thousands of times for names it does not define)."""
    known = _METHODS.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    methods: dict[str, cst.FunctionDef] = {}
    body = node.body
    for stmt in body.body if type(body) is cst.IndentedBlock else ():
        if type(stmt) is cst.FunctionDef:
            methods.setdefault(stmt.name.value, stmt)
    if len(_METHODS) >= _MAX_CLASSES:
        _METHODS.clear()
    _METHODS[id(node)] = (node, methods)  # the node is kept: its id names no other while it is a key
    return methods


_MAX_CLASSES = 512
_METHODS: dict[int, tuple[cst.ClassDef, dict[str, cst.FunctionDef]]] = {}


def decorator_name(decorator: cst.Decorator) -> str:
    expr = decorator.decorator
    if type(expr) is cst.Call:
        expr = expr.func
    return dotted(expr) or ""


def is_static(fdef: cst.FunctionDef) -> bool:
    return any(decorator_name(d) == "staticmethod" for d in fdef.decorators)


def is_classmethod(fdef: cst.FunctionDef) -> bool:
    return any(decorator_name(d) == "classmethod" for d in fdef.decorators)


def host_params(fdef: cst.FunctionDef) -> set[str]:
    """Parameters the function uses on the host: handed to a cpu-only argument, or brought to the cpu
    (`lengths.cpu()`, `.tolist()`): its caller may keep them there."""
    params = {p.name.value for p in list(fdef.params.posonly_params) + list(fdef.params.params)}
    short = {path.rsplit(".", 1)[-1]: spec for path, spec in api.CPU_ONLY_ARGS.items()}
    found: set[str] = set()
    stack: list[cst.CSTNode] = [fdef.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            func = node.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value in params \
                    and (func.attr.value in _TO_HOST or func.attr.value == "to" and _to_cpu(node)):
                found.add(func.value.value)
            spec = short.get((dotted(func) or "").rsplit(".", 1)[-1])
            if spec is not None:
                position, keyword = spec
                for i, arg in enumerate(node.args):
                    named = arg.keyword.value == keyword if arg.keyword else i == position
                    if named and type(arg.value) is cst.Name and arg.value.value in params:
                        found.add(arg.value.value)
        stack.extend(children(node))
    return found


_TO_HOST = api.TO_HOST_METHODS


def _to_cpu(call: cst.Call) -> bool:
    """`x.to("cpu")`, `x.to(device="cpu")`, `x.to(torch.device("cpu"))`."""
    return any("'cpu'" in text or '"cpu"' in text
               for text in (cst.Module([]).code_for_node(arg.value) for arg in call.args[:1]))
