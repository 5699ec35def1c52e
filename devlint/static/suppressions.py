"""`# noqa: DEV101` and `# devlint: ignore[DEV101]`: which findings they silence, and which silence nothing.

A directive silences the findings that start on its line. A code may be a prefix (`DEV1`);
no code silences every rule (`# noqa`, `# devlint: ignore`). A bare `# noqa` is shared with
flake8 and Ruff, so devlint never calls it unused. `# devlint: noqa` and `# devlint: noqa: CODES`
on a line of their own (Ruff's `# ruff: noqa`) silence the whole file.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Optional, Sequence

from devlint.core.findings import SAFE, Edit, Finding, notice
from devlint.static.rules import RULES_BY_CODE

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_DEVLINT_IGNORE = re.compile(r"#\s*devlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")
# a comment alone on its line: the whole file (codes as in `# noqa:`)
_FILE_NOQA = re.compile(r"^[ \t]*(?P<directive>#\s*devlint:\s*noqa"
                        r"(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?)\s*$", re.IGNORECASE | re.MULTILINE)
_MENTION = re.compile(r"#\s*(noqa|devlint:)", re.IGNORECASE)
MAX_CODES_SHOWN = 10  # a notice or DEV004 message names at most this many codes
MAX_QUOTE = 80  # and quotes at most this much of the comment
# what can concern devlint: a code of ours in a `# noqa`, or its own directive (a bare `# noqa` cannot)
_OURS = re.compile(r"#\s*(?:noqa\s*:[^\n]*?DEV|devlint:)", re.IGNORECASE)
UNUSED = "DEV004"


@dataclass
class Directive:
    line: int
    kind: str  # "noqa", "devlint" or "file" (`# devlint: noqa`, for the whole file)
    codes: Optional[tuple[str, ...]]  # None: every rule
    start: int  # the directive's span in its line (0-based columns)
    end: int
    used: set = field(default_factory=set)  # codes (or "*") that silenced a finding

    def silences(self, code: str) -> Optional[str]:
        """The code of this directive that silences `code` ("*" for a blanket one), or None."""
        if self.codes is None:
            return "*"
        return next((c for c in self.codes if code.startswith(c)), None)


def parse(line: str, number: int) -> list[Directive]:
    found = []
    match = _NOQA.search(line)
    if match:
        codes = match.group("codes")
        found.append(Directive(number, "noqa", _split(codes, r"[\s,]+") if codes else None,
                               match.start(), match.end()))
    match = _DEVLINT_IGNORE.search(line)
    if match:
        codes = match.group("codes")
        found.append(Directive(number, "devlint", _split(codes, ",") if codes and codes.strip() else None,
                               match.start(), match.end()))
    return found


def _split(codes: str, separator: str) -> tuple[str, ...]:
    return tuple(c.strip().upper() for c in re.split(separator, codes) if c.strip())


def suppressed(line: str, code: str) -> bool:
    """`# noqa`, `# noqa: DEV101`, `# devlint: ignore`, `# devlint: ignore[DEV101, DEV2]`."""
    return "#" in line and any(d.silences(code) for d in parse(line, 0))


class Suppressions:
    """The directives of one file, parsed on demand, with what each has silenced."""

    def __init__(self, lines: Sequence[str], text: str = "") -> None:
        self.lines = lines
        self.by_line: dict[int, list[Directive]] = {}
        self.whole_file = file_directives(text) if text else []
        for directive in self.whole_file:
            self.by_line[directive.line] = [directive]

    def silence(self, line: int, code: str) -> bool:
        for directive in self.whole_file:
            which = directive.silences(code)
            if which is not None:
                directive.used.add(which)
                return True
        if not 0 < line <= len(self.lines) or "#" not in self.lines[line - 1]:
            return False
        directives = self.by_line.get(line)
        if directives is None:
            directives = self.by_line[line] = parse(self.lines[line - 1], line)
        for directive in directives:
            which = directive.silences(code)
            if which is not None:
                directive.used.add(which)
                return True
        return False


def file_directives(text: str) -> list[Directive]:
    """`# devlint: noqa[: CODES]` comments alone on their lines (not inside a string)."""
    matches = list(_FILE_NOQA.finditer(text)) if "devlint" in text else []
    if not matches:
        return []
    comments = comment_lines(text)
    out = []
    for match in matches:
        number = text.count("\n", 0, match.start()) + 1
        if number not in comments:
            continue
        codes = match.group("codes")
        line_start = match.start()
        out.append(Directive(number, "file", _split(codes, r"[\s,]+") if codes else None,
                             match.start("directive") - line_start, match.end("directive") - line_start))
    return out


def comment_lines(text: str) -> set[int]:
    """Lines holding a comment that looks like a directive (a `# noqa` inside a string is not one)."""
    if not _MENTION.search(text):
        return set()
    lines = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT and _MENTION.match(token.string):
                lines.add(token.start[0])
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return set()
    return lines


def directives(text: str, lines: Sequence[str], known: Optional[Suppressions] = None) -> list[Directive]:
    """Every directive in real comments, sharing the `used` marks of `known` where it parsed them."""
    out = []
    for number in sorted(comment_lines(text)):
        if known is not None and number in known.by_line:
            out.extend(known.by_line[number])
        elif 0 < number <= len(lines):
            out.extend(parse(lines[number - 1], number))
    return out


def mentions_suppression(text: str) -> bool:
    return _OURS.search(text) is not None


def audit_suppressions(text: str, lines: Sequence[str], silencer: Suppressions, path: str,
                       selected: Sequence[str]) -> list[Finding]:
    """Notices for unknown codes in directives; DEV004 findings for what silenced nothing (if selected)."""
    if not mentions_suppression(text):
        return []
    def known(code: str) -> bool:
        return any(c.startswith(code) for c in RULES_BY_CODE)

    out: list[Finding] = []
    audit = UNUSED in selected
    for directive in directives(text, lines, silencer):
        unknown = [code for code in directive.codes or () if code.startswith("DEV") and not known(code)]
        if unknown:  # one notice per comment, however many codes it holds
            noun = "code" if len(unknown) == 1 else "codes"
            out.append(notice(path, directive.line, f"unknown rule {noun} {capped(unknown)} in "
                                                    f"`{_quote(lines, directive)}`"))
        if audit:
            finding = _unused(directive, lines, path, selected, known)
            if finding is not None:
                out.append(finding)
    return out


def capped(items: Sequence[str], limit: int = MAX_CODES_SHOWN) -> str:
    """`A, B, C`, or the first `limit` of them and how many more."""
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _quote(lines: Sequence[str], directive: Directive) -> str:
    quoted = lines[directive.line - 1][directive.start:directive.end].strip()
    return quoted if len(quoted) <= MAX_QUOTE else quoted[:MAX_QUOTE - 3] + "..."


def _unused(directive: Directive, lines: Sequence[str], path: str, selected: Sequence[str],
            known) -> Optional[Finding]:
    if directive.codes is None:
        if directive.kind == "noqa" or "*" in directive.used:
            return None  # a bare `# noqa` may be meant for flake8 or Ruff
        unused, reasons = ["*"], ["it silences nothing"]
    else:
        ours = [c for c in directive.codes if c.startswith("DEV") or directive.kind in ("devlint", "file")]
        unused = [c for c in ours if c not in directive.used]
        if not unused:
            return None
        reasons = []
        for code in unused[:MAX_CODES_SHOWN]:
            if not known(code):
                reasons.append(f"{code} is not a rule")
            elif not any(s.startswith(code) for s in selected):
                reasons.append(f"{code} is not enabled")
            else:
                reasons.append(f"no {code} finding " + ("in this file" if directive.kind == "file" else "on this line"))
        if len(unused) > MAX_CODES_SHOWN:
            reasons.append(f"and {len(unused) - MAX_CODES_SHOWN} more")
    line = lines[directive.line - 1]
    quoted = _quote(lines, directive)
    return Finding(
        code=UNUSED, severity="warning", path=path, line=directive.line, column=directive.start + 1,
        end_line=directive.line, end_column=directive.end + 1, name="unused-suppression",
        message=f"unused suppression `{quoted}`: {'; '.join(reasons)}",
        fix="remove the unused code" if len(unused) < len(directive.codes or ()) else "remove the comment",
        edits=(_removal(directive, line, unused, last=directive.line >= len(lines)),), applicability=SAFE,
    )


def _removal(directive: Directive, line: str, unused: list[str], last: bool = False) -> Edit:
    """The edit that drops the unused codes, or the whole directive when nothing is left."""
    kept = [c for c in directive.codes or () if c not in unused]
    start, end = directive.start, directive.end
    if kept:
        text = {"noqa": f"# noqa: {', '.join(kept)}", "file": f"# devlint: noqa: {', '.join(kept)}"}.get(
            directive.kind, f"# devlint: ignore[{', '.join(kept)}]")
        return Edit(directive.line, start + 1, directive.line, end + 1, text)
    if directive.kind == "file":  # the comment is the whole line: drop the line
        if last:
            return Edit(directive.line, 1, directive.line, len(line.rstrip("\r\n")) + 1, "")
        return Edit(directive.line, 1, directive.line + 1, 1, "")
    body = line.rstrip("\r\n")
    if not body[end:].strip():  # the last comment of the line: drop the spaces before it too
        start = len(body[:start].rstrip())
        end = len(body)
    else:  # another comment follows: drop the spaces after this one
        end += len(body[end:]) - len(body[end:].lstrip())
    return Edit(directive.line, start + 1, directive.line, end + 1, "")
