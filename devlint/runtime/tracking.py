"""One record per tensor the checker has seen, dropped when the tensor dies.

A dict keyed by `id(tensor)`, with a weak reference whose callback removes the
entry the moment the tensor is freed (before its id can be reused). Looking a
tensor up costs one `id()` and one dict lookup, which matters: it happens for
every operand of every torch call.
"""

from __future__ import annotations

import weakref
from typing import Any, Optional


class Record:
    """What the checker knows about one tensor."""

    __slots__ = ("device", "origin", "made", "autograd", "ref")

    def __init__(self) -> None:
        self.device: Any = None  # simulated GPU: the logical device (None: the real one)
        self.origin: Any = None  # Origin: where its device was decided
        self.made: Any = None  # ((code, line) where computed, the line its input was computed on)
        self.autograd = False  # made by the autograd engine, out of the checker's sight
        self.ref: Any = None


class _Ref(weakref.ref):
    __slots__ = ("key",)


class Records:
    def __init__(self) -> None:
        self.table: dict[int, Record] = {}
        table = self.table

        def forget(ref: _Ref) -> None:
            table.pop(ref.key, None)

        self._forget = forget

    def get(self, tensor: Any) -> Optional[Record]:
        return self.table.get(id(tensor))

    def of(self, tensor: Any) -> Record:
        """The tensor's record, created on first use."""
        key = id(tensor)
        record = self.table.get(key)
        if record is None:
            record = Record()
            ref = _Ref(tensor, self._forget)
            ref.key = key
            record.ref = ref
            self.table[key] = record
        return record

    def __len__(self) -> int:
        return len(self.table)
