"""One file through the pipeline: parse, interpret, judge, suppress.

Positions are computed only for files that have something to report: a
PositionProvider pass over every tree would cost more than the parse.
"""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from typing import Iterable, Optional, Sequence

import libcst as cst

from devlint.file_context import FileContext
from devlint.findings import DECODE_ERROR, FILE_ERRORS, INTERNAL_ERROR, SYNTAX_ERROR, Finding, file_error
from devlint.analysis import analyse
from devlint.fixes import to_edits
from devlint.rules.base import Rule, Verdict
from devlint.suppressions import Suppressions, audit_suppressions, mentions_suppression
from devlint.suppressions import suppressed  # noqa: F401 - part of the engine's API

# A more specific story about the same operation wins.
_SUPERSEDES = {"DEV104": ("DEV101", "DEV102"), "DEV102": ("DEV101",), "DEV107": ("DEV101", "DEV102")}



def check_module(module: cst.Module, source_text: str, path: str, rules: Sequence[Rule]) -> list[Finding]:
    by_fact: dict[type, list[Rule]] = defaultdict(list)
    for rule in rules:
        for fact_type in rule.facts:
            by_fact[fact_type].append(rule)
    file = FileContext(module)
    for rule in rules:
        rule.file = file
    reports: list[tuple[Rule, Verdict]] = []

    def emit(fact: object) -> None:
        for rule in by_fact.get(type(fact), ()):
            for report in rule.check(fact):
                reports.append((rule, report))

    analyse(module, emit)
    for rule in rules:
        reports.extend((rule, report) for report in rule.finish())
    if not reports and not mentions_suppression(source_text):
        return []
    lines = source_text.splitlines()
    silencer = Suppressions(lines)
    findings = _findings(reports, file, source_text, lines, path, silencer) if reports else []
    findings += audit_suppressions(source_text, lines, silencer, path, [r.code for r in rules])
    findings.sort(key=Finding.sort_key)
    return findings


def _findings(reports: list, file: FileContext, source_text: str, lines: list[str], path: str,
              silencer: Suppressions) -> list[Finding]:
    by_node: dict[int, set[str]] = defaultdict(set)
    for rule, report in reports:
        by_node[id(report.node)].add(rule.code)
    seen: set = set()
    findings = []
    text_lines: Optional[list[str]] = None
    for rule, report in reports:
        codes_here = by_node[id(report.node)]
        if any(rule.code in _SUPERSEDES.get(other, ()) for other in codes_here):
            continue
        pos = file.position(report.node)
        if pos is None:
            continue
        key = (rule.code, pos.start.line)
        if key in seen or (report.key is not None and (rule.code, report.key) in seen):
            continue
        seen.add(key)
        if report.key is not None:
            seen.add((rule.code, report.key))
        if silencer.silence(pos.start.line, rule.code):
            continue
        edits: tuple = ()
        if report.autofix is not None:
            text_lines = text_lines or source_text.splitlines(keepends=True)
            edits = to_edits(report.autofix, file.position, text_lines, file.module.default_newline)
        findings.append(Finding(
            code=rule.code, severity=rule.severity, path=path, line=pos.start.line, column=pos.start.column + 1,
            end_line=pos.end.line, end_column=pos.end.column + 1, message=report.message,
            why=tuple(report.why), name=rule.name, fix=report.fix, edits=edits,
            applicability=report.autofix.applicability if edits else None,
        ))
    return findings


def check_source(source: bytes, path: str, rules: Sequence[Rule], *, notebook: Optional[bool] = None) -> list[Finding]:
    """Check one file's bytes. Never raises: a file that cannot be analysed is a finding.

    A `.ipynb` path is read as a notebook (its code cells, as one program) unless `notebook=False`.
    """
    if notebook or (notebook is None and path.endswith(".ipynb")):
        from devlint.notebooks import check_notebook

        return check_notebook(source, path, rules, lambda program: check_source(program, path, rules, notebook=False))
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        encoding = _declared_encoding(source)
        try:
            text = source.decode(encoding) if encoding else None
        except (LookupError, UnicodeDecodeError):
            text = None
        if text is None:
            return [file_error(DECODE_ERROR, path, 1, 1,
                                f"cannot decode as UTF-8 (byte 0x{source[exc.start]:02x} at offset {exc.start})")]
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        line, column, message = exc.raw_line, exc.raw_column + 1, str(exc.message).splitlines()[0]
        try:  # Python's own parser names the line a reader expects
            ast.parse(text, filename=path)
        except SyntaxError as py_error:
            line, column, message = py_error.lineno or line, py_error.offset or column, py_error.msg
        except (ValueError, RecursionError, MemoryError):
            pass
        return [file_error(SYNTAX_ERROR, path, line, column, f"syntax error: {message}")]
    except Exception as exc:  # noqa: BLE001 - libcst raises more than ParserSyntaxError on odd input
        return [file_error(SYNTAX_ERROR, path, 1, 1, f"cannot parse: {type(exc).__name__}: {exc}".splitlines()[0])]
    try:
        return check_module(module, text, path, rules)
    except RecursionError:
        return [file_error(INTERNAL_ERROR, path, 1, 1, "internal error: the file nests too deeply to analyse")]
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        return [file_error(INTERNAL_ERROR, path, 1, 1,
                            f"internal error analysing this file: {type(exc).__name__}: {exc}".splitlines()[0])]


def _declared_encoding(source: bytes) -> Optional[str]:
    for line in source.splitlines()[:2]:
        match = re.match(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if match:
            return match.group(1).decode("ascii")
    return None


def has_file_errors(findings: Iterable[Finding]) -> bool:
    return any(f.code in FILE_ERRORS for f in findings)
