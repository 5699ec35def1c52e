"""Line and column of every node, as libcst's PositionProvider gives them, for a tenth of its price.

Positions are asked for only in files that have something to report (and in the project modules a
why-chain names), and then for a handful of nodes. libcst's provider turns every token into a line and
column as it generates the code (a third of a second on a 2,000-line file, three times its parse); here
the code generation only notes, per node, the index of its first and last token (the same hooks the
provider uses, so the ranges are the same), and a token index becomes a line and column when a node is
asked for.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from itertools import accumulate
from typing import Optional

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodePosition, CodeRange

_NEWLINE = re.compile(r"\r\n?|\n")  # as libcst's provider splits lines


class _TokenMarks(CodegenState):
    """Code generation that notes each node's (first token, end token) span instead of lines and columns.
    Spans are keyed by id: libcst's node hash is a Python call, and the tree outlives its Positions."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.spans: dict[int, tuple[int, int]] = {}
        self._starts: list[int] = []

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append(len(self.tokens))

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        if id(node) not in self.spans:  # a syntactic span, noted inside the node's own code, stands
            self.spans[id(node)] = (start, len(self.tokens))

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node: Optional[cst.CSTNode] = None,
                                  end_node: Optional[cst.CSTNode] = None) -> "_SyntacticSpan":
        return _SyntacticSpan(self, node, start_node, end_node)

    def pop_trailing_newline(self) -> None:
        pass  # the provider counts the file's last newline before dropping it: so do the spans


class _SyntacticSpan:
    """`with state.record_syntactic_position(node):` (a class: a generator context costs more than the rest)."""

    __slots__ = ("marks", "node", "start_node", "end_node", "start")

    def __init__(self, marks: _TokenMarks, node: cst.CSTNode, start_node: Optional[cst.CSTNode],
                 end_node: Optional[cst.CSTNode]) -> None:
        self.marks, self.node, self.start_node, self.end_node = marks, node, start_node, end_node
        self.start = 0

    def __enter__(self) -> None:
        self.start = len(self.marks.tokens)

    def __exit__(self, *exc: object) -> None:
        spans = self.marks.spans
        spans[id(self.node)] = (spans[id(self.start_node)][0] if self.start_node is not None else self.start,
                                spans[id(self.end_node)][1] if self.end_node is not None else len(self.marks.tokens))


class Positions:
    """`positions.get(node)`: the node's CodeRange, or None for a node outside the module."""

    def __init__(self, module: cst.Module) -> None:
        marks = _TokenMarks(module)
        module._codegen(marks)
        self._module = module  # its nodes stay alive while their ids are keys
        self._spans = marks.spans
        tokens = marks.tokens
        self._offsets = [0, *accumulate(map(len, tokens))]  # token index -> character offset
        # the offsets where a line begins, newlines found token by token as the provider finds them
        self._line_starts = [self._offsets[index] + found.end() for index, token in enumerate(tokens)
                             if "\n" in token or "\r" in token for found in _NEWLINE.finditer(token)]

    def get(self, node: cst.CSTNode) -> Optional[CodeRange]:
        span = self._spans.get(id(node))
        if span is None:
            return None
        return CodeRange(self._at(span[0]), self._at(span[1]))

    def _at(self, token: int) -> CodePosition:
        offset = self._offsets[token]
        line = bisect_right(self._line_starts, offset)  # lines begun at or before this offset
        return CodePosition(line + 1, offset - (self._line_starts[line - 1] if line else 0))
