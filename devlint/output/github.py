"""GitHub Actions workflow commands: findings become annotations on the pull request."""

from __future__ import annotations

from typing import Sequence

from devlint.findings import Finding

_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(findings: Sequence[Finding], *, files_checked: int = 0, rules: Sequence = (), color: bool = False) -> str:
    lines = []
    for f in sorted(findings, key=Finding.sort_key):
        props = ",".join([
            f"file={_escape_property(f.path)}", f"line={f.line}", f"col={f.column}", f"endLine={f.end_line}",
            f"endColumn={f.end_column}", f"title={_escape_property(f'{f.code} {f.name}'.strip())}",
        ])
        body = "\n".join([f.message, *f.why])
        lines.append(f"::{_COMMANDS.get(f.severity, 'warning')} {props}::{_escape_data(body)}")
    return "\n".join(lines) + ("\n" if lines else "")
