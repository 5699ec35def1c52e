"""What the language server asks of devlint, without any LSP: the findings of one document's text,
under the configuration the command line would use for that file, and the fixes to offer.

The configuration is the `[tool.devlint]` of the pyproject.toml nearest the file (not the
editor's current folder), read again when that file changes. A file its excludes (or a
.gitignore) leave out is not linted, as with `--force-exclude`: an editor names every file it opens.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from devlint.cli.config import Config, ConfigError, find_pyproject, load_config, select_rules
from devlint.cli.discovery import DEFAULT_EXCLUDES, FileFilter, PerFileIgnores
from devlint.core.findings import FILE_ERRORS, SAFE, Edit, Finding
from devlint.core.limits import DEFAULT_MAX_FILE_SIZE


@dataclass
class Settings:
    """What applies to one file: its rules, its filters, and a configuration error if there is one."""

    codes: list[str]
    config: Config
    file_filter: FileFilter
    error: Optional[str] = None


@dataclass
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    skipped: Optional[str] = None  # why the file was not linted (excluded by the configuration)
    error: Optional[str] = None  # a configuration error (the defaults were used instead)


class SettingsCache:
    """Settings by config file, read again when the file's modification time changes."""

    def __init__(self) -> None:
        self._by_config: dict[tuple, Settings] = {}

    def for_file(self, path: str) -> Settings:
        found = find_pyproject(Path(os.path.abspath(path)).parent)
        key = (str(found), _mtime(found)) if found is not None else (None, None)
        settings = self._by_config.get(key)
        if settings is None:
            settings = _read_settings(found)
            self._by_config = {k: v for k, v in self._by_config.items() if k[0] != key[0]}
            self._by_config[key] = settings
        return settings


def _mtime(path: Path) -> Optional[int]:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


def _read_settings(pyproject: Optional[Path]) -> Settings:
    error = None
    try:
        config = load_config(None, start=pyproject.parent) if pyproject is not None else Config()
    except ConfigError as exc:
        error, config = f"{exc} (using the default rules)", Config()
    rules = select_rules(config.selection())
    excludes = config.exclude if config.exclude is not None else list(DEFAULT_EXCLUDES)
    file_filter = FileFilter(config.root, excludes, config.extend_exclude, respect_gitignore=config.respect_gitignore)
    return Settings([rule.code for rule in rules], config, file_filter, error)


def lint_text(path: str, text: str, settings: Settings) -> LintResult:
    """The findings of the document as `devlint PATH` would report them (never raises for bad code)."""
    from devlint.static.engine import check_source
    from devlint.static.rules import RULES_BY_CODE

    if settings.file_filter.excluded(path, False):  # as Ruff's server does: excludes hold in the editor too
        where = settings.config.source or "devlint's default excludes"
        return LintResult(skipped=f"{path} is excluded ({where}, or a .gitignore): not linted", error=settings.error)
    rules = [RULES_BY_CODE[code]() for code in settings.codes]
    limit = settings.config.max_file_size or DEFAULT_MAX_FILE_SIZE
    findings = check_source(text.encode("utf-8", "surrogatepass"), path, rules, notebook=False, max_file_size=limit,
                            isolated=settings.config.isolated_files)
    if settings.config.per_file_ignores:
        ignores = PerFileIgnores(settings.config.per_file_ignores, settings.file_filter)
        findings = [f for f in findings if f.code in FILE_ERRORS or not ignores.ignored(f.path, f.code)]
    return LintResult(findings, error=settings.error)


def fix_all_edits(text: str, findings: Sequence[Finding]) -> Optional[str]:
    """The text with every safe fix that fits in one round, or None when there is none."""
    from devlint.static.fixes.apply import applicable, apply_fixes

    todo = applicable(findings, unsafe=False)
    if not todo:
        return None
    fixed, done = apply_fixes(text, todo)
    return fixed if done and fixed != text else None


def noqa_edit_for(text: str, finding: Finding) -> Optional[Edit]:
    """The edit that adds (or extends) the `# noqa` on the finding's line, or None where none can go."""
    from devlint.cli.add_noqa import noqa_findings

    carriers, _ = noqa_findings([finding], {None: text})
    return carriers[0].edits[0] if carriers else None


def is_safe(finding: Finding) -> bool:
    return finding.applicability == SAFE
