"""`record`: the frozen dataclass every abstract value and device is, with a fast `__init__` and `replace`."""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from dataclasses import field as field  # re-exported: records declare their fields with it
from typing import TYPE_CHECKING, TypeVar, cast

if TYPE_CHECKING:
    from types import FunctionType

    from _typeshed import DataclassInstance
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_options):
        """`typing.dataclass_transform` (3.11): tells mypy that a record is a frozen dataclass; nothing at run time."""
        return lambda decorator: decorator

_Class = TypeVar("_Class")
_Record = TypeVar("_Record", bound="DataclassInstance")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[_Class]) -> type[_Class]:
    """`@dataclass(frozen=True)`, with an `__init__` that fills the instance's dict in one call.

    A frozen dataclass's own `__init__` goes through `object.__setattr__` once per field (1.7 us
    for a Tensor); the walk makes hundreds of thousands of values. Equality, hashing and
    immutability stay the dataclass's."""
    cls = dataclass(frozen=True, init=False)(cls)  # (its own `__init__` is made below)
    parameters, defaults = [], {}
    for f in fields(cast("type[DataclassInstance]", cls)):
        if f.default_factory is not MISSING or not f.init:  # pragma: no cover - none here: keep dataclass's
            return cls
        if f.default is MISSING:
            parameters.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            parameters.append(f"{f.name}=_default_{f.name}")
    names = ", ".join(f"{f.name}={f.name}" for f in fields(cast("type[DataclassInstance]", cls)))
    source = f"def __init__(self, {', '.join(parameters)}):\n    self.__dict__.update({names})\n"
    namespace: dict[str, FunctionType] = {}
    exec(source, defaults, namespace)  # noqa: S102 - generated from the class's own field names, as dataclasses does
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[method-assign]  # the point: the generated __init__ replaces the dataclass's
    return cls


_FIELD_NAMES: dict[type, frozenset[str]] = {}


def replace(value: _Record, **changes: object) -> _Record:
    """`dataclasses.replace` for the frozen records here, without its `__init__` call (the walk makes
    hundreds of thousands of them): none of them has `__post_init__` or `InitVar`s."""
    kind = type(value)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = frozenset(f.name for f in fields(kind))
    if not names.issuperset(changes):
        raise TypeError(f"{kind.__name__} has no field {sorted(set(changes) - names)[0]!r}")
    new = object.__new__(kind)
    attributes = new.__dict__
    attributes.update(value.__dict__)
    attributes.update(changes)
    return new
