"""What the rules' fixes need to know about the tree around a node: its statement, its parent,
the module's imports, a name that is free. Computed only for findings that get a fix."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from devlint.static.syntax import children, dotted, string_value


_COMPOUND_BODIES = ("body", "orelse", "handlers", "finalbody", "cases")
SELECT_DEVICE = '{torch}.device("cuda" if {torch}.cuda.is_available() else "cpu")'


def code(file, node: cst.CSTNode) -> str:
    return file.module.code_for_node(node)


def _contains(outer, inner) -> bool:
    return (outer.start.line, outer.start.column) <= (inner.start.line, inner.start.column) and \
        (inner.end.line, inner.end.column) <= (outer.end.line, outer.end.column)


def _statements(node) -> list:
    """The statements directly inside a compound statement (an `elif` counts as one)."""
    out = []
    for name in _COMPOUND_BODIES:
        part = getattr(node, name, None)
        for item in part if isinstance(part, (list, tuple)) else (() if part is None else (part,)):
            if type(item) in (cst.IndentedBlock, cst.SimpleStatementSuite):
                out.extend(item.body)
            elif type(item) is cst.If:
                out.append(item)
            else:  # else:, finally:, except ...:, case ...:
                out.extend(_statements(item))
    return out


def statement_of(file, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The innermost statement holding `node` (a simple statement line, or a compound one whose
    header holds it)."""
    target = file.position(node)
    if target is None:
        return None
    body = list(file.module.body)
    found = None
    while body:
        for statement in body:
            where = file.position(statement)
            if where is not None and _contains(where, target):
                found = statement
                body = _statements(statement) if isinstance(statement, cst.BaseCompoundStatement) else []
                break
        else:
            break
    return found


def parent_of(root: cst.CSTNode, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """`node`'s parent, searched under `root` (a statement: small)."""
    stack = [root]
    while stack:
        current = stack.pop()
        for child in current.children:
            if child is node:
                return current
            stack.append(child)
    return None


def function_of(file, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
    """The innermost function whose body holds `node`."""
    target = file.position(node)
    body, found = list(file.module.body), None
    while body and target is not None:
        for statement in body:
            where = file.position(statement)
            if where is not None and _contains(where, target) and isinstance(statement, cst.BaseCompoundStatement):
                if type(statement) is cst.FunctionDef:
                    found = statement
                body = _statements(statement)
                break
        else:
            break
    return found


def torch_alias(module: cst.Module) -> Optional[str]:
    """The name `import torch` (or `import torch as th`) binds at the top of the module."""
    for statement in module.body:
        if type(statement) is cst.SimpleStatementLine:
            for small in statement.body:
                if type(small) is cst.Import:
                    for alias in small.names:
                        if type(alias.name) is cst.Name and alias.name.value == "torch":
                            return alias.asname.name.value if alias.asname else "torch"
    return None


def _is_import(statement) -> bool:
    return type(statement) is cst.SimpleStatementLine and all(
        type(s) in (cst.Import, cst.ImportFrom) for s in statement.body)


def _is_docstring(statement) -> bool:
    return type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 and \
        type(statement.body[0]) is cst.Expr and isinstance(statement.body[0].value, (cst.SimpleString,
                                                                                          cst.ConcatenatedString))


def module_header_end(module: cst.Module) -> tuple[Optional[cst.CSTNode], str]:
    """Where new module-level lines go: (statement, "after"), or (first statement, "before")."""
    last = None
    for index, statement in enumerate(module.body):
        if (index == 0 and _is_docstring(statement)) or _is_import(statement):
            last = statement
            continue
        break
    torch_import = _first_torch_import(module)
    if torch_import is not None and (last is None or module.body.index(torch_import) > module.body.index(last)):
        return torch_import, "after"  # code before `import torch` (a notebook's first cell): the new lines need it
    if last is not None:
        return last, "after"
    return (module.body[0], "before") if module.body else (None, "")


def _first_torch_import(module: cst.Module) -> Optional[cst.CSTNode]:
    """The first module-level statement that imports torch (`import torch`, `import torch.nn as nn`)."""
    for statement in module.body:
        if _is_import(statement) and any(
                type(s) is cst.Import and any((dotted(a.name) or "").split(".")[0] == "torch" for a in s.names)
                for s in statement.body):
            return statement
    return None


def free_name(file, *candidates: str) -> Optional[str]:
    """The first candidate that names nothing in the file (attributes and keywords do not count)."""
    cache = file.__dict__.setdefault("_fix_names", {})
    if "names" not in cache:
        names, stack = set(), [file.module]
        while stack:
            node = stack.pop()
            if type(node) is cst.Name:
                names.add(node.value)
            elif type(node) is cst.Attribute:
                stack.append(node.value)
            elif type(node) is cst.Arg:
                stack.append(node.value)
            else:
                stack.extend(children(node))
        cache["names"] = names
    return next((name for name in candidates if name not in cache["names"]), None)


def simple_string_value(node: cst.CSTNode) -> Optional[str]:
    if type(node) is cst.SimpleString and not node.prefix.strip("rRuU"):
        try:
            value = string_value(node)
            return value if isinstance(value, str) else None
        except Exception:  # noqa: BLE001 - an odd literal: no fix
            return None
    return None


def is_atom(node: cst.CSTNode) -> bool:
    """Can `.method()` be appended to this expression as written?"""
    return bool(getattr(node, "lpar", ())) or isinstance(
        node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.List, cst.Tuple, cst.Dict, cst.Set,
               cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp))

