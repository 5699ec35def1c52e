"""What every output format is given: the run's findings and what a reader needs around them."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence

from devlint.core.findings import SAFE, Finding


@dataclass
class Report:
    findings: Sequence[Finding]
    files_checked: int = 0
    rules: Sequence = ()  # the rules that ran (their classes, or RuleInfo: what sarif needs of them is their code)
    color: bool = False
    missing: Sequence[str] = ()  # paths given that do not exist
    unsafe_fixes: bool = False  # unsafe fixes count as available
    fixed: int = 0  # how many findings --fix fixed
    show_fixes: bool = False
    quiet: bool = False
    source_line: Callable[[Finding, int], Optional[str]] = field(default=lambda finding, line: None)

    def sorted(self) -> list[Finding]:
        return sorted(self.findings, key=Finding.sort_key)

    def applicable(self, finding: Finding) -> bool:
        return finding.fixable and (finding.applicability == SAFE or self.unsafe_fixes)


class SourceLines:
    """The text lines of the files findings point into (a notebook's by cell), read once each."""

    def __init__(self, overrides: Optional[dict[str, bytes]] = None) -> None:
        self.overrides = overrides or {}  # e.g. stdin's content under its --stdin-filename
        self.cache: dict[tuple[str, Optional[int]], list[str]] = {}

    def __call__(self, finding: Finding, line: int) -> Optional[str]:
        key = (finding.path, finding.cell)
        if key not in self.cache:
            self.cache[key] = self._read(finding.path, finding.cell)
        lines = self.cache[key]
        return lines[line - 1] if 0 < line <= len(lines) else None

    def _read(self, path: str, cell: Optional[int]) -> list[str]:
        try:
            data = self.overrides[path] if path in self.overrides else Path(path).read_bytes()
        except OSError:
            return []
        if cell is not None:
            from devlint.static.notebooks import NotebookError, code_cell_text

            try:
                return code_cell_text(data, cell).splitlines()
            except (NotebookError, UnicodeError, json.JSONDecodeError):
                return []
        from devlint.static.encoding import decode

        try:
            return decode(data)[1].splitlines()
        except (UnicodeError, LookupError):
            return []
