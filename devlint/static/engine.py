"""One file through the pipeline: parse, interpret, judge, suppress.

Positions are computed only for files that have something to report: a
positions pass over every tree would cost more than the analysis.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from typing import Optional, Sequence, cast

import libcst as cst

from devlint.static.analysis import ProjectImports, analyse
from devlint.core.facts import CallerPlacement
from devlint.core.deep_stack import DEEP_STACK
from devlint.static.file_context import FileContext
from devlint.core.findings import (
    CREATED_WITHOUT_DEVICE, DECODE_ERROR, INTERNAL_ERROR, SYNTAX_ERROR, TOO_COMPLEX, Finding, answer_guesses,
    file_error, file_too_big, placement,
)
from devlint.static.fixes import to_edits
from devlint.static.encoding import declared_encoding
from devlint.core.limits import (
    DEFAULT_MAX_FILE_SIZE, MAX_ANALYSIS_SECONDS, NOTEBOOK_SIZE_FACTOR, AnalysisBudgetExceeded,
)
from devlint.static.prescan import check_parsable
from devlint.static.project.call_sites import is_test_module, is_test_path
from devlint.static.project.sources import keep_parsed, parsed_before
from devlint.static.rules.base import Rule, Verdict
from devlint.static.suppressions import Suppressions, audit_suppressions, mentions_suppression
from devlint.static.syntax import parse_module


def check_module(module: cst.Module, source_text: str, path: str, rules: Sequence[Rule],
                 project: Optional[ProjectImports] = None) -> list[Finding]:
    """One parsed file; `project`: the project's modules it may import (None: this file alone)."""
    file = FileContext(module, project.trees if project is not None else None)
    for rule in rules:
        rule.file = file
    try:
        return _check_module(module, file, source_text, path, rules, project)
    finally:
        for rule in rules:
            rule.release()


def _check_module(module: cst.Module, file: FileContext, source_text: str, path: str,
                  rules: Sequence[Rule], project: Optional[ProjectImports]) -> list[Finding]:
    by_fact: dict[type, list[Rule]] = defaultdict(list)
    for rule in rules:
        for fact_type in rule.facts:
            by_fact[fact_type].append(rule)
    reports: list[tuple[Rule, Verdict]] = []
    placements: list[CallerPlacement] = []

    def emit(fact: object) -> None:
        if type(fact) is CallerPlacement:
            placements.append(cast(CallerPlacement, fact))
            return
        for rule in by_fact.get(type(fact), ()):
            for report in rule.check(fact):
                reports.append((rule, report))

    stopped = _analyse_within_budget(module, emit, project)
    if is_test_path(path) and is_test_module(path, source_text.encode("utf-8", "replace")):
        # (a test runs a helper on whatever its machine has: it answers nothing)
        placements.clear()
    if project is not None and placements:
        project.placements = _foreign_placements(file, placements, project)
    for rule in rules:
        reports.extend((rule, report) for report in rule.finish())
    if not reports and stopped is None and not mentions_suppression(source_text):
        return []
    lines = source_text.splitlines()
    silencer = Suppressions(lines, source_text)
    others = project.checked if project is not None else {}
    findings = _findings(reports, file, source_text, lines, path, silencer, others) if reports else []
    findings += audit_suppressions(source_text, lines, silencer, path, [r.code for r in rules])
    if stopped is not None:
        findings.append(file_error(TOO_COMPLEX, path, 1, 1, f"too complex to analyse, partially checked: {stopped}"))
    findings.sort(key=Finding.sort_key)
    guesses = {(f.line, f.column) for f in findings if f.code == CREATED_WITHOUT_DEVICE and f.severity != "error"}
    if not guesses or not placements:
        return findings
    # its own guesses that its own calls answer (and what they gave there, for the run's other callers to weigh)
    own = [(path, line, column, cpu) for line, column, cpu in _own_placements(file, placements) if (line, column)
           in guesses]
    if project is not None:
        project.placements += own
    return answer_guesses(findings + [placement(*where) for where in own])


