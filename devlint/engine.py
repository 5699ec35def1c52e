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
from libcst.metadata import MetadataWrapper, PositionProvider

from devlint.facts import Context
from devlint.findings import Finding
from devlint.interpreter import Interpreter
from devlint.rules.base import Report, Rule

# Pseudo-rules for files that cannot be analysed: always on, never configurable.
SYNTAX_ERROR = "DEV001"
DECODE_ERROR = "DEV002"
INTERNAL_ERROR = "DEV003"
FILE_ERRORS = {SYNTAX_ERROR: "syntax-error", DECODE_ERROR: "undecodable-file", INTERNAL_ERROR: "internal-error"}

# A more specific story about the same operation wins.
_SUPERSEDES = {"DEV104": ("DEV101",), "DEV102": ("DEV101",)}

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_DEVLINT_IGNORE = re.compile(r"#\s*devlint:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")


class FileContext:
    """Renders nodes of one file as lines and snippets, for the why of a finding."""

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        self._positions = None

    def position(self, node: cst.CSTNode):
        if self._positions is None:
            wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
            self._positions = wrapper.resolve(PositionProvider)
        return self._positions.get(node)

    def line(self, node: cst.CSTNode) -> int:
        pos = self.position(node)
        return pos.start.line if pos is not None else 0

    def snippet(self, node: cst.CSTNode, limit: int = 60) -> str:
        if isinstance(node, cst.SimpleStatementLine) and len(node.body) == 1:
            node = node.body[0]
        if isinstance(node, (cst.For,)):
            text = f"for {self.module.code_for_node(node.target)} in {self.module.code_for_node(node.iter)}"
        elif isinstance(node, (cst.If, cst.While, cst.With, cst.FunctionDef, cst.ClassDef, cst.Try)):
            text = self.module.code_for_node(node).splitlines()[0].rstrip(":")
            text = text.strip()
        else:
            text = self.module.code_for_node(node)
        text = " ".join(text.split())
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def step(self, node: cst.CSTNode, note: str = "") -> str:
        text = f"line {self.line(node)} `{self.snippet(node)}`"
        return f"{text} ({note})" if note else text

    def chain(self, value, limit: int = 3) -> str:
        """`line 12 `model.to(device)` (moved to cuda)`; ...: where a value got its device, a line each."""
        by_line: dict[int, list] = {}
        for node, note in getattr(value, "why", ()):
            if node is None:
                continue
            line = self.line(node)
            entry = by_line.get(line)
            if entry is None:
                by_line[line] = [node, [note] if note else []]
                continue
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                entry[0] = node  # the whole statement reads best
            if note and note not in entry[1]:
                entry[1].append(note)
        parts = []
        for line, (node, notes) in sorted(by_line.items())[-limit:]:
            text = f"line {line} `{self.snippet(node)}`"
            parts.append(f"{text} ({'; '.join(notes)})" if notes else text)
        return "; ".join(parts)

    def context_lines(self, context: Context) -> list[str]:
        return [f"in `{name}()`, called from {self.step(node)}" for node, name in reversed(context.calls)
                if node is not None]


def check_module(module: cst.Module, source_text: str, path: str, rules: Sequence[Rule]) -> list[Finding]:
    by_fact: dict[type, list[Rule]] = defaultdict(list)
    for rule in rules:
        for fact_type in rule.facts:
            by_fact[fact_type].append(rule)
    file = FileContext(module)
    for rule in rules:
        rule.file = file
    reports: list[tuple[Rule, Report]] = []

    def emit(fact: object) -> None:
        for rule in by_fact.get(type(fact), ()):
            for report in rule.check(fact):
                reports.append((rule, report))

    Interpreter(module, emit).run()
    if not reports:
        return []
    return _findings(reports, file, source_text, path)


def _findings(reports: list, file: FileContext, source_text: str, path: str) -> list[Finding]:
    by_node: dict[int, set[str]] = defaultdict(set)
    for rule, report in reports:
        by_node[id(report.node)].add(rule.code)
    lines = source_text.splitlines()
    seen: set = set()
    findings = []
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
        line_text = lines[pos.start.line - 1] if 0 < pos.start.line <= len(lines) else ""
        if suppressed(line_text, rule.code):
            continue
        findings.append(Finding(
            code=rule.code, severity=rule.severity, path=path, line=pos.start.line, column=pos.start.column + 1,
            end_line=pos.end.line, end_column=pos.end.column + 1, message=report.message,
            why=tuple(report.why), name=rule.name, fix=report.fix,
        ))
    findings.sort(key=Finding.sort_key)
    return findings


def suppressed(line: str, code: str) -> bool:
    """`# noqa`, `# noqa: DEV101`, `# devlint: ignore`, `# devlint: ignore[DEV101, DEV2]`."""
    if "#" not in line:
        return False
    match = _NOQA.search(line)
    if match:
        codes = match.group("codes")
        if not codes or any(code.startswith(c.strip().upper()) for c in re.split(r"[\s,]+", codes) if c.strip()):
            return True
    match = _DEVLINT_IGNORE.search(line)
    if match:
        codes = match.group("codes")
        if codes is None or not codes.strip():
            return True
        return any(code.startswith(c.strip().upper()) for c in codes.split(",") if c.strip())
    return False


def check_source(source: bytes, path: str, rules: Sequence[Rule]) -> list[Finding]:
    """Check one file's bytes. Never raises: a file that cannot be analysed is a finding."""
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        encoding = _declared_encoding(source)
        try:
            text = source.decode(encoding) if encoding else None
        except (LookupError, UnicodeDecodeError):
            text = None
        if text is None:
            return [_file_error(DECODE_ERROR, path, 1, 1,
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
        return [_file_error(SYNTAX_ERROR, path, line, column, f"syntax error: {message}")]
    except Exception as exc:  # noqa: BLE001 - libcst raises more than ParserSyntaxError on odd input
        return [_file_error(SYNTAX_ERROR, path, 1, 1, f"cannot parse: {type(exc).__name__}: {exc}".splitlines()[0])]
    try:
        return check_module(module, text, path, rules)
    except RecursionError:
        return [_file_error(INTERNAL_ERROR, path, 1, 1, "internal error: the file nests too deeply to analyse")]
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        return [_file_error(INTERNAL_ERROR, path, 1, 1,
                            f"internal error analysing this file: {type(exc).__name__}: {exc}".splitlines()[0])]


def _declared_encoding(source: bytes) -> Optional[str]:
    for line in source.splitlines()[:2]:
        match = re.match(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)", line)
        if match:
            return match.group(1).decode("ascii")
    return None


def _file_error(code: str, path: str, line: int, column: int, message: str) -> Finding:
    return Finding(code=code, severity="error", path=path, line=max(line, 1), column=max(column, 1),
                   end_line=max(line, 1), end_column=max(column, 1), message=message, name=FILE_ERRORS[code])


def has_file_errors(findings: Iterable[Finding]) -> bool:
    return any(f.code in FILE_ERRORS for f in findings)
