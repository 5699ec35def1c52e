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

    @classmethod
    def from_dict(cls, data: dict) -> "Finding":
        """The inverse of `to_dict` (the cache stores findings as dicts)."""
        return cls(code=data["code"], severity=data["severity"], path=data["path"], line=data["line"],
                   column=data["column"], end_line=data["end_line"], end_column=data["end_column"],
                   message=data["message"], why=tuple(data.get("why", ())), name=data.get("name", ""),
                   fix=data.get("fix"))

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


# Pseudo-rules for files that cannot be analysed: always on, never configurable.
SYNTAX_ERROR = "DEV001"
DECODE_ERROR = "DEV002"
INTERNAL_ERROR = "DEV003"
FILE_ERRORS = {SYNTAX_ERROR: "syntax-error", DECODE_ERROR: "undecodable-file", INTERNAL_ERROR: "internal-error"}


def file_error(code: str, path: str, line: int, column: int, message: str) -> Finding:
    """A finding about a whole file that could not be analysed (DEV001-DEV003)."""
    return Finding(code=code, severity="error", path=path, line=max(line, 1), column=max(column, 1),
                   end_line=max(line, 1), end_column=max(column, 1), message=message, name=FILE_ERRORS[code])