def _called(fact: CallerPlacement) -> bool:
    """Told in a function run for a caller that is no test."""
    return not any(part.startswith("test") for part in (fact.context.function or "").split("."))


def _foreign_placements(file: FileContext, placements: list[CallerPlacement],
                        project: ProjectImports) -> list[tuple[str, int, int, bool]]:
    """(path as reported, line, column, cpu) of each operation of another checked module this file's calls ran."""
    found = []
    for fact in placements:
        module = project.module_file.get(id(fact.function)) if fact.function is not None else None
        if module is None or str(module) not in project.checked or not _called(fact):
            continue
        where = file.line_column_in(str(module), fact.node)
        if where is not None:
            found.append((project.checked[str(module)], where[0], where[1] + 1, fact.cpu))
    return list(dict.fromkeys(found))


def _own_placements(file: FileContext, placements: list[CallerPlacement]) -> list[tuple[int, int, bool]]:
    """(line, column, cpu) of each operation of this file that its calls ran."""
    found = []
    for fact in placements:
        where = file.position(fact.node) if _called(fact) else None
        if where is not None:
            found.append((where.start.line, where.start.column + 1, fact.cpu))
    return found


def _analyse_within_budget(module: cst.Module, emit, project: Optional[ProjectImports]) -> Optional[str]:
    """None when the whole file was analysed; else why the analysis stopped (its facts so far stand)."""
    try:
        DEEP_STACK.interruptible(lambda: analyse(module, emit, project))
    except AnalysisBudgetExceeded as exc:
        return exc.reason or f"the analysis ran past {MAX_ANALYSIS_SECONDS:g} s"
    return None


def _findings(reports: list, file: FileContext, source_text: str, lines: list[str], path: str,
              silencer: Suppressions, others: dict) -> list[Finding]:
    by_node: dict[int, set[str]] = defaultdict(set)
    supersedes: dict[str, tuple[str, ...]] = {}  # a more specific story about the same operation wins
    for rule, report in reports:
        by_node[id(report.node)].add(rule.code)
        supersedes[rule.code] = rule.supersedes
    seen: set = set()
    findings = []
    text_lines: Optional[list[str]] = None
    silencers = {path: silencer}
    # a report at the rule's own severity first: where a caller's values make a mix certain, that story is kept
    # over the same line's guess on symbolic parameters
    for rule, report in sorted(reports, key=lambda pair: pair[1].severity is not None):
        codes_here = by_node[id(report.node)]
        if any(rule.code in supersedes[other] for other in codes_here):
            continue
        where = _where(file, report, path, others)
        if where is None:
            continue
        shown, pos, how = where
        key = (shown, rule.code, pos.start.line)
        if key in seen or (report.key is not None and (rule.code, report.key) in seen):
            continue
        seen.add(key)
        if report.key is not None:
            seen.add((rule.code, report.key))
        if shown not in silencers:
            silencers[shown] = Suppressions(_lines_of(shown))
        if silencers[shown].silence(pos.start.line, rule.code):
            continue
        edits: tuple = ()
        why = tuple(report.why) if how != "used" else (f"defined at {file.step(report.node)}", *report.why)
        places = _places(file, why, path if how == "there" else "")  # read before the lines are renamed
        if how == "there":  # told in another file: this file's lines are named with its path
            why = tuple(_with_path(step, file.places_in(step), path) for step in why)
        if report.autofix is not None and how == "here":
            text_lines = text_lines or source_text.splitlines(keepends=True)
            edits = to_edits(report.autofix, file.position, text_lines, file.module.default_newline)
        findings.append(Finding(
            code=rule.code, severity=report.severity or rule.severity, path=shown, line=pos.start.line,
            column=pos.start.column + 1, end_line=pos.end.line, end_column=pos.end.column + 1, message=report.message,
            why=why, name=rule.name, fix=report.fix, edits=edits,
            applicability=report.autofix.applicability if edits else None,
            places=places,
        ))
    return findings


