"""`path:line:col: CODE message`, the why indented below, one summary line."""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import click

from devlint.findings import Finding

_COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}


def render(findings: Sequence[Finding], *, files_checked: int, rules: Sequence = (), color: bool = False) -> str:
    lines = []
    for f in sorted(findings, key=Finding.sort_key):
        code = click.style(f.code, fg=_COLORS.get(f.severity), bold=True) if color else f.code
        lines.append(f"{f.path}:{f.line}:{f.column}: {code} {f.message}")
        lines.extend(f"    {why}" for why in f.why)
        if f.fix:
            lines.append(f"    fix: {f.fix}")
    lines.append(summary(findings, files_checked))
    return "\n".join(lines) + "\n"


def summary(findings: Sequence[Finding], files_checked: int) -> str:
    noun = "file" if files_checked == 1 else "files"
    if not findings:
        return f"All checked: {files_checked} {noun}, no problems."
    by_severity = Counter(f.severity for f in findings)
    parts = [f"{n} {sev}{'' if n == 1 else 's'}" for sev in ("error", "warning", "info")
             if (n := by_severity.get(sev))]
    problems = "problem" if len(findings) == 1 else "problems"
    with_findings = len({f.path for f in findings})
    return f"Found {len(findings)} {problems} ({', '.join(parts)}) in {with_findings} of {files_checked} {noun}."
