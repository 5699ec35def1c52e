"""Applying findings' edits to a text: each finding's fix whole or not at all, never two that overlap.

Fixes that share an identical edit (the one `device = ...` line several DEV201 fixes need)
apply together; a fix that overlaps one already chosen waits for the next round, when the
file is linted again.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

from devlint.core.findings import SAFE, Edit, Finding

Span = tuple[object, int, int, str]  # document (None, or a notebook's cell), start offset, end offset, text


def applicable(findings: Iterable[Finding], unsafe: bool) -> list[Finding]:
    return [f for f in findings if f.edits and (f.applicability == SAFE or unsafe)]


def line_starts(text: str) -> list[int]:
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts  # one more than the lines: the end of the text


def _offset(starts: list[int], text: str, line: int, column: int) -> Optional[int]:
    if not 0 < line <= len(starts):
        return None
    start = starts[line - 1]
    end = starts[line] if line < len(starts) else len(text)
    offset = start + column - 1
    return offset if start <= offset <= end else None


def _spans(edits: Sequence[Edit], texts: dict, starts: dict) -> Optional[list[Span]]:
    spans = []
    for edit in edits:
        if edit.cell not in texts:
            return None
        text, at = texts[edit.cell], starts[edit.cell]
        start = _offset(at, text, edit.line, edit.column)
        end = _offset(at, text, edit.end_line, edit.end_column)
        if start is None or end is None or end < start:
            return None
        spans.append((edit.cell, start, end, edit.content))
    return spans


def _overlap(a: Span, b: Span) -> bool:
    return a != b and a[0] == b[0] and a[1] <= b[2] and b[1] <= a[2]


def apply_fixes(text: str, findings: Sequence[Finding]) -> tuple[str, list[Finding]]:
    """The text with as many of the findings' fixes as can go in together, and the findings fixed."""
    texts, fixed = apply_to_documents({None: text}, findings)
    return texts[None], fixed


def apply_to_documents(texts: dict, findings: Sequence[Finding]) -> tuple[dict, list[Finding]]:
    """The same for several texts at once (a notebook's cells, by number): a fix whose edits fall
    in several cells goes in whole or not at all."""
    starts = {key: line_starts(text) for key, text in texts.items()}
    chosen: list[Span] = []
    fixed = []
    for finding in sorted(findings, key=Finding.sort_key):
        spans = _spans(finding.edits, texts, starts)
        if not spans:
            continue
        new = [s for s in spans if s not in chosen]
        if any(_overlap(s, c) for s in new for c in chosen) or any(
                _overlap(a, b) for i, a in enumerate(new) for b in new[i + 1:]):
            continue
        chosen.extend(new)
        fixed.append(finding)
    out = {key: apply_spans(text, [s[1:] for s in chosen if s[0] == key]) for key, text in texts.items()}
    return out, fixed


def apply_spans(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    out = text
    for start, end, content in sorted(spans, key=lambda s: (s[0], s[1]), reverse=True):
        out = out[:start] + content + out[end:]
    return out
