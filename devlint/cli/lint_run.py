"""One `devlint check PATH...` run: settings per file, files, findings, fixes, output, exit code.

The options come in groups, each read by one part of the run: `SelectOptions` and `FileOptions`
by devlint.cli.settings (which config decides, which rules, which files), `FixOptions` by
devlint.cli.fix_command, `OutputOptions` by the output, `RunOptions` by the batch and the exit code.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Optional, Sequence

import click

from devlint.cli.discovery import discover, real_paths
from devlint.cli.settings import (FileOptions, SelectOptions, Settings, SettingsResolver, UsageError, describe,
                                  fail_threshold, fails, without_fix)
from devlint.static.rule_index import merge_findings
from devlint.core.findings import FILE_ERRORS, NOTICE, Finding

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


@dataclass
class FixOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    show_fixes: bool = False
    add_noqa: bool = False
    fix_only: bool = False  # fix, and report nothing that remains
    exit_non_zero_on_fix: bool = False


@dataclass
class OutputOptions:
    output_format: Optional[str] = None  # None: the config's, else full
    color: str = "auto"
    statistics: bool = False
    quiet: bool = False
    progress: bool = True
    show_settings: Optional[str] = None  # a path: print what applies to it, lint nothing
    show_files: bool = False  # print the files that would be checked, lint nothing
    output_file: Optional[Path] = None  # the report goes there instead of stdout


@dataclass
class RunOptions:
    jobs: int = 0
    no_cache: bool = False
    cache_dir: Optional[Path] = None
    exit_zero: bool = False
    fail_on: Optional[str] = None  # None: the config's, else warning
    isolated_files: bool = False  # each file alone, not reading the project modules it imports


@dataclass
class LintOptions:
    paths: Sequence[str] = ()
    select: SelectOptions = field(default_factory=SelectOptions)
    files: FileOptions = field(default_factory=FileOptions)
    fixes: FixOptions = field(default_factory=FixOptions)
    output: OutputOptions = field(default_factory=OutputOptions)
    run: RunOptions = field(default_factory=RunOptions)

    @classmethod
    def from_flags(cls, paths: Sequence[str] = (), **flags) -> "LintOptions":
        """The command line's flat options, each put in the group that reads it."""
        groups = {}
        for name, kind in (("select", SelectOptions), ("files", FileOptions), ("fixes", FixOptions),
                           ("output", OutputOptions), ("run", RunOptions)):
            names = {f.name for f in fields(kind)}
            groups[name] = kind(**{k: flags.pop(k) for k in list(flags) if k in names})
        if flags:
            raise TypeError(f"unknown options: {', '.join(sorted(flags))}")
        return cls(paths=paths, **groups)


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


def _output_format(options: LintOptions, resolver: SettingsResolver) -> str:
    from devlint.cli.output import ALIASES, FORMATS

    chosen = options.output.output_format or resolver.project.config.output_format or "full"
    chosen = ALIASES.get(chosen, chosen)
    if chosen not in FORMATS:
        raise UsageError(f"unknown output format '{chosen}' (one of {', '.join(FORMATS)})")
    return chosen


def run_lint(options: LintOptions) -> int:
    """The exit code of one run (0 clean, 1 findings, 2 usage or file errors)."""
    resolver = SettingsResolver(options.select, options.files)
    output_format = _output_format(options, resolver)
    fixes = options.fixes
    if fixes.fix_only:
        fixes.fix = True
    if options.output.show_settings is not None:
        return _show_settings(options.output.show_settings, resolver, options, output_format)
    stdin = list(options.paths) == ["-"]
    if not options.paths:
        raise UsageError("no paths given (try `devlint .` or `devlint --help`)")
    if "-" in options.paths and not stdin:
        raise UsageError("`-` (stdin) cannot be mixed with other paths")
    overrides: dict[str, bytes] = {}
    if stdin:
        read = _read_stdin(options, resolver, overrides)
        if read is None:
            return EXIT_CLEAN
        files, missing, findings = read
    else:
        files, missing = _files(options.paths, resolver)
        _warn_all(resolver)
        if options.output.show_files:
            for path in files:
                click.echo(f"{path}\t{resolver.for_path(path).config.source or '(defaults)'}")
            return EXIT_ERROR if missing else EXIT_CLEAN
        findings = _check(files, resolver, options)
    for path in missing:
        click.echo(f"devlint: error: {path}: no such file or folder", err=True)
    for notice in sorted((f for f in findings if f.code == NOTICE), key=Finding.sort_key):
        warn(f"{notice.location()}: {notice.message}")
    keep = _keeper(resolver, files[0] if stdin else None)
    findings = keep(findings)
    if fixes.add_noqa:
        from devlint.cli.fix_command import add_noqa  # the fixes (and libcst): only when asked for
        return add_noqa(findings, overrides)
    fixed = 0
    if fixes.fix or fixes.diff:
        from devlint.cli.fix_command import apply_fixes_to_files

        def codes_of(path: str) -> list[str]:
            return resolver.for_path(files[0] if stdin else path).codes

        outcome = apply_fixes_to_files(findings, codes_of, fixes, overrides, keep)
        if fixes.diff:
            return outcome.exit_code
        findings, fixed = outcome.remaining, outcome.fixed
    if fixes.fix_only:
        return _report_fix_only(fixed, findings, options, overrides)
    return _report(findings, files, missing, resolver, options, output_format, fixed, overrides)


