"""Python containers of abstract values: lists, tuples, dicts, and what unpacking them yields."""

from __future__ import annotations

from typing import Callable, Iterable, Optional, Sequence, cast

import libcst as cst

from devlint.static.syntax import string_value
from devlint.core.values import CPU, UNKNOWN, Located, Seq, Tensor, Value, join, replace


def join_all(values: Iterable[Value], availability_split: bool = False) -> Value:
    result: Optional[Value] = None
    for value in values:
        result = value if result is None else join(result, value, availability_split)
    return result if result is not None else UNKNOWN


def make_seq(kind: str, items: Optional[Sequence[Value]], all_items: Iterable[Value]) -> Seq:
    return Seq(kind=kind, items=tuple(items) if items is not None else None, elem=join_all(list(all_items)))


def tensors_in(value: Value) -> list[Tensor]:
    """The tensors a value holds: itself, or the members of a (nested) container."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, Seq):
        items = (list(value.items) if value.items is not None else [value.elem]) + list(value.gpu_members)
        out: list[Tensor] = []
        for item in items:
            out.extend(tensors_in(item) if isinstance(item, (Tensor, Seq)) else [])
        return out
    return []


def map_members(value: Value, change: Callable[[Value], Value]) -> Value:
    """`value` with `change` applied to it, or to each member of a (nested) container."""
    if isinstance(value, Seq):
        items = tuple(map_members(v, change) for v in value.items) if value.items is not None else None
        return replace(value, items=items, elem=map_members(value.elem, change),
                       gpu_members=tuple(map_members(v, change) for v in value.gpu_members))
    return change(value)


def dict_entry(value: Value, key: str) -> Optional[Value]:
    if isinstance(value, Seq) and value.keys is not None:
        for k, v in zip(value.keys, cast("tuple[Value, ...]", value.items)):  # (a dict's keys go with its items)
            if k == key:
                return v
    return None


def element(value: Value) -> Value:
    """What iterating `value` (or `*value`) yields, without a node to blame."""
    if isinstance(value, Seq):
        return value.elem
    if isinstance(value, Tensor):
        return replace(value, scalar=False, fresh=False)
    return UNKNOWN


def item(value: Value, index: int) -> Value:
    """The `index`-th target of `a, b = value`."""
    if isinstance(value, Seq):
        if value.items is not None and index < len(value.items):
            return value.items[index]
        return value.elem
    if isinstance(value, Tensor):
        return replace(value, scalar=False, fresh=False)  # unpacking a batch or a tensor
    if isinstance(value, Located):
        return Located(why=value.why, where=value.where)
    return UNKNOWN


def seq_store(container: Seq, key: object, value: Value) -> Seq:
    """`container[key] = value`."""
    if container.keys is not None and key is not None:
        keys = list(container.keys)
        items = list(cast("tuple[Value, ...]", container.items))  # (a dict's keys go with its items)
        if key in keys:
            items[keys.index(key)] = value
        else:
            keys.append(key)
            items.append(value)
        return Seq(kind=container.kind, items=tuple(items), keys=tuple(keys), elem=join_all(items))
    return Seq(kind=container.kind, elem=join(container.elem, value) if container.elem is not UNKNOWN else value)


def const_key(node: cst.Subscript) -> object:
    """The constant in `x["key"]`, `x[0]`, `x[-1]`; None for anything else."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
        return None
    expr = node.slice[0].slice.value
    if type(expr) is cst.SimpleString:
        try:
            return string_value(expr)
        except Exception:  # noqa: BLE001 - a string libcst cannot evaluate is no key
            return None
    if type(expr) is cst.Integer:
        return int(expr.value, 0)
    if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus and isinstance(
            expr.expression, cst.Integer):
        return -int(expr.expression.value, 0)
    return None


def loader_like(value: Value) -> bool:
    """A list of batches of cpu tensors (`zip(xs, ys)` over cpu data): iterating it is a data loop."""
    return isinstance(value, Seq) and isinstance(value.elem, Seq) and any(
        isinstance(i, Tensor) and i.where == CPU for i in (value.elem.items or ()))
