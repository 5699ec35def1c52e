"""`devlint --watch PATH...`: lint, then, at each change, clear the screen and lint the changed files
again (and the files that depend on them), until Ctrl-C, which ends it with exit code 0.

watchfiles (the `watch` extra) reports the changes. A change to the configuration (the file in
force, `--config`'s, or any pyproject.toml, devlint.toml or .gitignore in the watched folders)
lints everything again. Each run is an
ordinary `devlint` run over its files, with the same options and output format.

A file's dependents are the files of the run that import it, directly or through others
(devlint.static.project.graph): editing `masks.py` checks `encoder.py` again.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from typing import Callable, Iterable, Optional, Sequence

import click

from devlint.cli.discovery import SOURCE_SUFFIXES
from devlint.cli.lint_run import LintOptions, UsageError, lint_targets, run_lint
from devlint.cli.settings import SettingsResolver
from devlint.static.project import graph

# (changed files, every file of the run) -> other files to lint again
Dependents = Callable[[Sequence[str], Sequence[str]], Iterable[str]]
CONFIG_NAMES = ("pyproject.toml", "devlint.toml", ".devlint.toml", ".gitignore")


def run_watch(options: LintOptions, dependents: Dependents = graph.dependents) -> int:
    """Lint `options.paths`, then watch them; returns the exit code (0) after Ctrl-C."""
    _refuse_what_cannot_be_watched(options)
    try:
        from watchfiles import watch
    except ImportError as exc:
        raise UsageError(f"--watch needs watchfiles: pip install 'devlint[watch]' ({exc})") from None
    try:
        _lint(options, options.paths, "Starting linter in watch mode...")
        config_files = _config_files(options)
        for changes in watch(*options.paths, watch_filter=_interesting):
            changed = sorted({os.path.abspath(path) for _, path in changes})
            if any(path in config_files or os.path.basename(path) in CONFIG_NAMES for path in changed):
                config_files = _config_files(options)
                _lint(options, options.paths, "Configuration changed: checking everything again...")
                continue
            targets = _targets(options, changed, dependents)
            if targets:
                _lint(options, targets, f"File change detected: checking {_names(targets)}...")
    except KeyboardInterrupt:  # Ctrl-C, while waiting or in a run: the way out, not an error
        _status("Stopped watching.")
    return 0


def _refuse_what_cannot_be_watched(options: LintOptions) -> None:
    if not options.paths or "-" in options.paths:
        raise UsageError("--watch needs files or folders to watch (not stdin)")
    fixes = options.fixes
    for flag, given in (("--fix", fixes.fix), ("--diff", fixes.diff), ("--add-noqa", fixes.add_noqa)):
        if given:  # a watch that rewrites what it watches would chase its own changes
            raise UsageError(f"--watch cannot be combined with {flag}")


def _interesting(change: object, path: str) -> bool:
    name = os.path.basename(path)
    return name.endswith(SOURCE_SUFFIXES) or name in CONFIG_NAMES or name.endswith(".toml")


def _config_files(options: LintOptions) -> set[str]:
    """The configuration file in force (as an absolute path), to notice when it changes."""
    config_path = options.select.config_path
    files = {os.path.abspath(config_path)} if config_path else set()
    try:
        config = SettingsResolver(options.select, options.files).project.config
    except UsageError:
        return files  # the run itself says what is wrong
    if config.source:
        files.add(os.path.abspath(config.source))
    return files


def _targets(options: LintOptions, changed: Sequence[str], dependents: Dependents) -> list[str]:
    """The changed files that a full run would lint (as it names them), then their dependents."""
    try:
        files = lint_targets(options)
    except UsageError:
        return []
    by_absolute = {os.path.abspath(f): f for f in files}
    targets = [by_absolute[path] for path in changed if path in by_absolute]
    for extra in dependents(targets, [] if options.run.isolated_files else files):
        if extra not in targets:
            targets.append(extra)
    return targets


def _names(files: Sequence[str]) -> str:
    shown = ", ".join(files[:3])
    return shown + (f" and {len(files) - 3} more" if len(files) > 3 else "")


def _lint(options: LintOptions, paths: Sequence[str], status: str) -> Optional[int]:
    if sys.stdout.isatty():
        click.clear()  # Ruff-style: each run replaces the last on the screen
    _status(status)
    try:
        code = run_lint(dataclasses.replace(options, paths=list(paths)))
    except UsageError as exc:  # a config broken while watching: say so, and keep watching
        click.echo(f"devlint: error: {exc}", err=True)
        code = None
    sys.stdout.flush()
    sys.stderr.flush()
    return code


def _status(message: str) -> None:
    click.echo(f"[{time.strftime('%H:%M:%S')}] {message}", err=True)