def _show_settings(path: str, resolver: SettingsResolver, options: LintOptions, output_format: str) -> int:
    settings = resolver.for_path(path)
    _warn_all(resolver)
    click.echo(describe(path, settings, fail_threshold(options.run.fail_on, settings), output_format), nl=False)
    return EXIT_CLEAN


def _read_stdin(options: LintOptions, resolver: SettingsResolver,
                overrides: dict[str, bytes]) -> Optional[tuple[list[str], list[str], list[Finding]]]:
    """`devlint -`: ([path], [], findings), or None when --force-exclude excludes --stdin-filename."""
    path = options.files.stdin_filename or "-"
    settings = resolver.for_path(path if options.files.stdin_filename else "stdin.py")
    _warn_all(resolver)
    if options.files.stdin_filename and settings.file_filter.force_exclude \
            and settings.file_filter.excluded(path, False):
        if options.fixes.fix:
            sys.stdout.buffer.write(sys.stdin.buffer.read())
        return None
    overrides[path] = sys.stdin.buffer.read()
    isolated = options.run.isolated_files or settings.config.isolated_files
    return [path], [], _check_stdin(path, overrides[path], settings.codes, isolated)


def _keeper(resolver: SettingsResolver, stdin_path: Optional[str]):
    """What to keep of a file's findings: no notices, nothing per-file-ignores ignore, and no fix
    on a finding of a rule that is not fixable."""
    def keep(found: list[Finding]) -> list[Finding]:
        kept = []
        for finding in found:
            settings = resolver.for_path(stdin_path or finding.path)
            if finding.code == NOTICE or not settings.keeps(finding):
                continue
            kept.append(finding if not finding.edits or settings.fixable(finding.code) else without_fix(finding))
        return kept
    return keep


def _warn_all(resolver: SettingsResolver) -> None:
    for message in dict.fromkeys(resolver.warnings):
        warn(message)
    resolver.warnings.clear()


def lint_targets(options: LintOptions) -> list[str]:
    """The files a run with `options` would check (for `--watch`)."""
    return _files(options.paths, SettingsResolver(options.select, options.files))[0]


def _files(paths: Sequence[str], resolver: SettingsResolver) -> tuple[list[str], list[str]]:
    """The files to check: walked with the settings of the folder devlint runs in, then each
    found file held to its own config's excludes (a subproject's `exclude`)."""
    files, missing = discover(paths, resolver.project.file_filter)
    named = {os.path.abspath(p) for p in paths if os.path.isfile(p)}
    kept = []
    for path in files:
        own = resolver.for_path(path).file_filter
        if own is resolver.project.file_filter or (os.path.abspath(path) in named and not own.force_exclude):
            kept.append(path)
        elif not _excluded_with_parents(own, path):
            kept.append(path)
    return kept, missing


def _excluded_with_parents(file_filter, path: str) -> bool:
    if file_filter.excluded(path, False):
        return True
    root = file_filter.root
    for parent in Path(os.path.abspath(path)).parents:
        if parent == root or root not in parent.parents:
            return False
        if file_filter.excluded(parent, True):
            return True
    return False


def _check(files: list[str], resolver: SettingsResolver, options: LintOptions) -> list[Finding]:
    """Files grouped by the settings that decide for them, each group checked with its rules."""
    from devlint.cli.batch import RunStats, check_files
    from devlint.cli.progress import Progress, wanted

    groups: dict[int, tuple[Settings, list[str]]] = {}
    checked = real_paths(files)  # a helper's line may be reported in any of them
    for path in files:
        settings = resolver.for_path(path)
        groups.setdefault(id(settings), (settings, []))[1].append(path)
    show = options.output.progress and not options.output.quiet and wanted(sys.stderr)
    bar = Progress(len(files)) if show else None
    stats = RunStats()
    by_path: dict[str, list[Finding]] = {}
    try:
        for settings, paths in groups.values():
            size = settings.config.max_file_size
            isolated = options.run.isolated_files or settings.config.isolated_files
            found = check_files(paths, settings.codes, jobs=options.run.jobs, use_cache=not options.run.no_cache,
                                progress=bar, stats=stats, cache_dir=options.run.cache_dir, isolated=isolated,
                                checked=None if isolated else checked, **({"max_file_size": size} if size else {}))
            for finding in found:
                by_path.setdefault(finding.path, []).append(finding)
    finally:
        if bar is not None:
            bar.close()
        if stats.skipped and not options.output.quiet:
            click.echo(f"devlint: skipped {stats.skipped} file(s) that mention no torch, CUDA or device", err=True)
    return merge_findings([finding for path in files for finding in by_path.get(path, ())])


