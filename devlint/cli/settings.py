"""What applies to each file: the closest config file above it decides (or `--config` for all),
with the command line's selection on top. `--show-settings` and `--show-files` print it."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Optional, Sequence

from devlint.cli.config import (SEVERITIES, Config, ConfigError, Selection, config_in, load_config, select_rules,
                                split_codes, validate_codes)
from devlint.cli.discovery import DEFAULT_EXCLUDES, FileFilter, PerFileIgnores
from devlint.core.findings import FILE_ERRORS, Finding


class UsageError(Exception):
    """A mistake on the command line or in the configuration: one line, exit 2."""


@dataclass
class SelectOptions:
    """What the command line says about rules and config files (read here)."""

    select: Sequence[str] = ()
    extend_select: Sequence[str] = ()
    ignore: Sequence[str] = ()
    extend_ignore: Sequence[str] = ()
    fixable: Sequence[str] = ()
    unfixable: Sequence[str] = ()
    extend_fixable: Sequence[str] = ()
    config_path: Optional[Path] = None
    isolated: bool = False  # no config file at all


@dataclass
class FileOptions:
    """What the command line says about which files (read by discovery)."""

    exclude: Sequence[str] = ()
    extend_exclude: Sequence[str] = ()
    force_exclude: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    stdin_filename: Optional[str] = None


@dataclass
class Settings:
    """One config file's settings, the command line's applied."""

    config: Config
    rules: list
    file_filter: FileFilter

    @property
    def codes(self) -> list[str]:
        return [rule.code for rule in self.rules]

    def __post_init__(self) -> None:
        self._ignores = PerFileIgnores(self.config.per_file_ignores, self.file_filter)

    def keeps(self, finding: Finding) -> bool:
        return finding.code in FILE_ERRORS or not self._ignores.ignored(finding.path, finding.code)

    def fixable(self, code: str) -> bool:
        """`fixable` (default: all), plus `extend-fixable`, minus `unfixable`."""
        config = self.config

        def named(codes: Sequence[str]) -> bool:
            return any(c == "ALL" or code.startswith(c) for c in codes)
        return (named(config.fixable if config.fixable is not None else ["ALL"]) or named(config.extend_fixable)) \
            and not named(config.unfixable)


class SettingsResolver:
    """Settings per file, looked up once per folder and once per config file."""

    def __init__(self, selection: SelectOptions, files: FileOptions, start: Optional[Path] = None) -> None:
        self.files = files
        self.start = Path(os.path.abspath(start or Path.cwd()))
        try:
            self.cli = Selection(split_codes(selection.select) if selection.select else None,
                                 split_codes(selection.extend_select),
                                 split_codes(selection.ignore) + split_codes(selection.extend_ignore))
            for where, codes in (("--select", self.cli.select or []), ("--extend-select", self.cli.extend_select),
                                 ("--ignore", self.cli.ignore), ("--fixable", split_codes(selection.fixable)),
                                 ("--unfixable", split_codes(selection.unfixable)),
                                 ("--extend-fixable", split_codes(selection.extend_fixable))):
                validate_codes(codes, where)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        self.selection = selection
        self.warnings: list[str] = []
        if selection.select and not self.cli.select:
            self.warnings.append("--select is empty: no rule is enabled")
        self._by_source: dict[Optional[str], Settings] = {}
        self._by_folder: dict[Path, Settings] = {}
        self._by_text: dict[str, Settings] = {}
        if selection.isolated and selection.config_path:
            raise UsageError("--isolated reads no config file: drop --config or --isolated")
        self.forced = self._load(selection.config_path, self.start) if selection.config_path else None
        if selection.isolated:
            self.forced = self._settings(Config(root=self.start))
        self.project = self.forced or self._load(None, self.start)  # the folder devlint runs in

    def _load(self, path: Optional[Path], start: Path) -> Settings:
        try:
            config = load_config(path, start)
        except ConfigError as exc:
            raise UsageError(str(exc)) from None
        key = config.source or f"<defaults at {config.root}>"
        if key in self._by_source:
            return self._by_source[key]
        settings = self._settings(config)
        self._by_source[key] = settings
        return settings

    def _settings(self, config: Config) -> Settings:
        self.warnings.extend(config.warnings)
        if self.selection.fixable:
            config.fixable = split_codes(self.selection.fixable)
        config.unfixable = list(config.unfixable) + split_codes(self.selection.unfixable)
        config.extend_fixable = list(config.extend_fixable) + split_codes(self.selection.extend_fixable)
        rules = select_rules(config.selection(), self.cli)
        if not rules and not config.warnings and not self.warnings:
            self.warnings.append(f"no rule is enabled (check select and ignore{_where(config)})")
        files = self.files
        excludes = list(files.exclude) if files.exclude else (
            config.exclude if config.exclude is not None else list(DEFAULT_EXCLUDES))
        file_filter = FileFilter(
            config.root, excludes, list(config.extend_exclude) + list(files.extend_exclude),
            respect_gitignore=config.respect_gitignore if files.respect_gitignore is None else files.respect_gitignore,
            force_exclude=config.force_exclude if files.force_exclude is None else files.force_exclude,
        )
        return Settings(config, rules, file_filter)

    def for_path(self, path: str) -> Settings:
        """The settings of the closest config file above `path` (`--config`: that file's, for all)."""
        if self.forced is not None:
            return self.forced
        text = os.path.dirname(path)
        found = self._by_text.get(text)  # a run asks for every file, often: its folder as written first
        if found is not None:
            return found
        folder = Path(os.path.abspath(path)).parent
        found = self._by_folder.get(folder)
        if found is None:
            trail = []
            current: Optional[Path] = folder
            while current is not None and current not in self._by_folder:
                trail.append(current)
                source = config_in(current)
                if source is not None:
                    found = self._load(source, current)
                    break
                current = current.parent if current.parent != current else None
            if found is None:
                found = self._by_folder[current] if current is not None else self.project
            for seen in trail:
                self._by_folder[seen] = found
        self._by_text[text] = found
        return found


def _where(config: Config) -> str:
    return f" in {config.source}" if config.source else ""


def fail_threshold(option: Optional[str], settings: Settings) -> str:
    """The least severe severity that fails the run: the command line's, the config's, or warning."""
    return option or settings.config.fail_on or "warning"


def fails(finding: Finding, threshold: str) -> bool:
    severity = finding.severity if finding.severity in SEVERITIES else "error"
    return SEVERITIES.index(severity) <= SEVERITIES.index(threshold)


def without_fix(finding: Finding) -> Finding:
    return replace(finding, edits=(), applicability=None)


def describe(path: str, settings: Settings, fail_on: str, output_format: str) -> str:
    """`--show-settings PATH`: what decides for the file, and what it decides."""
    config = settings.config
    ignores = PerFileIgnores(config.per_file_ignores, settings.file_filter)
    per_file = sorted(pattern for pattern, codes in config.per_file_ignores.items()
                      if codes and PerFileIgnores({pattern: codes}, settings.file_filter).ignored(path, codes[0]))
    ignored_here = sorted(c for c in settings.codes if ignores.ignored(path, c))
    excluded = settings.file_filter.excluded(path, os.path.isdir(path))
    fixable = [c for c in settings.codes if settings.fixable(c)]
    lines = [
        f"file: {path}",
        f"config: {config.source or '(none: the defaults)'}",
        f"extends: {', '.join(config.extends) or '(nothing)'}",
        f"root: {settings.file_filter.root}",
        f"rules: {', '.join(c for c in settings.codes if c not in ignored_here) or '(none)'}",
        f"per-file-ignores: {', '.join(f'{p} -> {config.per_file_ignores[p]}' for p in per_file) or '(none apply)'}",
        f"fixable: {', '.join(fixable) or '(none)'}",
        f"exclude: {', '.join(settings.file_filter.exclude)}",
        f"extend-exclude: {', '.join(settings.file_filter.extend_exclude) or '(none)'}",
        f"excluded: {'yes' if excluded else 'no'}",
        f"respect-gitignore: {str(settings.file_filter.respect_gitignore).lower()}",
        f"force-exclude: {str(settings.file_filter.force_exclude).lower()}",
        f"assume-gpu: {str(config.assume_gpu).lower()}",
        f"max-file-size: {config.max_file_size or 'the default (3 MiB)'}",
        f"fail-on: {fail_on}",
        f"output-format: {output_format}",
    ]
    return "\n".join(lines) + "\n"
