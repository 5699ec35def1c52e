"""Small helpers over libcst, shared by the engine, the walk and the semantics handlers: the trusted
parse, a node's children, dotted names, the values of string literals."""

from __future__ import annotations

import ast
from dataclasses import fields
from operator import attrgetter
from typing import Any, Callable, Iterator, Optional, cast

import libcst as cst
from libcst import CSTNode


def parse_module(source: bytes | str) -> cst.Module:
    """`libcst.parse_module`, without each node re-validating what the parser already guarantees.

    Every libcst node checks its fields in `__post_init__`; on a tree the parser built that
    is a tenth to a fifth of the parse (libcst's own comment on `__post_init__` suggests skipping it for
    parsed trees). Nodes built while this runs are not checked: parsing runs one file at a
    time per process (on the deep-stack thread), and nothing else builds nodes meanwhile."""
    CSTNode.__post_init__ = _trusted  # type: ignore[method-assign]  # deliberately, for this parse only
    try:
        return cst.parse_module(source)
    finally:
        CSTNode.__post_init__ = _validated  # type: ignore[method-assign]  # put back


def _plain_string(raw: str) -> Optional[str]:
    """The value of a str literal with no escapes and no carriage return (most of them), without a
    compile; None for anything else (bytes, escapes, odd prefixes), which `ast.literal_eval` answers."""
    prefix_length = 0
    while prefix_length < len(raw) and raw[prefix_length] not in "'\"":
        prefix_length += 1
    if raw[:prefix_length] not in ("", "r", "R", "u", "U") or "\\" in raw or "\r" in raw:
        return None
    body = raw[prefix_length:]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    if len(body) < 2 * len(quote) or not body.endswith(quote):
        return None
    return body[len(quote):len(body) - len(quote)]


def _trusted(self: cst.CSTNode) -> None:
    return None


_validated = CSTNode.__post_init__


def dotted(node: Optional[cst.CSTNode]) -> Optional[str]:
    """`a.b.c` for a chain of names, None for anything else."""
    kind = type(node)  # exact types: isinstance on libcst's classes goes through ABCMeta (slow)
    if kind is cst.Name:
        return cast(cst.Name, node).value
    if kind is cst.Attribute:
        attribute = cast(cst.Attribute, node)
        base = dotted(attribute.value)
        return f"{base}.{attribute.attr.value}" if base else None
    return None


_STRINGS: dict[str, Any] = {}
_NOT_A_VALUE = object()


def string_value(node: cst.SimpleString) -> Any:
    """The str or bytes a string literal stands for; ValueError for one Python would not accept.

    libcst's `evaluated_value` runs `ast.literal_eval` (a compile) each time; the same literals
    come back again and again (`"cuda"`, `"cpu"`, keys), so the answers are kept by their text."""
    raw = node.value
    value = _STRINGS.get(raw, _NOT_A_VALUE)
    if value is _NOT_A_VALUE:
        try:
            value = _plain_string(raw)
            if value is None:
                value = ast.literal_eval(raw)
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            value = None
        if len(_STRINGS) > 20_000:  # many distinct literals: keep memory bounded
            _STRINGS.clear()
        _STRINGS[raw] = value
    if value is None:
        raise ValueError(f"not a string literal: {raw[:40]}")
    return value


def attr_path(node: cst.CSTNode) -> str:
    """The dotted text of an import's module or name (`a.b.c`), "" for anything else."""
    if type(node) is cst.Name:
        return node.value
    if type(node) is cst.Attribute:
        return f"{attr_path(node.value)}.{node.attr.value}"
    return ""


_OPERATORS = {
    "Add": "+", "Subtract": "-", "Multiply": "*", "Divide": "/", "FloorDivide": "//", "Modulo": "%",
    "Power": "**", "MatrixMultiply": "@", "BitAnd": "&", "BitOr": "|", "BitXor": "^", "LeftShift": "<<",
    "RightShift": ">>", "AddAssign": "+=", "SubtractAssign": "-=", "MultiplyAssign": "*=", "DivideAssign": "/=",
    "MatrixMultiplyAssign": "@=", "PowerAssign": "**=", "FloorDivideAssign": "//=", "ModuloAssign": "%=",
    "BitAndAssign": "&=", "BitOrAssign": "|=", "BitXorAssign": "^=", "LeftShiftAssign": "<<=",
    "RightShiftAssign": ">>=", "LessThan": "<", "GreaterThan": ">", "LessThanEqual": "<=",
    "GreaterThanEqual": ">=", "Equal": "==", "NotEqual": "!=",
}


def op_text(op: cst.CSTNode) -> str:
    """`+` for cst.Add, `+=` for cst.AddAssign."""
    return _OPERATORS.get(type(op).__name__, type(op).__name__)


