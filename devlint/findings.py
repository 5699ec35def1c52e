"""What a rule reports: one finding, with the lines that explain it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Severity = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    path: str
    line: int  # 1-based
    column: int  # 1-based
    end_line: int
    end_column: int
    message: str
    why: tuple[str, ...] = ()
    name: str = ""  # the rule's kebab-case name
    fix: str | None = None  # a one-line suggestion ("use ...")

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "message": self.message,
            "why": list(self.why),
            "fix": self.fix,
        }
