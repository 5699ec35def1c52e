"""One file's source as the reader sees it: lines and snippets for the why of a finding.

Positions are resolved lazily, on the first finding: a positions pass over
every tree would cost more than the analysis. A node of another module of the
project (a helper that made the value) is rendered with that module's path.
"""

from __future__ import annotations

import os
from typing import Callable, Optional

import libcst as cst

from devlint.core.facts import Context
from devlint.core.positions import Positions


class FileContext:
    """Renders nodes of one file as lines and snippets, for the why of a finding."""

    def __init__(self, module: cst.Module, others: Optional[Callable[[], dict]] = None) -> None:
        self.module = module
        self._positions = None
        # path -> the tree of another module whose nodes a why-chain may hold (asked when one is met)
        self._others = others or dict
        self._other_positions: dict[str, Positions] = {}
        self._texts: dict[str, str] = {}  # path -> the text of another module (line_column_in)
        # each step and chain rendered, with the (path, line) pairs it names ("": this file): a finding's
        # why-chain carries them as data (SARIF's related locations, a notebook's cells), not as text
        self._named: list[tuple[str, tuple]] = []

    def position(self, node: cst.CSTNode):
        if self._positions is None:
            self._positions = Positions(self.module)
        return self._positions.get(node)

    def line(self, node: cst.CSTNode) -> int:
        pos = self.position(node)
        return pos.start.line if pos is not None else 0

    def elsewhere(self, node: cst.CSTNode):
        """(path, position) of a node of another module of the project; None if it is nowhere known."""
        for path, tree in self._others().items():
            positions = self._other_positions.get(path)
            if positions is None:
                positions = self._other_positions[path] = Positions(tree)
            pos = positions.get(node)
            if pos is not None:
                return path, pos
        return None

    def line_column_in(self, path: str, node: cst.CSTNode) -> Optional[tuple[int, int]]:
        """(line, column from 0) of a node of the project module at `path`, found by its code in the file's text
        (a positions pass over that module costs more than the walk that asked); None where its first line is
        not there once (absent, or written twice: which one is meant, the text cannot tell)."""
        tree = self._others().get(path)
        text = self._texts.get(path)
        if text is None:
            text = self._texts[path] = _text_of(path)
        if tree is None or not text:
            return None
        # its first line: the later lines of a node written over several are indented where it stands, which
        # the node's own code does not show
        code = tree.code_for_node(node).split("\n", 1)[0]
        at = text.find(code) if code.strip() else -1
        if at < 0 or text.find(code, at + 1) >= 0:
            return None
        at += sum(len(tree.code_for_node(paren)) for paren in getattr(node, "lpar", ()))  # (as the provider does)
        line = text.count("\n", 0, at) + text.count("\r", 0, at) - text.count("\r\n", 0, at)  # (as _NEWLINE)
        return line + 1, at - (max(text.rfind("\n", 0, at), text.rfind("\r", 0, at)) + 1)

    def place(self, node: cst.CSTNode) -> tuple[str, int]:
        """("", line) in this file, (path, line) in another module of the project, ("", 0) if nowhere."""
        pos = self.position(node)
        if pos is not None:
            return "", pos.start.line
        found = self.elsewhere(node)
        return (_shown(found[0]), found[1].start.line) if found is not None else ("", 0)

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
        place = self.place(node)
        text = f"{_at(*place)} `{self.snippet(node)}`"
        return self._name(f"{text} ({note})" if note else text, (place,))

    def places_in(self, text: str) -> tuple:
        """The (path, line) pairs ("": this file) of the steps rendered into `text`, in order."""
        found: list = []
        for named, places in self._named:
            if named in text:
                found.extend(p for p in places if p not in found and p[1])
        return tuple(found)

    def _name(self, text: str, places: tuple) -> str:
        self._named.append((text, places))
        return text

    def chain(self, value, limit: int = 3) -> str:
        """`line 12 `model.to(device)` (moved to cuda)`; ...: where a value got its device, a line each."""
        by_line: dict[tuple, list] = {}
        for node, note in getattr(value, "why", ()):
            if node is None:
                continue
            line = self.place(node)
            entry = by_line.get(line)
            if entry is None:
                by_line[line] = [node, [note] if note else []]
                continue
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                entry[0] = node  # the whole statement reads best
            if note and note not in entry[1]:
                entry[1].append(note)
        parts = []
        # in one file, line order is the story's order; across modules, the order the steps were taken
        entries = list(by_line.items()) if any(path for path, _ in by_line) else sorted(by_line.items())
        for line, (node, notes) in entries[-limit:]:
            text = f"{_at(*line)} `{self.snippet(node)}`"
            parts.append(f"{text} ({'; '.join(notes)})" if notes else text)
        return self._name("; ".join(parts), tuple(line for line, _ in entries[-limit:]))

    def context_lines(self, context: Context) -> list[str]:
        return [f"in `{name}()`, called from {self.step(node)}" for node, name in reversed(context.calls)
                if node is not None]


def _at(path: str, line: int) -> str:
    return f"{path}:{line}" if path else f"line {line}"


def _shown(path: str) -> str:
    """A path as the user reads it: relative to the current folder when below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _text_of(path: str) -> str:
    try:
        with open(path, encoding="utf-8-sig", newline="") as stream:
            return stream.read()
    except (OSError, UnicodeDecodeError):
        return ""
