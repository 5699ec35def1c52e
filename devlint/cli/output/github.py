"""GitHub Actions workflow commands: findings become annotations on the pull request."""

from __future__ import annotations

from devlint.cli.output.report import Report

_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = []
    for f in report.sorted():
        props = [f"file={_escape_property(f.path)}"]
        title = f"{f.code} {f.name}".strip()
        if f.cell is None:
            props += [f"line={f.line}", f"col={f.column}", f"endLine={f.end_line}", f"endColumn={f.end_column}"]
        else:  # a notebook's lines are not the file's: say where in the title instead
            title += f" (cell {f.cell}, line {f.line})"
        props.append(f"title={_escape_property(title)}")
        body = "\n".join([f.message, *f.why] + ([f"fix: {f.fix}"] if f.fix else []))
        lines.append(f"::{_COMMANDS.get(f.severity, 'warning')} {','.join(props)}::{_escape_data(body)}")
    return "\n".join(lines) + ("\n" if lines else "")