class LazyCode(str):
    """A node's source, rendered on one line on first use: most operands are never reported."""

    _module: cst.Module
    _node: cst.CSTNode
    _text: Optional[str]

    def __new__(cls, module: cst.Module, node: cst.CSTNode) -> "LazyCode":
        obj = super().__new__(cls, "")
        obj._module, obj._node, obj._text = module, node, None
        return obj

    def render(self) -> str:
        if self._text is None:
            text = " ".join(self._module.code_for_node(self._node).split())
            self._text = text if len(text) <= 60 else text[:57] + "..."
        return self._text

    def __str__(self) -> str:
        return self.render()

    def __format__(self, spec: str) -> str:
        return format(self.render(), spec)

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


# A node's children, for the walks that need every call or name but none of the whitespace.
_SKIPPED_FIELDS = frozenset({
    "whitespace_before", "whitespace_after", "leading_lines", "lines_after_decorators", "header", "footer",
    "comma", "lpar", "rpar", "semicolon", "trailing_whitespace", "whitespace_before_colon",
    "whitespace_after_colon", "newline", "indent", "whitespace_after_arg", "whitespace_before_arg", "equal",
    "star_tok", "colon", "operator", "whitespace_after_func", "whitespace_before_args", "whitespace_after_star",
    "whitespace_after_param", "whitespace_after_dot", "dot", "whitespace_after_for", "whitespace_before_in",
    "whitespace_after_in", "whitespace_before_if", "whitespace_after_if", "asynchronous", "value_quote",
})


def _subclasses(kind: type[object]) -> set[type[object]]:
    found = {kind}
    for sub in kind.__subclasses__():
        found |= _subclasses(sub)
    return found


NODE_KINDS = frozenset(_subclasses(cst.CSTNode))  # every node class: a set lookup, not an ABC isinstance


def positional_names(fdef: cst.FunctionDef) -> list[str]:
    """The names of the parameters an argument can reach by position, in order."""
    return [p.name.value for p in list(fdef.params.posonly_params) + list(fdef.params.params)]


def argument_for(call: cst.Call, name: str, position: Optional[int]) -> Optional[cst.BaseExpression]:
    """What a call gives the parameter `name` at `position` (keyword or positional); None where it gives nothing
    for it or unpacks `*args` (positions unknown)."""
    positional = 0
    for arg in call.args:
        if arg.star:
            return None  # `f(*args)`: positions unknown
        if arg.keyword is not None:
            if arg.keyword.value == name:
                return arg.value
            continue
        if positional == position:
            return arg.value
        positional += 1
    return None  # not passed: its default, which the function's own walk reads


def target_names(target: cst.CSTNode) -> Iterator[str]:
    """The names an assignment or loop target binds: `x`, `i, (a, b)`, `[x, y]` (not `self.x`, `d[k]`)."""
    if type(target) is cst.Name:
        yield target.value
    elif type(target) in (cst.Tuple, cst.List):
        for element in cast("cst.Tuple | cst.List", target).elements:
            yield from target_names(element.value)


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """A node's child nodes, straight from its dataclass fields (libcst's `.children` is slow)."""
    kind = type(node)
    getter = GETTERS.get(kind) or field_getter(kind, node)
    out: list[cst.CSTNode] = []
    for value in getter(node):
        value_kind = type(value)
        if value_kind is tuple or value_kind is list:
            out.extend(value)  # libcst's sequence fields hold nodes only
        elif value_kind in NODE_KINDS:
            out.append(value)
    return out


def names_in(node: cst.CSTNode) -> set[str]:
    """Every bare name read or written under a node (`self.calls += len(args)`: `self`, `len`, `args`)."""
    stack, names = [node], set()
    while stack:
        item = stack.pop()
        if type(item) is cst.Name:
            names.add(item.value)
        else:
            stack.extend(children(item))
    return names


# A node's fields are of any kind (nodes, sequences of nodes, strings, None): Any.
FieldGetter = Callable[[cst.CSTNode], tuple[Any, ...]]
GETTERS: dict[type, FieldGetter] = {}  # node class -> a function reading every field worth walking


def field_getter(kind: type, node: cst.CSTNode) -> FieldGetter:
    """One C call that reads every field worth walking: `attrgetter` of their names."""
    names = tuple(f.name for f in fields(node) if f.name not in _SKIPPED_FIELDS and not f.name.startswith(
        ("whitespace", "lbr", "rbr", "first_line", "last_line")))
    getter: FieldGetter
    if not names:
        getter = _no_fields
    elif len(names) == 1:
        one = attrgetter(names[0])
        getter = lambda n: (one(n),)  # noqa: E731 - the one-field case of attrgetter
    else:
        getter = attrgetter(*names)
    GETTERS[kind] = getter
    return getter


def _no_fields(node: cst.CSTNode) -> tuple[()]:
    return ()
