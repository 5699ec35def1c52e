"""The parts of a run that change files: `--fix`, `--diff` and `--add-noqa`."""

from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import click

from devlint.core.findings import FILE_ERRORS, Finding
from devlint.static.fixes.apply import applicable

Keep = Callable[[list[Finding]], list[Finding]]


@dataclass
class FixOutcome:
    remaining: list[Finding] = field(default_factory=list)
    fixed: int = 0
    exit_code: int = 0


def _by_path(findings: Sequence[Finding]) -> dict[str, list[Finding]]:
    grouped: dict[str, list[Finding]] = defaultdict(list)
    for finding in findings:
        grouped[finding.path].append(finding)
    return grouped


def _read(path: str, overrides: dict[str, bytes]) -> bytes:
    return overrides[path] if path in overrides else Path(path).read_bytes()


def apply_fixes_to_files(findings: Sequence[Finding], codes_of: Callable[[str], Sequence[str]], options,
                         overrides: dict[str, bytes], keep: Keep) -> FixOutcome:
    """`options` is a lint_run.FixOptions; `codes_of(path)` the rules that run on the file."""
    from devlint.static.engine import check_source
    from devlint.static.fixes.run import fix_file, unified_diff, write_back
    from devlint.static.rules import RULES_BY_CODE

    outcome = FixOutcome()
    fixed_by_path: dict[str, list[Finding]] = {}
    diffs = []
    for path, in_file in _by_path(findings).items():
        if not applicable(in_file, options.unsafe_fixes) or any(f.code in FILE_ERRORS for f in in_file):
            outcome.remaining += in_file
            continue
        try:
            source = _read(path, overrides)
        except OSError as exc:
            click.echo(f"devlint: error: {path}: cannot read to fix: {exc.strerror or exc}", err=True)
            outcome.remaining += in_file
            continue
        rules = [RULES_BY_CODE[code]() for code in codes_of(path)]
        result = fix_file(path, source, in_file, lambda data, p=path, r=rules: keep(check_source(data, p, r)),
                          options.unsafe_fixes)
        if result.error:
            click.echo(f"devlint: warning: {path}: {result.error}", err=True)
        if result.changed and options.diff:
            diffs.append(unified_diff(result))
        elif result.changed and path in overrides:  # stdin: the fixed code goes to stdout
            sys.stdout.buffer.write(result.after)
            sys.stdout.flush()
        elif result.changed:
            try:
                write_back(path, result.after)
            except OSError as exc:
                click.echo(f"devlint: error: {path}: not fixed: {exc}", err=True)
                outcome.remaining += in_file
                continue
        outcome.remaining += result.remaining
        outcome.fixed += len(result.fixed)
        if result.fixed:
            fixed_by_path[path] = result.fixed
    for path in overrides:  # stdin with nothing to fix: echo it unchanged, as Ruff does
        if options.fix and not options.diff and path not in fixed_by_path:
            sys.stdout.buffer.write(overrides[path])
    if options.diff:
        _print_diff(diffs, outcome, findings, options)
    elif options.show_fixes and fixed_by_path:
        click.echo(show_fixes(fixed_by_path), nl=False)
    return outcome


def _print_diff(diffs: list[str], outcome: FixOutcome, findings: Sequence[Finding], options) -> None:
    for diff in diffs:
        click.echo(diff, nl=False)
    hidden = sum(1 for f in findings if f.fixable and f.applicability != "safe") if not options.unsafe_fixes else 0
    more = f" ({hidden} more with `--unsafe-fixes`)" if hidden else ""
    n = outcome.fixed
    click.echo(f"Would fix {n} problem{'' if n == 1 else 's'}{more}." if n else f"No fixes available{more}.", err=True)
    outcome.exit_code = 1 if diffs else 0


def show_fixes(fixed_by_path: dict[str, list[Finding]]) -> str:
    """`--show-fixes`: what `--fix` did, file by file, as Ruff lists it."""
    total = sum(len(v) for v in fixed_by_path.values())
    lines = [f"Fixed {total} problem{'' if total == 1 else 's'}:"]
    for path, fixed in sorted(fixed_by_path.items()):
        lines.append(f"- {path}:")
        counts: dict[tuple, int] = defaultdict(int)
        for finding in fixed:
            counts[(finding.code, finding.name)] += 1
        lines += [f"    {n} \u00d7 {code} ({name})" for (code, name), n in sorted(counts.items())]
    return "\n".join(lines) + "\n"


def add_noqa(findings: Sequence[Finding], overrides: dict[str, bytes]) -> int:
    from devlint.cli.add_noqa import noqa_findings, texts_of
    from devlint.static.fixes.run import apply_once, write_back

    added = skipped = 0
    for path, in_file in _by_path(findings).items():
        in_file = [f for f in in_file if f.code not in FILE_ERRORS]
        if not in_file or path in overrides:
            continue
        try:
            source = Path(path).read_bytes()
            carriers, blocked = noqa_findings(in_file, texts_of(path, source))
            result = apply_once(path, source, carriers) if carriers else None
            if result is not None and result[1]:
                write_back(path, result[0])
                added += len(result[1])
        except (OSError, ValueError) as exc:
            click.echo(f"devlint: error: {path}: cannot add noqa: {exc}", err=True)
            continue
        for cell, line in blocked:
            where = f"cell {cell}:{line}" if cell is not None else str(line)
            click.echo(f"devlint: warning: {path}:{where}: no room for a `# noqa` comment (inside a string "
                       "or a continued line)", err=True)
        skipped += len(blocked)
    click.echo(f"Added {added} noqa directive{'' if added == 1 else 's'}."
               + (f" {skipped} line(s) could not take one." if skipped else ""), err=True)
    return 0
