"""Which parameters a function's `.numpy()` calls prove are on the host.

`.numpy()` fails on a GPU tensor: when a function converts, without moving it to the cpu first, a value
computed from its parameters, those parameters are host tensors by the function's own contract, whatever a
caller could pass (`spec = F.conv1d(wave, basis); return spec.norm().numpy()`: `wave` is on the cpu).
"""

from __future__ import annotations

from typing import Sequence

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.syntax import children, target_names


def numpy_inputs(fdef: cst.FunctionDef, receivers: Sequence[cst.CSTNode]) -> set[str]:
    """The names the receivers of `.numpy()` in fdef are computed from, through its assignments; an
    expression that moves a value (`.cpu()`, `.to(d)`) is a boundary: what it was made from may be anywhere."""
    sources = _assignments(fdef)
    seen: set[str] = set()
    pending = [name for node in receivers for name in _names(node)]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        for value in sources.get(name, ()):
            pending.extend(_names(value))
    return seen


def data_params(fdef: cst.FunctionDef) -> set[str]:
    """The parameters that may hold data: not `self`, not a setting (`width=5`, `n: int`, `mode="same"`)."""
    out = set()
    for param in (*fdef.params.posonly_params, *fdef.params.params, *fdef.params.kwonly_params):
        name = param.name.value
        annotation = param.annotation.annotation if param.annotation is not None else None
        default = param.default
        setting = isinstance(default, _LITERALS) or (isinstance(default, cst.Name) and default.value in _BOOLS) or (
            isinstance(annotation, cst.Name) and annotation.value in api.SETTING_ANNOTATIONS)
        if name not in ("self", "cls") and not setting:
            out.add(name)
    return out


_LITERALS = (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Imaginary)
_BOOLS = ("True", "False")


def _assignments(fdef: cst.FunctionDef) -> dict[str, list[cst.CSTNode]]:
    """Name -> the values bound to it in fdef's own body (`a = e`, `a, b = e`, `a += e`)."""
    out: dict[str, list[cst.CSTNode]] = {}
    stack: list[cst.CSTNode] = list(children(fdef.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, cst.Assign):
            for target in node.targets:
                for name in target_names(target.target):
                    out.setdefault(name, []).append(node.value)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and node.value is not None:
            for name in target_names(node.target):
                out.setdefault(name, []).append(node.value)
        stack.extend(children(node))
    return out


def _names(node: cst.CSTNode) -> list[str]:
    """The plain names an expression reads (not attribute names), none past a device move."""
    out: list[str] = []
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Name):
            out.append(node.value)
            continue
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and node.func.attr.value in api.MOVE_METHODS:
            return []  # moved: this value's inputs say nothing of where it ends up
        if isinstance(node, cst.Attribute):
            stack.append(node.value)  # `x.shape`: x, not `shape`
            continue
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            continue
        stack.extend(children(node))
    return out