def _check_stdin(path: str, source: bytes, codes: list[str], isolated: bool) -> list[Finding]:
    """`devlint - --stdin-filename PATH`: the text is read as the file at PATH, in its project."""
    from devlint.static.engine import check_source
    from devlint.static.rules import RULES_BY_CODE

    return check_source(source, path, [RULES_BY_CODE[code]() for code in codes], isolated=isolated)


def _report_fix_only(fixed: int, remaining: list[Finding], options: LintOptions, overrides: dict) -> int:
    """`--fix-only`: what was fixed; what remains is not reported and does not fail the run."""
    if not options.output.quiet:
        noun = "problem" if fixed == 1 else "problems"
        click.echo(f"Fixed {fixed} {noun}." if fixed else "No fixes applied.", err=bool(overrides))
    if any(f.code in FILE_ERRORS for f in remaining) and not options.run.exit_zero:
        return EXIT_ERROR
    return EXIT_FINDINGS if fixed and options.fixes.exit_non_zero_on_fix else EXIT_CLEAN


def _report(findings: list[Finding], files: list[str], missing: list[str], resolver: SettingsResolver,
            options: LintOptions, output_format: str, fixed: int, overrides: dict[str, bytes]) -> int:
    from devlint.cli.output import FORMATS, Report, SourceLines, render_statistics

    rules = {rule for path in files for rule in resolver.for_path(path).rules} or set(resolver.project.rules)
    report = Report(findings, files_checked=len(files), rules=sorted(rules, key=lambda r: r.code), missing=missing,
                    color=use_color(options.output.color, sys.stdout) and output_format in ("full", "concise"),
                    unsafe_fixes=options.fixes.unsafe_fixes, fixed=fixed, show_fixes=options.fixes.show_fixes,
                    quiet=options.output.quiet, source_line=SourceLines(overrides))
    if options.output.statistics:
        out = render_statistics(report, as_json=output_format == "json")
    else:
        out = FORMATS[output_format](report)
    if options.output.output_file is not None:
        _write_report(options.output.output_file, out)
    elif out:  # with `--fix -`, stdout holds the fixed code: the report goes to stderr
        click.echo(out, nl=False, err=bool(overrides) and options.fixes.fix, color=report.color)
    hint = gpu_first_hint(findings) if output_format in ("full", "concise") and not options.output.quiet else None
    if hint:
        click.echo(hint, err=True)
    threshold = fail_threshold(options.run.fail_on, resolver.project)
    code = exit_code([f for f in findings if f.code in FILE_ERRORS or fails(f, threshold)], missing,
                     options.run.exit_zero)
    if code == EXIT_CLEAN and fixed and options.fixes.exit_non_zero_on_fix:
        return EXIT_FINDINGS
    return code


GPU_FIRST_FILES = 5  # files assuming a GPU throughout from which a run asks whether the project is GPU-only
GPU_ASSUMED_LINES = ("DEV201", "DEV202", "DEV203")


def gpu_first_hint(findings: Sequence[Finding]) -> Optional[str]:
    """One line after the report when most of the files that assume a GPU do so throughout (DEV204) and some
    lines elsewhere are told one by one: a GPU-only project (an NCCL library, CUDA kernels) says so once."""
    gpu_only = {f.path for f in findings if f.code == "DEV204"}
    assumed = [f for f in findings if f.code in GPU_ASSUMED_LINES]
    files = {f.path for f in assumed}
    if len(gpu_only) < GPU_FIRST_FILES or not assumed or len(gpu_only) < 2 * len(files):
        return None
    return (f"devlint: {len(gpu_only)} files assume a GPU throughout (DEV204), {len(files)} more assume one on "
            f"{len(assumed)} line{'s' if len(assumed) > 1 else ''}: if the project runs on GPU machines only, "
            "`assume-gpu = true` in [tool.devlint] says so and drops all of them")


def _write_report(path: Path, text: str) -> None:
    try:
        if path.parent != Path():
            path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{path}: cannot write the report: {exc.strerror or exc}") from None


def exit_code(findings: Sequence[Finding], missing: Sequence[str], exit_zero: bool) -> int:
    if missing:
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    if any(f.code in FILE_ERRORS for f in findings):
        return EXIT_ERROR
    return EXIT_FINDINGS if findings else EXIT_CLEAN