def _with_path(step: str, places: tuple, path: str) -> str:
    for shown, line in places:
        if not shown:
            step = step.replace(f"line {line} `", f"{path}:{line} `")
    return step


def _places(file: FileContext, why: tuple, here: str) -> tuple:
    """Per why entry, the (path, line, cell) places it names; `here`: the path of this file's lines when the
    finding is told in another file ("": the finding's own)."""
    return tuple(tuple((shown or here, line, None) for shown, line in file.places_in(step)) for step in why)


def _where(file: FileContext, report: Verdict, path: str, others: dict):
    """(path to report, position, how) of a verdict: "here"; "used", at this file's use of another module's
    node (a constant, a base class's attribute); "there", in another checked module whose function this
    file's values went through (a helper given a GPU tensor). None: nowhere to report it."""
    pos = file.position(report.node)
    if pos is not None:
        return path, pos, "here"
    if report.use is not None:
        pos = file.position(report.use)
        if pos is not None:
            return path, pos, "used"
    found = file.elsewhere(report.node) if others else None
    if found is not None and found[0] in others:
        return others[found[0]], found[1], "there"
    return None


def _lines_of(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            return stream.read().splitlines()
    except OSError:
        return []


def check_source(source: bytes, path: str, rules: Sequence[Rule], *, notebook: Optional[bool] = None,
                 max_file_size: int = DEFAULT_MAX_FILE_SIZE, isolated: bool = False,
                 used: Optional[dict] = None, checked: Optional[dict] = None,
                 placements: Optional[list] = None) -> list[Finding]:
    """Check one file's bytes. Never raises: a file that cannot be analysed is a finding.

    A `.ipynb` path is read as a notebook (its code cells, as one program) unless `notebook=False`;
    `max_file_size` bounds the program (a notebook's JSON, outputs included, may be NOTEBOOK_SIZE_FACTOR
    times larger). The project's modules the file imports are read (from the folders around `path`)
    unless `isolated`; `used`, when given, receives path -> digest of each one read. `checked` maps the
    absolute paths of the run's other files to their paths as reported: what this file's values do in their
    functions is reported there (a file that is only imported is never reported on); `placements`, when given,
    receives what its calls gave those functions' tensors made without `device=` (`_foreign_placements`).
    """
    if notebook or (notebook is None and path.endswith(".ipynb")):
        from devlint.static.notebooks import check_notebook

        if len(source) > NOTEBOOK_SIZE_FACTOR * max_file_size:
            return [file_too_big(path, len(source), NOTEBOOK_SIZE_FACTOR * max_file_size)]
        return check_notebook(source, path, rules, lambda program: check_source(
            program, path, rules, notebook=False, max_file_size=max_file_size, isolated=isolated, used=used,
            checked=checked, placements=placements))
    if len(source) > max_file_size:
        return [file_too_big(path, len(source), max_file_size)]
    try:
        text = source.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        encoding = declared_encoding(source)
        try:
            text = source.decode(encoding) if encoding else None
        except (LookupError, UnicodeDecodeError):
            text = None
        if text is None:
            return [file_error(DECODE_ERROR, path, 1, 1,
                                f"cannot decode as UTF-8 (byte 0x{source[exc.start]:02x} at offset {exc.start})")]
    project = None if isolated else ProjectImports(path, checked=checked)
    try:
        return DEEP_STACK.run(_check_text, source, text, path, rules, project, deadline=MAX_ANALYSIS_SECONDS)
    finally:
        if used is not None and project is not None:
            used.update(project.used)
        if placements is not None and project is not None:
            placements.extend(project.placements)


def _check_text(source: bytes, text: str, path: str, rules: Sequence[Rule],
                project: Optional[ProjectImports] = None) -> list[Finding]:
    """Guard, parse and analyse: on the deep-stack thread, where nesting up to limits.MAX_NESTING fits.
    A file another checked file imported was parsed then: its tree is taken (and this one kept for them)."""
    real = str(project.importer) if project is not None else None  # the file's real path
    parsed = parsed_before(path, source, real) if project is not None else None
    if parsed is None:
        refusal = check_parsable(source)
        if refusal is not None:
            if refusal.syntax:
                return [file_error(SYNTAX_ERROR, path, refusal.line, 1, f"syntax error: {refusal.message}")]
            return [file_error(TOO_COMPLEX, path, refusal.line, 1, f"not analysed: {refusal.message}")]
        parsed = _parse(source, text, path)
        if not isinstance(parsed, cst.Module):
            return [parsed]
        if project is not None:
            keep_parsed(path, source, parsed, real)
    try:
        return check_module(parsed, text, path, rules, project)
    except RecursionError:
        return [file_error(INTERNAL_ERROR, path, 1, 1, "internal error: the file nests too deeply to analyse")]
    except Exception as exc:  # noqa: BLE001 - one bad file must not stop the run
        return [file_error(INTERNAL_ERROR, path, 1, 1,
                            f"internal error analysing this file: {type(exc).__name__}: {exc}".splitlines()[0])]


def _parse(source: bytes, text: str, path: str):
    """The module, or the finding that says why there is none."""
    try:
        return parse_module(source)
    except cst.ParserSyntaxError as exc:
        line, column, message = exc.raw_line, exc.raw_column + 1, str(exc.message).splitlines()[0]
    except Exception as exc:  # noqa: BLE001 - libcst raises more than ParserSyntaxError on odd input
        return file_error(SYNTAX_ERROR, path, 1, 1, f"cannot parse: {type(exc).__name__}: {exc}".splitlines()[0])
    if sys.version_info < (3, 10) and "unterminated" in message:
        # CPython 3.9's tokenizer can crash the process on a huge unterminated string (whether it does
        # depends on the heap's state): libcst's message will do
        return file_error(SYNTAX_ERROR, path, line, column, f"syntax error: {message}")
    try:  # Python's own parser names the line a reader expects
        tree = ast.parse(text, filename=path)
    except SyntaxError as py_error:
        return file_error(SYNTAX_ERROR, path, py_error.lineno or line, py_error.offset or column,
                          f"syntax error: {py_error.msg}")
    except (ValueError, RecursionError, MemoryError):
        return file_error(SYNTAX_ERROR, path, line, column, f"syntax error: {message}")
    repaired = unparenthesize_annotated_targets(text, tree)  # libcst#1011: `(x): int = 1` is valid Python
    if repaired is not None:
        try:
            return parse_module(repaired)
        except Exception:  # noqa: BLE001 - the report below says what libcst could not take
            pass
    return file_error(TOO_COMPLEX, path, line, column,
                      f"not analysed: Python accepts this file but devlint's parser (libcst) does not: {message}")


def unparenthesize_annotated_targets(text: str, tree: ast.AST) -> Optional[str]:
    """`(x): int = 1` as `x  : int = 1` (same length: every other position stays), or None if there is none.

    The parentheses only tell Python not to record the annotation; libcst cannot
    parse them (libcst#1011), and the walk reads the two forms alike.
    """
    lines = re.split(r"(?<=\n)|(?<=\r)(?!\n)", text)  # Python's line ends only, like ast's line numbers
    changed = False
    for node in ast.walk(tree):
        if not (isinstance(node, ast.AnnAssign) and not node.simple and node.lineno == node.target.end_lineno
                == node.annotation.lineno):
            continue
        raw = lines[node.lineno - 1].encode("utf-8")
        start, target_start, target_end = node.col_offset, node.target.col_offset, node.target.end_col_offset
        colon = raw.find(b":", target_end, node.annotation.col_offset)
        opening, closing = raw[start:target_start], raw[target_end:colon]
        if colon < 0 or opening.strip(b"( \t") or closing.strip(b") \t"):
            continue
        padding = b" " * (len(opening) + len(closing))
        lines[node.lineno - 1] = (raw[:start] + raw[target_start:target_end] + padding + raw[colon:]).decode("utf-8")
        changed = True
    return "".join(lines) if changed else None
