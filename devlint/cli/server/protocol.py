"""Findings as LSP types: diagnostics (the why-chain as related information), code actions, hovers.

devlint counts 1-based lines and columns in characters; LSP counts 0-based lines and, in each
line, units of the encoding agreed at initialization (UTF-16 unless the client offers another):
`Lines` converts, given the agreed encoding's unit counter.
"""

from __future__ import annotations

import re
from typing import Callable, Optional, Sequence

from lsprotocol import types

from devlint.cli.server.linting import fix_all_edits, is_safe, noqa_edit_for
from devlint.core.findings import NOTICE, Edit, Finding

SOURCE = "devlint"
FIX_ALL_KIND = f"{types.CodeActionKind.SourceFixAll.value}.devlint"
SEVERITIES = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
              "info": types.DiagnosticSeverity.Information}
_LINE_END = re.compile(r"\r\n|\r|\n")  # the line ends of Python's tokenizer and of LSP alike
_WHY_STEP = re.compile(r"\bline (\d+) `")  # a why-chain names its lines as "line 12 `code`"

Units = Callable[[str], int]  # how many of the client's code units a string takes


class Lines:
    def __init__(self, text: str, units: Units) -> None:
        self.lines = _LINE_END.split(text)
        self.units = units

    def position(self, line: int, column: int) -> types.Position:
        """devlint's (line, column), 1-based in characters, as an LSP position (clamped to the text)."""
        index = min(max(line, 1), len(self.lines)) - 1
        text = self.lines[index]
        return types.Position(line=index, character=self.units(text[:max(column, 1) - 1]))

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(start=self.position(line, column), end=self.position(end_line, end_column))

    def whole_line(self, line: int) -> types.Range:
        text = self.lines[min(max(line, 1), len(self.lines)) - 1]
        start = len(text) - len(text.lstrip())
        return self.range(line, start + 1, line, len(text.rstrip()) + 1)

    def text_edit(self, edit: Edit) -> types.TextEdit:
        return types.TextEdit(range=self.range(edit.line, edit.column, edit.end_line, edit.end_column),
                              new_text=edit.content)


def finding_range(finding: Finding, lines: Lines) -> types.Range:
    return lines.range(finding.line, finding.column, finding.end_line, finding.end_column)


def diagnostic(finding: Finding, uri: str, lines: Lines, url: Optional[str]) -> types.Diagnostic:
    notice = finding.code == NOTICE  # a remark about the run (an unknown code in a noqa), not a rule's
    return types.Diagnostic(
        range=finding_range(finding, lines),
        message=finding.message,
        severity=SEVERITIES.get(finding.severity, types.DiagnosticSeverity.Information),
        code=None if notice else finding.code,
        code_description=types.CodeDescription(href=url) if url and not notice else None,
        source=SOURCE,
        related_information=related_information(finding, uri, lines) or None,
    )


def related_information(finding: Finding, uri: str, lines: Lines) -> list[types.DiagnosticRelatedInformation]:
    """One entry per line a why names ("`x` is on cpu: line 9 `...`"), with the step that line took;
    a why that names no line points at the finding itself."""
    out = []
    for why in finding.why:
        steps = list(_WHY_STEP.finditer(why))
        if not steps or "cell " in why[:steps[0].start()]:  # a notebook's cells are not served
            out.append(_related(uri, finding_range(finding, lines), why))
            continue
        subject = why[:steps[0].start()].rstrip(" :;,")
        for step, following in zip(steps, steps[1:] + [None]):
            text = why[step.start():following.start() if following else len(why)].rstrip(" ;")
            out.append(_related(uri, lines.whole_line(int(step.group(1))), f"{subject}: {text}" if subject else text))
    return out


def _related(uri: str, where: types.Range, message: str) -> types.DiagnosticRelatedInformation:
    return types.DiagnosticRelatedInformation(location=types.Location(uri=uri, range=where), message=message)


def _overlaps(a: types.Range, b: types.Range) -> bool:
    def key(p: types.Position) -> tuple:
        return (p.line, p.character)

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


def code_actions(findings: Sequence[Finding], uri: str, text: str, lines: Lines, wanted: types.Range,
                 only: Optional[Sequence[str]], diagnostic_of: Callable[[Finding], types.Diagnostic]
                 ) -> list[types.CodeAction]:
    """The quick fixes of the findings that touch `wanted` (each fix, then a `# noqa`), and a fix-all."""
    actions: list[types.CodeAction] = []
    if _kind_wanted(types.CodeActionKind.QuickFix.value, only):
        for finding in findings:
            if finding.code == NOTICE or not _overlaps(finding_range(finding, lines), wanted):
                continue
            diagnostics = [diagnostic_of(finding)]
            if finding.edits:
                label = f"{finding.code}: {finding.fix or 'apply the fix'}" + ("" if is_safe(finding) else " (unsafe)")
                actions.append(_action(label, types.CodeActionKind.QuickFix, uri,
                                       [lines.text_edit(e) for e in finding.edits], diagnostics, is_safe(finding)))
            noqa = noqa_edit_for(text, finding)
            if noqa is not None:
                actions.append(_action(f"{finding.code}: silence with `# noqa: {finding.code}` on this line",
                                       types.CodeActionKind.QuickFix, uri, [lines.text_edit(noqa)], diagnostics))
    if _kind_wanted(FIX_ALL_KIND, only):
        fixed = fix_all_edits(text, findings)
        if fixed is not None:
            whole = lines.range(1, 1, len(lines.lines), len(lines.lines[-1]) + 1)
            actions.append(_action("devlint: fix all safely fixable problems", FIX_ALL_KIND, uri,
                                   [types.TextEdit(range=whole, new_text=fixed)], None))
    return actions


def _kind_wanted(kind: str, only: Optional[Sequence[str]]) -> bool:
    """LSP kinds are hierarchical: asking for `source.fixAll` includes `source.fixAll.devlint`."""
    return not only or any(kind == o or kind.startswith(f"{o}.") for o in only)


def _action(title: str, kind: str, uri: str, edits: list[types.TextEdit],
            diagnostics: Optional[list[types.Diagnostic]], preferred: bool = False) -> types.CodeAction:
    return types.CodeAction(title=title, kind=kind, diagnostics=diagnostics, is_preferred=preferred or None,
                            edit=types.WorkspaceEdit(changes={uri: edits}))


def hover(findings: Sequence[Finding], lines: Lines, at: types.Position,
          url_of: Callable[[str], Optional[str]]) -> Optional[types.Hover]:
    """The findings under the cursor: message, the device of each operand and why, the fix."""
    cursor = types.Range(start=at, end=at)
    here = [f for f in findings if f.code != NOTICE and _overlaps(finding_range(f, lines), cursor)]
    if not here:
        return None
    parts = []
    for finding in here:
        url = url_of(finding.code)
        code = f"[{finding.code}]({url})" if url else finding.code
        block = [f"**{code}** `{finding.name}` ({finding.severity}): {finding.message}"]
        block += [f"- {why}" for why in finding.why]
        if finding.fix:
            block.append(f"\nfix: {finding.fix}" + ("" if not finding.edits else
                                                    " (a code action applies it)" if is_safe(finding) else
                                                    " (a code action applies it; unsafe: check the result)"))
        parts.append("\n".join(block))
    text = types.MarkupContent(kind=types.MarkupKind.Markdown, value="\n\n---\n\n".join(parts))
    return types.Hover(contents=text, range=finding_range(here[0], lines))
