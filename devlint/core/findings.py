"""What a rule reports: one finding, with the lines that explain it, and the edits that fix it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Optional

Severity = Literal["error", "warning", "info"]
SAFE, UNSAFE = "safe", "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace a span of the file's text (1-based lines and columns, end exclusive) with `content`.

    Columns count characters, as Python's `str` does. In a notebook the span lies in the
    code cell `cell` (1-based, as in the finding); elsewhere `cell` is None.
    """

    line: int
    column: int
    end_line: int
    end_column: int
    content: str
    cell: Optional[int] = None

    def to_dict(self) -> dict:
        data = {"content": self.content, "location": {"row": self.line, "column": self.column},
                "end_location": {"row": self.end_line, "column": self.end_column}}
        if self.cell is not None:
            data["cell"] = self.cell
        return data

    @classmethod
    def from_dict(cls, data: dict) -> "Edit":
        start, end = data["location"], data["end_location"]
        return cls(start["row"], start["column"], end["row"], end["column"], data["content"], data.get("cell"))


@dataclass(frozen=True)
class Finding:
    code: str
    severity: Severity
    path: str
    line: int  # 1-based (in a notebook: within the cell)
    column: int  # 1-based
    end_line: int
    end_column: int
    message: str
    why: tuple[str, ...] = ()
    name: str = ""  # the rule's kebab-case name
    fix: Optional[str] = None  # a one-line suggestion ("use ...")
    edits: tuple[Edit, ...] = ()  # an automatic fix, applied by --fix (all or none)
    applicability: Optional[str] = None  # "safe" or "unsafe" when there are edits
    cell: Optional[int] = None  # notebooks: the code cell (1-based, markdown cells not counted)
    # per `why` entry, the places it names: (path, line, cell); path "" is this finding's file, cell a notebook's
    places: tuple = ()

    @property
    def fixable(self) -> bool:
        return bool(self.edits)

    @classmethod
    def from_dict(cls, data: dict) -> "Finding":
        """The inverse of `to_dict` (the cache stores findings as dicts)."""
        edits = tuple(Edit.from_dict(e) for e in data.get("edits") or ())
        return cls(code=data["code"], severity=data["severity"], path=data["path"], line=data["line"],
                   column=data["column"], end_line=data["end_line"], end_column=data["end_column"],
                   message=data["message"], why=tuple(data.get("why", ())), name=data.get("name", ""),
                   fix=data.get("fix"), edits=edits, applicability=data.get("applicability") if edits else None,
                   cell=data.get("cell"), places=tuple(tuple(tuple(p) for p in entry) for entry in data.get("places", ())))

    def sort_key(self) -> tuple:
        return (self.path, self.cell or 0, self.line, self.column, self.code)

    def location(self) -> str:
        """`path:line:col`, or `nb.ipynb:cell 3:line:col` in a notebook (as Ruff writes it)."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{self.path}:{cell}{self.line}:{self.column}"

    def to_dict(self) -> dict:
        data = {
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
            "fixable": self.fixable,
            "applicability": self.applicability,
            "edits": [e.to_dict() for e in self.edits],
            "cell": self.cell,
        }
        return data

    def to_record(self) -> dict:
        """`to_dict` with what only devlint reads back (the cache): the places of the why-chain."""
        return {**self.to_dict(), "places": [[list(p) for p in entry] for entry in self.places]}


# Pseudo-rules for files that cannot be analysed: always on, never configurable.
SYNTAX_ERROR = "DEV001"
DECODE_ERROR = "DEV002"
INTERNAL_ERROR = "DEV003"
TOO_COMPLEX = "DEV005"  # too big, too deep or too long to analyse (devlint.core.limits), or only partly analysed
FILE_ERRORS = {SYNTAX_ERROR: "syntax-error", DECODE_ERROR: "undecodable-file", INTERNAL_ERROR: "internal-error",
               TOO_COMPLEX: "too-complex"}
# Not a finding: a warning about the run (an unknown code in a `# noqa`), printed on stderr, never
# counted. It travels with the findings so that the cache keeps it.
NOTICE = "DEV000"
# Not a finding either: what a file's calls gave a function's operation (`message` ALL_HOST: host tensors only),
# for the run to answer the guesses there (answer_guesses, cli/batch.py). Kept by the cache too.
PLACEMENT = "DEV000-placement"
ALL_HOST, ELSEWHERE = "all on the host", "one elsewhere"
CREATED_WITHOUT_DEVICE = "DEV104"  # the rule whose guesses the placements answer


def placement(path: str, line: int, column: int, host: bool) -> Finding:
    return Finding(code=PLACEMENT, severity="info", path=path, line=line, column=column, end_line=line,
                   end_column=column, message=ALL_HOST if host else ELSEWHERE)


def answer_guesses(findings: list[Finding]) -> list[Finding]:
    """The findings without the placements, and without the DEV104 guesses (a tensor made without `device=` that
    meets a parameter's) that the run's callers answered: every call that reached the operation gave it host
    tensors only (the guess was that a caller may pass GPU ones)."""
    host = {(f.path, f.line, f.column) for f in findings if f.code == PLACEMENT and f.message == ALL_HOST}
    other = {(f.path, f.line, f.column) for f in findings if f.code == PLACEMENT and f.message != ALL_HOST}
    answered = host - other
    return [f for f in findings if f.code != PLACEMENT and not (
        f.code == CREATED_WITHOUT_DEVICE and f.severity != "error" and (f.path, f.line, f.column) in answered)]


def file_error(code: str, path: str, line: int, column: int, message: str) -> Finding:
    """A finding about a whole file that could not be analysed (DEV001-DEV003, DEV005)."""
    return Finding(code=code, severity="error", path=path, line=max(line, 1), column=max(column, 1),
                   end_line=max(line, 1), end_column=max(column, 1), message=message, name=FILE_ERRORS[code])


def file_too_big(path: str, size: int, max_file_size: int) -> Finding:
    return file_error(TOO_COMPLEX, path, 1, 1, f"not analysed: {size:,} bytes, more than max-file-size "
                                               f"({max_file_size:,}); raise it in [tool.devlint] to check it")


def notice(path: str, line: int, message: str) -> Finding:
    return Finding(code=NOTICE, severity="info", path=path, line=line, column=1, end_line=line, end_column=1,
                   message=message, name="notice")
