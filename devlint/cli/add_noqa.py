"""`--add-noqa`: a `# noqa: CODE` on every line with a finding, to adopt devlint on a legacy codebase
and hold it to "no new problems". An existing `# noqa: ...` or `# devlint: ignore[...]` on the line
gets the new codes; a line where a comment cannot go (inside a multi-line string, after a `\\`)
is left alone and counted."""

from __future__ import annotations

import io
import tokenize
from collections import defaultdict
from dataclasses import replace
from typing import Optional, Sequence

from devlint.core.findings import SAFE, Edit, Finding
from devlint.static.encoding import decode
from devlint.static.suppressions import parse


def _no_comment_lines(text: str) -> set[int]:
    """Lines whose end is inside a string or continued by a backslash."""
    blocked = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                blocked.update(range(token.start[0], token.end[0]))
            elif getattr(tokenize, "FSTRING_START", None) is not None and token.type in (
                    tokenize.FSTRING_MIDDLE, tokenize.FSTRING_END) and token.end[0] > token.start[0]:
                blocked.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return set(range(1, text.count("\n") + 2))
    for number, line in enumerate(text.splitlines(), start=1):
        if line.rstrip().endswith("\\"):
            blocked.add(number)
    return blocked


def noqa_edit(line_text: str, number: int, codes: Sequence[str]) -> Optional[Edit]:
    body = line_text.rstrip("\r\n")
    for directive in parse(body, number):
        if directive.codes is None:
            return None  # a bare `# noqa` silences everything already
        missing = [c for c in codes if not any(c.startswith(k) for k in directive.codes)]
        if not missing:
            return None
        merged = ", ".join(list(directive.codes) + missing)
        text = f"# noqa: {merged}" if directive.kind == "noqa" else f"# devlint: ignore[{merged}]"
        return Edit(number, directive.start + 1, number, directive.end + 1, text)
    end = len(body) + 1
    return Edit(number, end, number, end, f"  # noqa: {', '.join(codes)}")


def noqa_findings(findings: Sequence[Finding], texts: dict[Optional[int], str]) -> tuple[list[Finding], list]:
    """Findings that carry the noqa edits (one per line), and the (line, cell) that cannot take one.

    `texts`: the file's text, or a notebook's cell texts by cell number."""
    by_line: dict[tuple, list[str]] = defaultdict(list)
    first: dict[tuple, Finding] = {}
    for finding in findings:
        key = (finding.cell, finding.line)
        if finding.code not in by_line[key]:
            by_line[key].append(finding.code)
        first.setdefault(key, finding)
    blocked = {cell: _no_comment_lines(text) for cell, text in texts.items()}
    carriers, skipped = [], []
    for (cell, line), codes in sorted(by_line.items(), key=lambda item: (item[0][0] or 0, item[0][1])):
        lines = texts.get(cell, "").splitlines()
        if line in blocked.get(cell, ()) or not 0 < line <= len(lines):
            skipped.append((cell, line))
            continue
        edit = noqa_edit(lines[line - 1], line, sorted(codes))
        if edit is not None:
            carriers.append(replace(first[(cell, line)], edits=(replace(edit, cell=cell),), applicability=SAFE))
    return carriers, skipped


def texts_of(path: str, source: bytes) -> dict[Optional[int], str]:
    if path.endswith(".ipynb"):
        from devlint.static.notebooks import Notebook

        notebook = Notebook.parse(source)
        return {cell.number: cell.text for cell in notebook.cells}
    return {None: decode(source)[1]}
