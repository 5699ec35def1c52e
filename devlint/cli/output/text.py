"""Text for people: `concise` (one line a finding) and `full` (the code under a caret, the why,
the fix), then one summary line. `[*]` marks a finding `--fix` can fix."""

from __future__ import annotations

from collections import Counter
from typing import Optional

import click

from devlint.cli.links import rule_url
from devlint.core.findings import Finding
from devlint.cli.output.report import Report

_COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}


def _code(report: Report, finding: Finding) -> str:
    code = finding.code
    if report.color:
        url = rule_url(finding.code)
        code = click.style(code, fg=_COLORS.get(finding.severity), bold=True)
        if url:  # a terminal hyperlink (OSC 8) to the rule's page
            code = f"\x1b]8;;{url}\x1b\\{code}\x1b]8;;\x1b\\"
    return code + (" [*]" if report.applicable(finding) else "")


def _head(report: Report, finding: Finding) -> str:
    location = finding.location()
    if report.color:
        location = click.style(location, bold=True)
    return f"{location}: {_code(report, finding)} {finding.message}"


def render_concise(report: Report) -> str:
    lines = [_head(report, f) for f in report.sorted()]
    return _finish(report, lines)


def render_full(report: Report) -> str:
    lines = []
    for finding in report.sorted():
        lines.append(_head(report, finding))
        lines.extend(frame(report, finding))
        lines.extend(f"    {why}" for why in finding.why)
        if finding.fix:
            lines.append(f"    fix: {finding.fix}")
        if report.show_fixes and finding.fixable:
            lines.extend(_fix_preview(report, finding))
    return _finish(report, lines, docs=True)


def frame(report: Report, finding: Finding) -> list[str]:
    """The finding's line with a caret under its span (to the end of the line when it goes on)."""
    text = report.source_line(finding, finding.line)
    if text is None:
        return []
    text = text.expandtabs(1).rstrip()
    start = max(finding.column - 1, 0)
    end = finding.end_column - 1 if finding.end_line == finding.line else len(text)
    end = max(min(end, len(text)), start + 1)
    gutter = " " * len(str(finding.line))
    caret = "^" * (end - start)
    if report.color:
        caret = click.style(caret, fg=_COLORS.get(finding.severity), bold=True)
    return [f"{gutter} |", f"{finding.line} | {text}", f"{gutter} | {' ' * start}{caret}"]


def _fix_preview(report: Report, finding: Finding) -> list[str]:
    label = "safe fix" if finding.applicability == "safe" else "unsafe fix (--unsafe-fixes)"
    out = [f"    {label}:"]
    for edit in finding.edits:
        old = report.source_line(finding, edit.line)
        where = f"line {edit.line}" + (f" (cell {edit.cell})" if edit.cell is not None else "")
        if edit.line == edit.end_line and old is not None and edit.line == finding.line:
            new = old[: edit.column - 1] + edit.content + old[edit.end_column - 1:]
            out += [f"      - {old.strip()}", f"      + {new.strip()}"]
        else:
            out.append(f"      {where}: insert {edit.content.strip()!r}" if edit.line == edit.end_line and
                       edit.column == edit.end_column else f"      {where}: {edit.content.strip()!r}")
    return out


def _finish(report: Report, lines: list[str], docs: bool = False) -> str:
    if not report.quiet:
        lines.append(summary(report))
        fixable = _fixable_line(report)
        if fixable:
            lines.append(fixable)
        if docs and report.findings:
            codes = sorted({f.code for f in report.findings})
            lines.append("Rule docs: " + ", ".join(rule_url(c) or c for c in codes)
                         + " (or `devlint rule CODE`).")
    return "\n".join(lines) + "\n" if lines else ""


def summary(report: Report) -> str:
    findings, files_checked = report.findings, report.files_checked
    noun = "file" if files_checked == 1 else "files"
    fixed = f"Fixed {report.fixed} problem{'' if report.fixed == 1 else 's'}. " if report.fixed else ""
    missing = ""
    if report.missing:
        n = len(report.missing)
        missing = f" {n} path{'' if n == 1 else 's'} not found."
        if not files_checked:
            return f"Nothing checked:{missing}"
    if not findings:
        checked = "All checked" if not report.missing else "Checked"
        return f"{fixed}{checked}: {files_checked} {noun}, no problems.{missing}"
    by_severity = Counter(f.severity for f in findings)
    parts = [f"{n} {sev}{'' if n == 1 else 's'}" for sev in ("error", "warning", "info")
             if (n := by_severity.get(sev))]
    problems = "problem" if len(findings) == 1 else "problems"
    with_findings = len({f.path for f in findings})
    left = " remaining" if report.fixed else ""
    return (f"{fixed}Found {len(findings)} {problems}{left} ({', '.join(parts)}) in {with_findings} of "
            f"{files_checked} {noun}.{missing}")


def _fixable_line(report: Report) -> Optional[str]:
    safe = sum(1 for f in report.findings if f.fixable and f.applicability == "safe")
    unsafe = sum(1 for f in report.findings if f.fixable and f.applicability != "safe")
    if report.unsafe_fixes:
        total = safe + unsafe
        return f"[*] {total} fixable with `--fix --unsafe-fixes`." if total else None
    if not safe and not unsafe:
        return None
    hidden = f" ({unsafe} more with `--unsafe-fixes`)" if unsafe else ""
    return f"[*] {safe} fixable with `--fix`{hidden}."
