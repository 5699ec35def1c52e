"""Line and column of every node, in one code generation pass: PositionProvider's answers, cheaper.

libcst's PositionProvider walks the tree as a visitor and then generates the
code, splitting every token with a regular expression and building two
position objects per node: on a large file that costs several times the code
generation itself. Here the same pass keeps plain (line, column) pairs and
makes a `CodeRange` only for the nodes a finding asks about. The answers are
the same as PositionProvider's (syntactic positions, whitespace excluded where
a node records its own), which tests/test_positions.py checks on real files.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import CodePosition, CodeRange

try:  # libcst's code generation state: private, so anything unexpected falls back to the public provider
    from libcst._nodes.internal import CodegenState
except ImportError:  # pragma: no cover - a libcst that moved it
    CodegenState = None


class Positions:
    """`positions.get(node)`: the node's CodeRange, or None for a node outside the module."""

    def __init__(self, module: cst.Module) -> None:
        self._ranges: dict = {}
        self._made: dict = {}
        if CodegenState is not None:
            try:
                state = _PositionState(module)
                module._codegen(state)
                self._ranges = state.ranges
                return
            except Exception:  # noqa: BLE001 - a libcst whose codegen protocol changed: the slow, public way
                pass
        from libcst.metadata import MetadataWrapper, PositionProvider

        self._made = dict(MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider))

    def get(self, node: cst.CSTNode) -> Optional[CodeRange]:
        made = self._made.get(node)
        if made is None:
            raw = self._ranges.get(node)
            if raw is None:
                return None
            (start_line, start_column), (end_line, end_column) = raw
            made = self._made[node] = CodeRange(CodePosition(start_line, start_column),
                                                CodePosition(end_line, end_column))
        return made


class _Recorded:
    """`with state.record_syntactic_position(node)`: the node's range is what is generated inside,
    or hoisted from the child nodes given."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: "_PositionState", node, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = (self.state.line, self.state.column)

    def __exit__(self, *exc_info) -> bool:
        state = self.state
        ranges = state.ranges
        start = ranges[self.start_node][0] if self.start_node is not None else self.start
        end = ranges[self.end_node][1] if self.end_node is not None else (state.line, state.column)
        ranges[self.node] = (start, end)
        return False


if CodegenState is not None:
    class _PositionState(CodegenState):
        def __init__(self, module: cst.Module) -> None:
            super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
            self.line, self.column = 1, 0  # one-indexed line, zero-indexed column, as libcst counts
            self.starts: list = []
            self.ranges: dict = {}

        def add_indent_tokens(self) -> None:
            for token in self.indent_tokens:
                self.add_token(token)

        def add_token(self, value: str) -> None:
            self.tokens.append(value)
            if "\n" in value or "\r" in value:
                lines = value.replace("\r\n", "\n").replace("\r", "\n").split("\n")
                self.line += len(lines) - 1
                self.column = len(lines[-1])
            else:
                self.column += len(value)

        def before_codegen(self, node: cst.CSTNode) -> None:
            self.starts.append((self.line, self.column))

        def after_codegen(self, node: cst.CSTNode) -> None:
            start = self.starts.pop()
            if node not in self.ranges:  # a syntactic position recorded inside stands
                self.ranges[node] = (start, (self.line, self.column))

        def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                      end_node: Optional[cst.CSTNode] = None) -> _Recorded:
            return _Recorded(self, node, start_node, end_node)
