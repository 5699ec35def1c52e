"""One file's source as the reader sees it: lines and snippets for the why of a finding.

Positions are resolved lazily, on the first finding: a positions pass over
every tree would cost more than the analysis.
"""

from __future__ import annotations

import libcst as cst

from devlint.core.facts import Context
from devlint.core.positions import Positions


class FileContext:
    """Renders nodes of one file as lines and snippets, for the why of a finding."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._positions = None

    def position(self, node: cst.CSTNode):
        if self._positions is None:
            self._positions = Positions(self.module)
        return self._positions.get(node)

    def line(self, node: cst.CSTNode) -> int:
        pos = self.position(node)
        return pos.start.line if pos is not None else 0

    def snippet(self, node: cst.CSTNode, limit: int = 60) -> str:
        if type(node) is cst.SimpleStatementLine and len(node.body) == 1:
            node = node.body[0]
        if isinstance(node, (cst.For,)):
            text = f"for {self.module.code_for_node(node.target)} in {self.module.code_for_node(node.iter)}"
        elif type(node) in (cst.If, cst.While, cst.With, cst.FunctionDef, cst.ClassDef, cst.Try):
            text = self.module.code_for_node(node).splitlines()[0].rstrip(":")
            text = text.strip()
        else:
            text = self.module.code_for_node(node)
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def step(self, node: cst.CSTNode, note: str = "") -> str:
        text = f"line {self.line(node)} `{self.snippet(node)}`"
        return f"{text} ({note})" if note else text

    def chain(self, value, limit: int = 3) -> str:
        """`line 12 `model.to(device)` (moved to cuda)`; ...: where a value got its device, a line each."""
        by_line: dict[int, list] = {}
        for node, note in getattr(value, "why", ()):
            if node is None:
                continue
            line = self.line(node)
            entry = by_line.get(line)
            if entry is None:
                by_line[line] = [node, [note] if note else []]
                continue
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                entry[0] = node  # the whole statement reads best
            if note and note not in entry[1]:
                entry[1].append(note)
        parts = []
        for line, (node, notes) in sorted(by_line.items())[-limit:]:
            text = f"line {line} `{self.snippet(node)}`"
            parts.append(f"{text} ({'; '.join(notes)})" if notes else text)
        return "; ".join(parts)

    def context_lines(self, context: Context) -> list[str]:
        return [f"in `{name}()`, called from {self.step(node)}" for node, name in reversed(context.calls)
                if node is not None]
