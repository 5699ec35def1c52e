"""The interpreter as the walk's own parts see it (`Walker`): what statements.py, expressions.py,
functions.py and the rest annotate `interp` with, so that none of them imports interpreter.py, which
imports them all. `Interpreter` is the one implementation; mypy checks it against this at each call.

A semantics handler sees less, `Walk` (devlint.static.semantics.callsite): the parts see that too, and
the walk's state (`tables`, `frames`, `facts`) and the verbs that walk bodies. This module names only
leaf modules (the state's types), so the arrows all run one way: interpreter.py -> the parts -> here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Protocol, Sequence

from devlint.static.semantics.callsite import Walk

if TYPE_CHECKING:
    import libcst as cst

    from devlint.core.values import Class, Function, Value
    from devlint.static.analysis.emitter import Emitter
    from devlint.static.analysis.frames import Frames
    from devlint.static.analysis.state import State
    from devlint.static.analysis.tables import FileQuestions, FileTables
    from devlint.static.semantics.callsite import Args


class Walker(Walk, Protocol):
    """`Walk`, and the state and verbs that only the walk's own parts use."""

    @property
    def tables(self) -> FileTables: ...
    @property
    def frames(self) -> Frames: ...
    @property
    def facts(self) -> Emitter: ...
    @property
    def file(self) -> FileQuestions: ...

    def exec_suite(self, suite: cst.BaseSuite, state: State) -> State: ...
    def exec_block(self, body: Sequence[cst.BaseStatement | cst.BaseSmallStatement], state: State) -> State: ...
    def store_attribute(self, base: str, attr: str, value: Value, state: State, line: cst.CSTNode) -> None: ...
    def current(self, value: Value, state: State) -> Value: ...
    def class_object(self, cls: Class) -> Value: ...  # an object of a class of the file, as its methods see it
    # wider than `Walk.invoke`: `with` calls `__enter__` and `__exit__` for an item that need be no call
    def invoke(self, fn: Function, args: Args, node: cst.CSTNode, state: State,
               receiver_node: Optional[cst.CSTNode]) -> Value: ...
    def read_property(self, fn: Function, node: cst.CSTNode, state: State) -> Value: ...  # `obj.prop`: its getter
