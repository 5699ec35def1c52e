"""One record per tensor the checker has seen, dropped when the tensor dies.

The record is itself the weak reference to its tensor, kept in a dict keyed by
`id(tensor)`; its callback removes the entry the moment the tensor is freed
(before its id can be reused). Looking a tensor up costs one `id()` and one
dict lookup, and recording one costs one object: this happens for every
operand and every result of every torch call.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional


class Record(weakref.ref):
    """What the checker knows about one tensor (and a weak reference to it)."""

    __slots__ = ("key", "device", "origin", "made")
    # device: on a simulated GPU, the logical device (None: the real one, the cpu)
    # origin: Origin, where its device was decided
    # made: ((code, line) where it was computed, the line its input was computed on)


class Records:
    def __init__(self) -> None:
        self.table: dict[int, Record] = {}
        # tensors the autograd engine made out of the checker's sight: their device is unknown
        self.unknown: set[int] = set()
        table, unknown = self.table, self.unknown

        def forget(record: Record) -> None:
            table.pop(record.key, None)
            unknown.discard(record.key)

        self.forget = forget

    def get(self, tensor: Any) -> Optional[Record]:
        return self.table.get(id(tensor))

    def new(self, tensor: Any, device: Any = None, origin: Any = None, made: Any = None) -> Record:
        """A fresh record for `tensor` (replacing any)."""
        record = Record(tensor, self.forget)
        record.key, record.device, record.origin, record.made = id(tensor), device, origin, made
        self.table[record.key] = record
        return record

    def of(self, tensor: Any) -> Record:
        """The tensor's record, created on first use."""
        record = self.table.get(id(tensor))
        return record if record is not None else self.new(tensor)

    def mark_unknown(self, tensor: Any) -> None:
        self.of(tensor)  # its record's weak reference forgets it when it dies
        self.unknown.add(id(tensor))

    def is_unknown(self, tensor: Any) -> bool:
        return id(tensor) in self.unknown

    def __len__(self) -> int:
        return len(self.table)
