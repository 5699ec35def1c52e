"""One `devlint PATH...` run: configuration, files, findings, fixes, output, exit code."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

import click

from devlint.cli.config import Config, ConfigError, Selection, load_config, select_rules, split_codes, validate_codes
from devlint.cli.discovery import DEFAULT_EXCLUDES, FileFilter, PerFileIgnores, discover
from devlint.core.findings import FILE_ERRORS, NOTICE, Finding

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass
class LintOptions:
    paths: Sequence[str] = ()
    select: Sequence[str] = ()
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    extend_ignore: Sequence[str] = ()
    output_format: str = "full"
    config_path: Optional[Path] = None
    exclude: Sequence[str] = ()
    extend_exclude: Sequence[str] = ()
    force_exclude: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    jobs: int = 0
    no_cache: bool = False
    exit_zero: bool = False
    color: str = "auto"
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    show_fixes: bool = False
    statistics: bool = False
    quiet: bool = False
    add_noqa: bool = False
    stdin_filename: Optional[str] = None
    isolated_files: bool = False  # each file alone, as before whole-project analysis
    progress: bool = True
    warnings: list = field(default_factory=list)


class UsageError(Exception):
    """A mistake on the command line or in the configuration: one line, exit 2."""


def warn(message: str) -> None:
    click.echo(f"devlint: warning: {message}", err=True)


def use_color(choice: str, stream) -> bool:
    """--color always|never wins, then NO_COLOR, then FORCE_COLOR, then: is it a terminal?"""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def resolve_config(options: LintOptions) -> tuple[Config, list, FileFilter]:
    try:
        config = load_config(options.config_path)
        cli = Selection(split_codes(options.select) if options.select else None, split_codes(options.extend_select),
                        split_codes(options.ignore) + split_codes(options.extend_ignore))
        for where, codes in (("--select", cli.select or []), ("--extend-select", cli.extend_select),
                             ("--ignore", cli.ignore)):
            validate_codes(codes, where)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    if options.select and not cli.select:
        config.warnings.append("--select is empty: no rule is enabled")
    rules = select_rules(config.selection(), cli)
    if not rules and not config.warnings:
        config.warnings.append("no rule is enabled (check select and ignore)")
    excludes = list(options.exclude) if options.exclude else (
        config.exclude if config.exclude is not None else list(DEFAULT_EXCLUDES))
    file_filter = FileFilter(
        config.root, excludes, list(config.extend_exclude) + list(options.extend_exclude),
        respect_gitignore=config.respect_gitignore if options.respect_gitignore is None else options.respect_gitignore,
        force_exclude=config.force_exclude if options.force_exclude is None else options.force_exclude,
    )
    return config, rules, file_filter


def run_lint(options: LintOptions) -> int:
    """The exit code of one run (0 clean, 1 findings, 2 usage or file errors)."""
    from devlint.cli.output import ALIASES, FORMATS

    options.output_format = ALIASES.get(options.output_format, options.output_format)
    if options.output_format not in FORMATS:
        raise UsageError(f"unknown output format '{options.output_format}' (one of {', '.join(FORMATS)})")
    config, rules, file_filter = resolve_config(options)
    for message in config.warnings:
        warn(message)
    stdin = list(options.paths) == ["-"]
    if not options.paths:
        raise UsageError("no paths given (try `devlint .` or `devlint --help`)")
    if "-" in options.paths and not stdin:
        raise UsageError("`-` (stdin) cannot be mixed with other paths")
    codes = [r.code for r in rules]
    overrides: dict[str, bytes] = {}
    if stdin:
        path = options.stdin_filename or "-"
        if options.stdin_filename and file_filter.force_exclude and file_filter.excluded(path, False):
            if options.fix:
                sys.stdout.buffer.write(sys.stdin.buffer.read())
            return EXIT_CLEAN
        overrides[path] = sys.stdin.buffer.read()
        files, missing = [path], []
        findings = _check_stdin(path, overrides[path], codes, options.isolated_files or config.isolated_files)
    else:
        files, missing = discover(options.paths, file_filter)
        options.isolated_files = options.isolated_files or config.isolated_files
        findings = _check(files, codes, options, config.max_file_size)
    for path in missing:
        click.echo(f"devlint: error: {path}: no such file or folder", err=True)
    for notice in sorted((f for f in findings if f.code == NOTICE), key=Finding.sort_key):
        warn(f"{notice.location()}: {notice.message}")

    def keep(found: list[Finding]) -> list[Finding]:
        return _apply_per_file_ignores([f for f in found if f.code != NOTICE], config, file_filter)

    findings = keep(findings)
    from devlint.cli.fix_command import add_noqa, apply_fixes_to_files

    if options.add_noqa:
        return add_noqa(findings, overrides)
    fixed = 0
    if options.fix or options.diff:
        outcome = apply_fixes_to_files(findings, codes, options, overrides, keep)
        if options.diff:
            return outcome.exit_code
        findings, fixed = outcome.remaining, outcome.fixed
    return _report(findings, files, missing, rules, options, fixed, overrides)


def _check(files: list[str], codes: list[str], options: LintOptions, max_file_size: Optional[int]) -> list[Finding]:
    from devlint.cli.batch import RunStats, check_files
    from devlint.cli.progress import Progress, wanted

    bar = Progress(len(files)) if options.progress and not options.quiet and wanted(sys.stderr) else None
    stats = RunStats()
    try:
        return check_files(files, codes, jobs=options.jobs, use_cache=not options.no_cache, progress=bar,
                           stats=stats, isolated=options.isolated_files,
                           **({"max_file_size": max_file_size} if max_file_size else {}))
    finally:
        if bar is not None:
            bar.close()
        if stats.skipped and not options.quiet:
            click.echo(f"devlint: skipped {stats.skipped} file(s) that mention no torch, CUDA or device", err=True)


def _check_stdin(path: str, source: bytes, codes: list[str], isolated: bool) -> list[Finding]:
    """`devlint - --stdin-filename PATH`: the text is read as the file at PATH, in its project."""
    from devlint.static.engine import check_source
    from devlint.static.rules import RULES_BY_CODE

    return check_source(source, path, [RULES_BY_CODE[code]() for code in codes], isolated=isolated)


def _apply_per_file_ignores(findings: list[Finding], config: Config, file_filter: FileFilter) -> list[Finding]:
    if not config.per_file_ignores:
        return findings
    ignores = PerFileIgnores(config.per_file_ignores, file_filter)
    return [f for f in findings if f.code in FILE_ERRORS or not ignores.ignored(f.path, f.code)]


def _report(findings: list[Finding], files: list[str], missing: list[str], rules: list, options: LintOptions,
            fixed: int, overrides: dict[str, bytes]) -> int:
    from devlint.cli.output import FORMATS, Report, SourceLines, render_statistics

    report = Report(findings, files_checked=len(files), rules=rules, missing=missing,
                    color=use_color(options.color, sys.stdout) and options.output_format in ("full", "concise"),
                    unsafe_fixes=options.unsafe_fixes, fixed=fixed, show_fixes=options.show_fixes,
                    quiet=options.quiet, source_line=SourceLines(overrides))
    if options.statistics:
        out = render_statistics(report, as_json=options.output_format == "json")
    else:
        out = FORMATS[options.output_format](report)
    if out:  # with `--fix -`, stdout holds the fixed code: the report goes to stderr
        click.echo(out, nl=False, err=bool(overrides) and options.fix, color=report.color)
    return exit_code(findings, missing, options.exit_zero)


def exit_code(findings: Sequence[Finding], missing: Sequence[str], exit_zero: bool) -> int:
    if missing:
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    if any(f.code in FILE_ERRORS for f in findings):
        return EXIT_ERROR
    return EXIT_FINDINGS if findings else EXIT_CLEAN
