"""Automatic fixes: what a rule proposes (edits named by libcst nodes) and how they become text edits.

A rule's verdict carries a `Fix`: edits anchored on nodes of the tree it judged. The engine
turns them into `Edit`s (line/column spans and replacement text) for the findings it keeps, so
they survive the cache as plain data and apply to the text without parsing it again. A fix is
applied whole or not at all; `devlint.static.fixes.apply` does the applying.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from devlint.core.findings import SAFE, UNSAFE, Edit

# where an edit goes, relative to its node (BEFORE_LAST: before its last character, a call's `)`)
REPLACE, BEFORE, AFTER, BEFORE_LAST = "replace", "before", "after", "before-last"
LINE_BEFORE, LINE_AFTER = "line-before", "line-after"  # whole new lines around the node's statement


@dataclass(frozen=True)
class NodeEdit:
    node: cst.CSTNode
    content: str
    where: str = REPLACE


@dataclass(frozen=True)
class Fix:
    edits: tuple[NodeEdit, ...]
    applicability: str = SAFE

    @classmethod
    def safe(cls, *edits: NodeEdit) -> "Fix":
        return cls(tuple(edits), SAFE)

    @classmethod
    def unsafe(cls, *edits: NodeEdit) -> "Fix":
        return cls(tuple(edits), UNSAFE)


Position = Callable[[cst.CSTNode], Optional[object]]  # node -> libcst CodeRange


def _span(node: cst.CSTNode, position: Position):
    """The node's range including its own parentheses (libcst's range leaves them out)."""
    pos = position(node)
    if pos is None:
        return None
    start, end = pos.start, pos.end
    lpar, rpar = getattr(node, "lpar", ()), getattr(node, "rpar", ())
    # an expression's parentheses are sequences; a `with`'s are one paren or MaybeSentinel, around its items
    if isinstance(lpar, (list, tuple)) and isinstance(rpar, (list, tuple)) and lpar and rpar:
        first, last = position(lpar[0]), position(rpar[-1])
        if first is not None and last is not None:
            start, end = first.start, last.end
    return start, end


def to_edits(fix: Fix, position: Position, lines: list[str], newline: str = "\n") -> tuple[Edit, ...]:
    """Text edits for a node-anchored fix; () when a node has no position or a line edit cannot go there.

    `lines` are the file's lines with their line ends (`str.splitlines(keepends=True)`).
    """
    out = []
    for edit in fix.edits:
        span = _span(edit.node, position)
        if span is None:
            return ()
        start, end = span
        if edit.where == REPLACE:
            out.append(Edit(start.line, start.column + 1, end.line, end.column + 1, edit.content))
        elif edit.where == BEFORE:
            out.append(Edit(start.line, start.column + 1, start.line, start.column + 1, edit.content))
        elif edit.where == AFTER:
            out.append(Edit(end.line, end.column + 1, end.line, end.column + 1, edit.content))
        elif edit.where == BEFORE_LAST:  # the node's own last character, inside any parentheses around it
            own = position(edit.node).end
            out.append(Edit(own.line, own.column, own.line, own.column, edit.content))
        else:
            line_edit = _line_edit(edit, start, end, lines, newline)
            if line_edit is None:
                return ()
            out.append(line_edit)
    return tuple(out)


def _line_edit(edit: NodeEdit, start, end, lines: list[str], newline: str) -> Optional[Edit]:
    """New lines before or after a statement, at the statement's indentation."""
    if not 0 < start.line <= len(lines):
        return None
    indent = lines[start.line - 1][: start.column]
    if indent.strip():  # the statement does not begin its line (`if x: y = f()`, `a; b`)
        return None
    text = "".join(indent + line + newline if line else newline for line in edit.content.split("\n"))
    if edit.where == LINE_BEFORE:
        return Edit(start.line, 1, start.line, 1, text)
    if end.line >= len(lines) and not lines[-1].endswith(("\n", "\r")):  # a last line with no line end
        column = len(lines[-1]) + 1
        return Edit(len(lines), column, len(lines), column, newline + text[: -len(newline)])
    return Edit(end.line + 1, 1, end.line + 1, 1, text)
